"""Every write to deals and games. Views and consumers call these; the rules come from games.engine."""

from __future__ import annotations

import dataclasses
import datetime
import logging
from collections.abc import Sequence
from functools import partial
from typing import NamedTuple

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext

from accordion_site.db import db_call
from accordion_site.languages import local_number
from accounts.models import Player
from realtime.loop_db import LoopConnectionsBusy

from . import assessment, engine, events, fair_play, selectors, store
from .engine import analysis, risk, solver
from .engine.cards import describe
from .engine.deals import CHECKED_CODE_LENGTH
from .errors import (
    AttemptDayOver,
    DealCodeTypo,
    GameChanged,
    GameError,
    GameFinished,
    GameNotFound,
    GameNotStarted,
    IllegalMoveError,
    LinesWithheld,
    NeedsUnrankedConsent,
    NothingToUndo,
    NotYourGame,
)
from .models import Deal, Game, GameEvent, RankedSlot
from .signals import game_standing_changed
from .solver_pool import solver_run

logger = logging.getLogger(__name__)

# The game columns a finish writes (besides the version, which every event bumps).
_FINISH_FIELDS = ["moves", "piles", "status", "finished_at", "seconds", "score", "risk", "risk_reasons", "review"]


def deal_for_date(*, date: datetime.date) -> Deal:
    """The stored daily deal of a UTC date, derived and stored on first use."""
    deal = Deal.objects.filter(daily_date=date).first()
    if deal is None:
        # Deriving the deal runs the solver; do it once, outside the row's unique-insert race.
        daily = engine.certified_daily_deal(date, engine.daily_seed(date, secret=settings.DAILY_SECRET))
        deal, _ = Deal.objects.get_or_create(
            daily_date=date,
            defaults={
                "cards": list(daily.cards),
                "solution": [list(move) for move in daily.solution],
                "seed": daily.seed,
                "attempt": daily.attempt,
            },
        )
    return deal


def display_deal_code(code: str) -> str:
    """The name a typed deal code's deal is stored under ("K7QD-M2XP": its 8 symbols without the check
    symbol); GameError, in the request's language, for text that is not a deal code (the engine's own
    words are English), DealCodeTypo for one whose check symbol shows a slip."""
    try:
        return engine.format_deal_code(code)
    except engine.DealCodeTypo as typo:
        raise _typo_refusal(code=code, typo=typo) from typo
    except ValueError as error:
        words = {"code": describe(code), "length": local_number(CHECKED_CODE_LENGTH)}
        raise GameError(
            gettext(
                "%(code)s is not a deal code: a deal code is %(length)s letters and digits such as K7QD-M2XP-X "
                "(no 0, 1, I or O)"
            )
            % words
        ) from error


def _typo_refusal(*, code: str, typo: engine.DealCodeTypo) -> DealCodeTypo:
    """The refusal of a mistyped code, suggesting the one deal already played or shared that a single slip
    away from it names, when there is exactly one (a slip in a friend's code lands there)."""
    near = selectors.deal_codes_stored(codes=[engine.format_deal_code(canonical) for canonical in typo.corrections])
    words = {"code": describe(code)}
    if len(near) != 1:
        return DealCodeTypo(
            gettext("%(code)s is not a deal code: a character is mistyped. Check it against the code you were sent.")
            % words
        )
    suggestion = engine.checked_deal_code(near[0])
    return DealCodeTypo(
        gettext("%(code)s is not a deal code: a character is mistyped. Did you mean %(suggestion)s?")
        % {**words, "suggestion": suggestion},
        suggestion=suggestion,
    )


def deal_for_code(*, code: str) -> Deal:
    """The stored deal a code names (with its check symbol, or an 8-symbol code as first shared); raise
    GameError for text that is not a deal code, DealCodeTypo for a mistyped one."""
    display_code = display_deal_code(code)
    deal, _ = Deal.objects.get_or_create(code=display_code, defaults={"cards": engine.deal_from_code(display_code)})
    return deal


def game_start(
    *, player: Player, mode: str, code: str | None = None, now: datetime.datetime, address: str | None = None
) -> tuple[Game, bool]:
    """Hand a deal out and start its clock. Return (game, created).

    Daily: resume the player's unfinished game on today's deal with its original clock; otherwise the
    first daily game of the date is ranked and later ones are practice. `address` is the client's
    address: once RANKED_ATTEMPTS_PER_ADDRESS guests or new accounts have taken the day's ranked attempt
    from it, their first daily game is practice too; an established account keeps its own (see
    fair_play.holds_own_slot; internal callers without an address are not counted).
    """
    # The deal is found (for a day not certified ahead of time: derived and certified by the solver)
    # before any row is locked, so a slow certification never holds up anyone's game.
    if mode == Game.Mode.DAILY:
        deal = deal_for_date(date=now.date())
    elif mode == Game.Mode.NEW:
        deal = deal_for_code(code=engine.new_deal_code())
    elif mode == Game.Mode.CODE:
        if not code:
            raise GameError(gettext("a deal code is needed to play a code, such as 'K7QD-M2XP-X'"))
        deal = deal_for_code(code=code)
    else:
        raise GameError(gettext("unknown mode %(mode)r: use daily, new or code") % {"mode": mode})
    return _game_start_on(player=player, deal=deal, mode=mode, race_code="", now=now, address=address)


def game_start_race(*, player: Player, deal: Deal, race_code: str, now: datetime.datetime) -> Game:
    """Start a racer's game on the race's deal, its clock at the race's start signal (`now`); race
    games are never ranked."""
    game, _ = _game_start_on(player=player, deal=deal, mode=Game.Mode.RACE, race_code=race_code, now=now, address=None)
    return game


def game_start_arena(*, player: Player, deal: Deal, now: datetime.datetime) -> Game:
    """Start a participant's game on an arena's deal. Ranked, so that it is assessed like a daily attempt
    and a result held for review waits for staff (the arena counts it once cleared); arena deals are
    code deals, so it never reaches a daily board."""
    # No savepoint of its own: the caller's transaction holds the participant's lock, and fails with this.
    with transaction.atomic(savepoint=False):
        game = Game.objects.create(player=player, deal=deal, mode=Game.Mode.ARENA, ranked=True, started_at=now)
        events.append(game, kind=GameEvent.Kind.START, at=now, changed=[])
    logger.info("game %s started: player=%s mode=arena", game.pk, player.pk)
    return game


@transaction.atomic
def _game_start_on(
    *, player: Player, deal: Deal, mode: str, race_code: str, now: datetime.datetime, address: str | None
) -> tuple[Game, bool]:
    ranked, practice_reason, own_slot, address_key = False, "", False, ""
    if mode == Game.Mode.DAILY:
        # Serialise a player's daily starts so that two tabs cannot both take the ranked attempt.
        Player.objects.select_for_update().filter(pk=player.pk).first()
        # Races on the deal (against a ghost of the day's game) are neither resumed nor the day's attempt.
        games = Game.objects.filter(player=player, deal=deal, mode=Game.Mode.DAILY)
        unfinished = games.filter(status=Game.Status.PLAYING).order_by("-started_at").first()
        if unfinished is not None:
            return unfinished, False
        own_slot = fair_play.holds_own_slot(player=player, now=now)
        address_key = fair_play.address_key(address) if address is not None else ""
        # Only the first game of the date is ranked, even if a hint later unranked it.
        if games.exists():
            practice_reason = Game.PracticeReason.REPEAT
        elif not own_slot and address_key and _address_slots_taken(deal=deal, key=address_key):
            practice_reason = Game.PracticeReason.ADDRESS_LIMIT
        else:
            ranked = True
    game = Game.objects.create(
        player=player,
        deal=deal,
        mode=mode,
        ranked=ranked,
        practice_reason=practice_reason,
        race_code=race_code,
        started_at=now,
    )
    if ranked:
        RankedSlot.objects.create(
            deal=deal, address_key=address_key, player=player, game=game, own_slot=own_slot, taken_at=now
        )
    events.append(game, kind=GameEvent.Kind.START, at=now, changed=[])
    logger.info("game %s started: player=%s mode=%s ranked=%s %s", game.pk, player.pk, mode, ranked, practice_reason)
    return game, True


def _address_slots_taken(*, deal: Deal, key: str) -> bool:
    """Whether the address's allowance at the deal is used up, counted under the address's lock: held
    until the start's transaction ends, so the next start from the address counts this one's slot."""
    fair_play.address_lock(deal_id=deal.pk, key=key)
    return fair_play.address_attempts(deal_id=deal.pk, key=key) >= settings.RANKED_ATTEMPTS_PER_ADDRESS


def _lock_own_game(*, game_id: int, player: Player) -> Game:
    game = store.read_game(game_id, lock=True)
    if game is None:
        raise GameNotFound(gettext("there is no game %(game)s") % {"game": game_id})
    if game.player_id != player.pk:
        raise NotYourGame(gettext("game %(game)s belongs to another player") % {"game": game_id})
    game.player = player  # the caller's own row: what reads the game's player (the assessment) asks no query
    return game


def _lock_own_playing_game(*, game_id: int, player: Player, now: datetime.datetime) -> Game:
    game = _lock_own_game(game_id=game_id, player=player)
    _refuse_unless_in_play(KnownGame.of(game), player=player, now=now)
    return game


def _refuse_unless_in_play(known: KnownGame, *, player: Player, now: datetime.datetime) -> None:
    """Refuse a change to a game that is another player's, finished, or not started yet."""
    if known.player_id != player.pk:
        raise NotYourGame(gettext("game %(game)s belongs to another player") % {"game": known.game_id})
    if known.status != Game.Status.PLAYING:
        raise GameFinished(gettext("game %(game)s is finished and cannot change") % {"game": known.game_id})
    if now < known.started_at:
        raise GameNotStarted(
            gettext("game %(game)s has not started yet: its clock starts at %(time)s UTC")
            % {"game": known.game_id, "time": f"{known.started_at:%H:%M:%S}"}
        )


def _day_over(game: Game) -> AttemptDayOver:
    return AttemptDayOver(
        gettext(
            "game %(game)s was the ranked attempt at the daily deal of %(date)s: that day is over "
            "(midnight UTC), so it was closed where it stood"
        )
        % {"game": game.pk, "date": game.deal.daily_date}
    )


def _closed_if_day_over(game: Game, *, now: datetime.datetime) -> bool:
    """Close `game` (locked) where it stands if it is a ranked attempt whose day is over, and say so.
    The day's winning lines are published once it is over, so none may finish such an attempt. Its
    result is taken at the day's end, so closing late changes nothing."""
    if not selectors.attempt_day_over(game=game, today=now.date()):
        return False
    assert game.deal.daily_date is not None  # attempt_day_over: a daily deal
    _record_finish(game, piles=game.piles, now=selectors.day_end(game.deal.daily_date))
    events.append(game, kind=GameEvent.Kind.FINISH, at=now, changed=_FINISH_FIELDS)
    logger.info("game %s: ranked attempt closed, its day %s is over", game.pk, game.deal.daily_date)
    return True


def game_close_if_day_over(*, game_id: int, now: datetime.datetime) -> bool:
    """Close the game if it is a ranked attempt still in play whose day is over; return whether it was.
    Run on access (reading the game) and for every such attempt by `manage.py close_daily_attempts`."""
    # Locked: the close writes the attempt's result, and the boards' rows join its transaction.
    with transaction.atomic():
        game = Game.objects.select_for_update(of=("self",)).select_related("deal").filter(pk=game_id).first()
        return game is not None and _closed_if_day_over(game, now=now)


def _replay(game: Game, moves: Sequence[object]) -> engine.Position:
    try:
        return engine.replay(game.deal.cards, moves)  # type: ignore[arg-type]
    except engine.IllegalMove as error:
        raise _illegal_move(error) from error


def _illegal_move(error: engine.IllegalMove, *, index: int | None = None) -> IllegalMoveError:
    """The engine's refusal in the request's language (the engine's own words are English), its
    counts in the language's digits. `index`: the move's place in the line, where the engine did not
    say (one step from a known position)."""
    details = {name: local_number(value) if type(value) is int else value for name, value in error.details.items()}
    words = {"move": describe(error.move), "reason": gettext(error.template) % details}
    index = error.index if error.index is not None else index
    if index is None:
        return IllegalMoveError(gettext("move %(move)s: %(reason)s") % words)
    number = local_number(index + 1)
    return IllegalMoveError(gettext("move %(number)s %(move)s: %(reason)s") % {**words, "number": number}, index=index)


def _record_finish(
    game: Game,
    *,
    piles: int,
    now: datetime.datetime,
    move: Sequence[int] | None = None,
    line: Sequence[Sequence[int]] | None = None,
) -> None:
    """Store the result. A ranked one is assessed on its timing and history now (held for review when
    that is enough), and with the solver's verdicts once this commits (game_assess; an arena game's by
    `manage.py assess_games`). `move` is the finishing move, `line` the line a finish brought in place
    of the stored one."""
    seconds = max(0, int((now - game.started_at).total_seconds()))
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.piles = piles
    game.seconds = seconds
    game.score = engine.score(piles, seconds)
    if game.ranked:
        finishing = risk.TimedEvent(
            kind=GameEvent.Kind.FINISH,
            seconds=(now - game.started_at).total_seconds(),
            move=(move[0], move[1]) if move is not None else None,
            line=tuple((step[0], step[1]) for step in line) if line is not None else None,
        )
        found = assessment.at_finish(game, finishing)
        game.risk = found.risk
        game.risk_reasons = [reason.as_json() for reason in found.reasons]
        game.review = Game.Review.PENDING if assessment.held(found) else ""
        # An arena's hundreds of players finish a game every minute or so each: their solver part is left
        # to `manage.py assess_games`, so that it does not take the solver pool the arena's deals need.
        if game.mode != Game.Mode.ARENA:
            transaction.on_commit(partial(assessment.in_background, partial(_assess_now, game.pk), game.pk))
    logger.info(
        "game %s finished: piles=%s seconds=%s score=%s risk=%s", game.pk, piles, seconds, game.score, game.risk
    )


# A move or undo is checked by the engine once, on the game as known (read without a lock, or as the
# caller last had it), and stored in one statement on condition that the game is still at that version
# (games/store.py); when it is not, the game is read again and the change checked on it. The game's
# lock is taken only where a change writes more than the line: a win (the result, and the boards' and
# races' rows in its transaction) and the close of a ranked attempt whose day is over.


@dataclasses.dataclass(frozen=True, slots=True)
class KnownGame:
    """A game as a caller last had it, in plain values: what a move or undo on it is checked against,
    and the version it is stored on condition of. `position` is the position `line` reaches where known
    (after a move), so that the next move is checked with one step of the engine instead of a replay of
    the whole line. `closes_at`: the end of a ranked attempt's day, when it is closed where it stands."""

    game_id: int
    player_id: int
    version: int
    status: str
    started_at: datetime.datetime
    closes_at: datetime.datetime | None
    cards: Sequence[str]
    line: list[list[int]]
    piles: int
    position: engine.Position | None = None

    @classmethod
    def of(cls, game: Game) -> KnownGame:
        daily_date = game.deal.daily_date
        return cls(
            game_id=game.pk,
            player_id=game.player_id,
            version=game.version,
            status=game.status,
            started_at=game.started_at,
            closes_at=selectors.day_end(daily_date) if game.ranked and daily_date is not None else None,
            cards=game.deal.cards,
            line=game.moves,
            piles=game.piles,
        )


class _Change(NamedTuple):
    """A move or undo checked on a known game: the stored change, and the position after it where
    known (after a move; an undo leaves it to the next move's replay)."""

    plain: events.PlainChange
    position: engine.Position | None

    @property
    def wins(self) -> bool:
        return self.position is not None and self.position.won


class _DayOver(Exception):
    """The known game is a ranked attempt whose day is over: the locking path closes it."""


def _change_on(known: KnownGame, *, player: Player, move: Sequence[int] | None, now: datetime.datetime) -> _Change:
    """The move (the undo of the last move, for None) on `known`, checked by the engine: the one place
    that decides a move, and the refusal (GameError) when it may not be made."""
    _refuse_unless_in_play(known, player=player, now=now)
    if known.closes_at is not None and now >= known.closes_at:
        raise _DayOver
    plain = partial(events.PlainChange, game_id=known.game_id, player_id=known.player_id, version=known.version, at=now)
    if move is None:
        if not known.line:
            raise NothingToUndo(gettext("there is no move to undo"))
        undo = plain(kind=GameEvent.Kind.UNDO, move=known.line[-1], line=known.line[:-1], piles=known.piles + 1)
        return _Change(undo, position=None)
    try:
        if known.position is not None:
            position = engine.apply_move(known.position, move)
        else:
            position = engine.replay(known.cards, [*known.line, move])
    except engine.IllegalMove as error:
        raise _illegal_move(error, index=len(known.line)) from error
    step = list(move)
    kind = GameEvent.Kind.FINISH if position.won else GameEvent.Kind.MOVE
    return _Change(plain(kind=kind, move=step, line=[*known.line, step], piles=position.piles), position=position)


def game_move(*, game_id: int, player: Player, move: Sequence[int], now: datetime.datetime) -> Game:
    """Store one move on the player's line; a move that leaves one pile finishes (wins) the game."""
    return _play(game_id=game_id, player=player, move=move, now=now)


def game_undo(*, game_id: int, player: Player, now: datetime.datetime) -> Game:
    """Take the last move back."""
    return _play(game_id=game_id, player=player, move=None, now=now)


def _play(
    *,
    game_id: int,
    player: Player,
    move: Sequence[int] | None,
    now: datetime.datetime,
    checked: tuple[KnownGame, _Change] | None = None,
) -> Game:
    """The move (the undo, for None) on the game as stored, on the database threads. `checked`: the
    change as the caller checked it on the game as it knew it, which stands if the game is still so."""
    if checked is not None:
        finished = _finish_move(*checked, now=now)
        if finished is not None:
            return finished
    while True:
        game = store.read_game(game_id, lock=False)
        if game is None:
            raise GameNotFound(gettext("there is no game %(game)s") % {"game": game_id})
        known = KnownGame.of(game)
        try:
            change = _change_on(known, player=player, move=move, now=now)
        except _DayOver:
            game_close_if_day_over(game_id=game_id, now=now)
            raise _day_over(game) from None
        if change.wins:
            finished = _finish_move(known, change, now=now)
            if finished is not None:
                return finished
        elif events.append_if_unchanged(change.plain) is not None:
            game.moves, game.piles, game.version = change.plain.line, change.plain.piles, game.version + 1
            return game


def _finish_move(known: KnownGame, change: _Change, *, now: datetime.datetime) -> Game | None:
    """Store the winning `change` with the game's result; None if the game changed since it was known."""
    # Locked: a win writes the result, and its assessment and the boards' and races' rows join its transaction.
    with transaction.atomic():
        game = store.read_game(known.game_id, lock=True)
        if game is None or game.version != known.version:
            return None
        game.moves, game.piles = change.plain.line, change.plain.piles
        _record_finish(game, piles=change.plain.piles, now=now, move=change.plain.move)
        events.append(game, kind=GameEvent.Kind.FINISH, move=change.plain.move, at=now, changed=_FINISH_FIELDS)
        return game


async def game_move_async(
    *, game_id: int, player: Player, move: Sequence[int], now: datetime.datetime, known: KnownGame | None
) -> KnownGame:
    """`game_move` from the event loop, for a caller that keeps the game as its last change left it
    (`known`); return the game as this move leaves it, to pass with the next."""
    return await _play_async(game_id=game_id, player=player, move=move, now=now, known=known)


async def game_undo_async(
    *, game_id: int, player: Player, now: datetime.datetime, known: KnownGame | None
) -> KnownGame:
    """`game_undo` from the event loop, as `game_move_async`."""
    return await _play_async(game_id=game_id, player=player, move=None, now=now, known=known)


async def _play_async(
    *, game_id: int, player: Player, move: Sequence[int] | None, now: datetime.datetime, known: KnownGame | None
) -> KnownGame:
    """A change on `known` is checked here and stored in its one statement on a connection of the event
    loop's own (realtime/loop_db.py): no database thread, no hop. The database threads (`_play`)
    take the rest: no known game, a refusal (the stored game may be ahead of the known one), a win, a
    game changed meanwhile."""
    if known is not None and known.game_id == game_id:
        try:
            change = _change_on(known, player=player, move=move, now=now)
        except (GameError, _DayOver):
            pass
        else:
            if change.wins:
                won = await db_call(_play)(game_id=game_id, player=player, move=move, now=now, checked=(known, change))
                return KnownGame.of(won)
            if await _stored_from_loop(change.plain) is not None:
                return dataclasses.replace(
                    known,
                    version=known.version + 1,
                    line=change.plain.line,
                    piles=change.plain.piles,
                    position=change.position,
                )
    return KnownGame.of(await db_call(_play)(game_id=game_id, player=player, move=move, now=now))


async def _stored_from_loop(change: events.PlainChange) -> events.GameEventOut | None:
    """`change` stored from the event loop, or from a database thread (the same statement) on another
    database than PostgreSQL or when all of the loop's connections are busy; None if the game changed."""
    if store.changes_from_loop():
        try:
            return await events.append_if_unchanged_from_loop(change)
        except LoopConnectionsBusy:
            pass
    return await db_call(events.append_if_unchanged)(change)


def game_finish(*, game_id: int, player: Player, moves: Sequence[object], now: datetime.datetime) -> Game:
    """Replay `moves` from the deal and store the verified result; the client's own score, time or
    pile count is never read. Finishing again with the stored line (a retry) answers with the stored
    result; with any other line it is refused: a result, once stored, stands."""
    # Locked: a finish writes the result, and its assessment and the boards' and races' rows join its transaction.
    with transaction.atomic():
        game = _lock_own_game(game_id=game_id, player=player)
        if game.status == Game.Status.FINISHED:
            if moves == game.moves:
                return game
            raise GameFinished(gettext("game %(game)s is finished already: its result stands") % {"game": game_id})
        if now < game.started_at:
            raise GameNotStarted(
                gettext("game %(game)s has not started yet: it cannot be finished") % {"game": game_id}
            )
        if not _closed_if_day_over(game, now=now):
            position = _replay(game, moves)
            line = [list(step) for step in moves]  # type: ignore[call-overload]
            # The finish carries the line only when it is not the stored one (moves played while
            # offline), so that replaying the events always gives the stored game.
            replaced_line = line if line != game.moves else None
            game.moves = line
            _record_finish(game, piles=position.piles, now=now, line=replaced_line)
            events.append(game, kind=GameEvent.Kind.FINISH, line=replaced_line, at=now, changed=_FINISH_FIELDS)
            return game
    raise _day_over(game)


def game_hint(
    *, game_id: int, player: Player, accept_unranked: bool, now: datetime.datetime
) -> tuple[Game, solver.HintResult]:
    """Ask the solver for one move that keeps the game winnable, or how many moves to undo to get back
    to a winnable position. A hint makes the game unranked for good, so a ranked game needs the
    player's explicit `accept_unranked`. An undecided ("unknown") answer costs nothing."""
    game = selectors.game_get_for_player(game_id=game_id, player=player)
    if game.status != Game.Status.PLAYING:
        raise GameFinished(gettext("game %(game)s is finished: no hints") % {"game": game_id})
    if selectors.attempt_day_over(game=game, today=now.date()):
        game_close_if_day_over(game_id=game_id, now=now)
        raise _day_over(game)
    if not game.ranked and selectors.winning_lines_withheld(game=game, today=now.date()):
        if game.deal.lines_secret_until is not None:  # an arena's deal, which its participants reach one by one
            raise LinesWithheld(gettext("no hints on an arena's deal before the arena ends"))
        # A practice game of a day not over would hand its winning line to a fresh ranked attempt.
        raise LinesWithheld(gettext("no hints on a practice game of a daily deal before its day is over (UTC)"))
    if game.mode == Game.Mode.RACE:
        raise GameError(gettext("no hints in a race: everyone plays on their own"))
    if game.mode == Game.Mode.ARENA:
        raise GameError(gettext("no hints in an arena: everyone plays on their own"))
    if game.ranked and not accept_unranked:
        raise NeedsUnrankedConsent(gettext("a hint makes this game unranked for good: confirm with accept_unranked"))
    time_limit = settings.SOLVER_TIME_LIMIT
    # The search runs outside any transaction: the game row is not locked while the solver works.
    advice = solver_run(analysis.position_hint, game.deal.cards, game.moves, time_limit, time_limit=time_limit)
    if advice.status in ("unknown", "won"):
        return game, advice
    # Locked: the hint unranks the game only if it is still the game the solver worked on.
    with transaction.atomic():
        locked = _lock_own_playing_game(game_id=game_id, player=player, now=now)
        if locked.version != game.version:
            raise GameChanged(gettext("the game changed while the hint was worked out: ask again"))
        locked.ranked = False
        locked.hints += 1
        events.append(locked, kind=GameEvent.Kind.HINT, at=now, changed=["ranked", "hints"])
    logger.info("game %s: hint %s given (%s)", game_id, locked.hints, advice.status)
    return locked, advice


def _assess_now(game_id: int) -> None:
    game_assess(game_id=game_id, now=datetime.datetime.now(datetime.UTC))


def game_assess(*, game_id: int, now: datetime.datetime) -> Game | None:
    """Weigh the solver's verdict on every position a finished ranked game visited, with its timing and
    the player's history, and store the risk and its reasons; over FAIR_PLAY_REVIEW_RISK the result is
    held for review (off the board until staff decide). Run after a finish's commit, and by `manage.py
    assess_games` for any game that was missed; a game assessed already is left alone. None when there
    is nothing to assess. SolverBusy when the pool cannot take the work now: the game waits."""
    game = Game.objects.select_related("deal", "player").filter(pk=game_id).first()
    if game is None or not game.ranked or game.status != Game.Status.FINISHED or game.assessed_at is not None:
        return None
    timed = assessment.timed_events(game)
    budget = settings.FAIR_PLAY_SOLVER_SECONDS
    # The solver works outside any transaction: the game row is not locked meanwhile. Nobody waits for
    # this answer, so it may wait for a pool that is starting or busy with players' hints.
    verdicts = solver_run(
        risk.judge_play, game.deal.cards, timed, budget, settings.FAIR_PLAY_SOLVER_POSITIONS, time_limit=3 * budget
    )
    with transaction.atomic():
        game = Game.objects.select_for_update(of=("self",)).select_related("deal", "player").get(pk=game_id)
        if game.assessed_at is not None:
            return game
        found = assessment.weigh(game, timed, verdicts)
        game.risk = found.risk
        game.risk_reasons = [reason.as_json() for reason in found.reasons]
        game.verdicts = [verdict.as_json() for verdict in verdicts]
        game.assessed_at = now
        newly_held = game.review == "" and assessment.held(found)
        if newly_held:
            game.review = Game.Review.PENDING
        game.save(update_fields=["risk", "risk_reasons", "verdicts", "assessed_at", "review"])
        if newly_held:
            game_standing_changed.send(sender=Game, game_ids=[game.pk])
    logger.info("game %s assessed: risk=%s held=%s", game.pk, game.risk, newly_held)
    return game


@transaction.atomic
def games_review(
    *, game_ids: Sequence[int], decision: str, reason: str, reviewer: AbstractBaseUser | None, now: datetime.datetime
) -> int:
    """Staff's decision on ranked results held for review, with its reason kept: `cleared` puts them
    (back) on their day's board, `confirmed` keeps them off it for good, and both count in the player's
    history for later assessments. Games never held are left alone. Return how many changed."""
    if decision not in (Game.Review.CLEARED, Game.Review.CONFIRMED):
        raise GameError(f"a review decides cleared or confirmed, not {decision!r}")
    if not reason.strip():
        raise GameError("a review keeps its reason: say why")
    held = list(
        Game.objects.select_for_update().filter(pk__in=game_ids).exclude(review="").values_list("pk", flat=True)
    )
    Game.objects.filter(pk__in=held).update(
        review=decision, review_reason=reason.strip(), reviewed_by=reviewer, reviewed_at=now
    )
    game_standing_changed.send(sender=Game, game_ids=held)
    logger.info("games %s reviewed: %s (%s)", held, decision, reason)
    return len(held)
