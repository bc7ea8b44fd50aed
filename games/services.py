"""Every write to deals and games. Views and consumers call these; the rules come from games.engine."""

from __future__ import annotations

import copy
import datetime
import logging
from collections.abc import Sequence
from dataclasses import dataclass
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
from .engine import risk, solver
from .engine.cards import describe
from .engine.deals import CODE_LENGTH
from .errors import (
    AttemptDayOver,
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

# The game columns each kind of change writes (besides the version, which every event bumps).
_MOVE_FIELDS = ["moves", "piles"]
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
    """The display form of a deal code ("K7QD-M2XP"); GameError, in the request's language, for text
    that is not one (the engine's own words are English)."""
    try:
        return engine.format_deal_code(code)
    except ValueError as error:
        words = {"code": describe(code), "length": local_number(CODE_LENGTH)}
        raise GameError(
            gettext(
                "%(code)s is not a deal code: a deal code is %(length)s letters and digits such as K7QD-M2XP "
                "(no 0, 1, I or O)"
            )
            % words
        ) from error


def deal_for_code(*, code: str) -> Deal:
    """The stored deal a code names; raise GameError for text that is not a deal code."""
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
            raise GameError(gettext("a deal code is needed to play a code, such as 'K7QD-M2XP'"))
        deal = deal_for_code(code=code)
    else:
        raise GameError(gettext("unknown mode %(mode)r: use daily, new or code") % {"mode": mode})
    return _game_start_on(player=player, deal=deal, mode=mode, race_code="", now=now, address=address)


def game_start_race(*, player: Player, deal: Deal, race_code: str, now: datetime.datetime) -> Game:
    """Start a racer's game on the race's deal, its clock at the race's start signal (`now`); race
    games are never ranked."""
    game, _ = _game_start_on(player=player, deal=deal, mode=Game.Mode.RACE, race_code=race_code, now=now, address=None)
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
    game = store.lock_game(game_id)
    if game is None:
        raise GameNotFound(gettext("there is no game %(game)s") % {"game": game_id})
    if game.player_id != player.pk:
        raise NotYourGame(gettext("game %(game)s belongs to another player") % {"game": game_id})
    return game


def _lock_own_playing_game(*, game_id: int, player: Player, now: datetime.datetime) -> Game:
    game = _lock_own_game(game_id=game_id, player=player)
    if game.status != Game.Status.PLAYING:
        raise GameFinished(gettext("game %(game)s is finished and cannot change") % {"game": game_id})
    if now < game.started_at:
        raise GameNotStarted(
            gettext("game %(game)s has not started yet: its clock starts at %(time)s UTC")
            % {"game": game_id, "time": f"{game.started_at:%H:%M:%S}"}
        )
    return game


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
    with transaction.atomic():
        game = Game.objects.select_for_update(of=("self",)).select_related("deal").filter(pk=game_id).first()
        return game is not None and _closed_if_day_over(game, now=now)


def _replay(game: Game, moves: Sequence[object]) -> engine.Position:
    try:
        return engine.replay(game.deal.cards, moves)  # type: ignore[arg-type]
    except engine.IllegalMove as error:
        raise _illegal_move(error) from error


def _illegal_move(error: engine.IllegalMove) -> IllegalMoveError:
    """The engine's refusal in the request's language (the engine's own words are English), its
    counts in the language's digits."""
    details = {name: local_number(value) if type(value) is int else value for name, value in error.details.items()}
    words = {"move": describe(error.move), "reason": gettext(error.template) % details}
    if error.index is None:
        return IllegalMoveError(gettext("move %(move)s: %(reason)s") % words)
    number = local_number(error.index + 1)
    return IllegalMoveError(
        gettext("move %(number)s %(move)s: %(reason)s") % {**words, "number": number}, index=error.index
    )


def _record_finish(
    game: Game,
    *,
    piles: int,
    now: datetime.datetime,
    move: Sequence[int] | None = None,
    line: Sequence[Sequence[int]] | None = None,
) -> None:
    """Store the result. A ranked one is assessed on its timing and history now (held for review when
    that is enough), and with the solver's verdicts once this commits (game_assess). `move` is the
    finishing move, `line` the line a finish brought in place of the stored one."""
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
        transaction.on_commit(partial(assessment.in_background, partial(_assess_now, game.pk), game.pk))
    logger.info(
        "game %s finished: piles=%s seconds=%s score=%s risk=%s", game.pk, piles, seconds, game.score, game.risk
    )


# Moves, undos and finishes close a ranked attempt whose day is over instead of changing it: the close
# commits, then the change is refused (AttemptDayOver), so each runs in a block of its own.


def game_move(
    *, game_id: int, player: Player, move: Sequence[int], now: datetime.datetime, known: Game | None = None
) -> Game:
    """Store one move on the player's line; a move that leaves one pile finishes (wins) the game.

    `known` is the game as the caller last had it, deal included (the player's socket keeps it between
    moves). A move that does not finish the game is then checked against it and stored without a lock
    or a read, on condition that the game is still that version (`_move_on_known`); when it is not,
    the move takes the locking path, which reads the stored game and is the one that refuses."""
    if known is not None and known.pk == game_id:
        stored = _move_on_known(known, player=player, move=move, now=now)
        if stored is not None:
            return stored
    with transaction.atomic():
        game = _lock_own_playing_game(game_id=game_id, player=player, now=now)
        if not _closed_if_day_over(game, now=now):
            line = [*game.moves, move]
            position = _replay(game, line)
            game.moves = [list(step) for step in line]
            game.piles = position.piles
            if position.won:
                _record_finish(game, piles=position.piles, now=now, move=move)
            kind = GameEvent.Kind.FINISH if position.won else GameEvent.Kind.MOVE
            events.append(game, kind=kind, move=move, at=now, changed=_FINISH_FIELDS if position.won else _MOVE_FIELDS)
            return game
    raise _day_over(game)


def _move_on_known(known: Game, *, player: Player, move: Sequence[int], now: datetime.datetime) -> Game | None:
    """`move` stored on `known` in one conditional statement, or None where the locking path must
    decide (`_plain_move`), on another database than PostgreSQL, or when the game changed since it was
    known."""
    if not store.conditional_changes():
        return None
    change = _plain_move(known, player=player, move=move, now=now, before=None)
    if change is None:
        return None
    game = copy.copy(known)  # `known` stays as it was if the game changed meanwhile
    game.moves, game.piles = change.line, change.piles
    stored = events.append_move_if_unchanged(game, known_version=known.version, at=now, move=move, changed=_MOVE_FIELDS)
    return game if stored is not None else None


def _plain_move(
    known: Game, *, player: Player, move: Sequence[int], now: datetime.datetime, before: engine.Position | None
) -> _PlainChange | None:
    """`move` on `known`, with the line and position after it, when it is a plain move that may be
    stored on condition that the game is still as known; None where the locking path must decide: a game not in
    play as known, or a move that is illegal or wins on the known line (the stored game may be ahead; a
    finish has more to write). `before`, when given, is the position of the known line: the move is
    then checked with one step of the engine instead of a replay of the whole line."""
    if not _in_play_as_known(known, player=player, now=now):
        return None
    line = [*known.moves, list(move)]
    try:
        position = engine.apply_move(before, move) if before is not None else engine.replay(known.deal.cards, line)
    except engine.IllegalMove:
        return None
    if position.won:
        return None
    return _PlainChange(line=line, piles=position.piles, move=move, position=position)


def _in_play_as_known(known: Game, *, player: Player, now: datetime.datetime) -> bool:
    """Whether `known` may take a plain change on condition that the game is still so: the player's,
    started, in play, and not a ranked attempt whose day is over (those are closed by the locking path)."""
    return (
        known.player_id == player.pk
        and known.status == Game.Status.PLAYING
        and now >= known.started_at
        and not selectors.attempt_day_over(game=known, today=now.date())
    )


def _plain_undo(known: Game, *, player: Player, now: datetime.datetime) -> _PlainChange | None:
    """The undo of the last move of `known`, when it may be stored on condition that the game is still
    as known; None where the locking path must decide (nothing to undo included: it says so)."""
    if not known.moves or not _in_play_as_known(known, player=player, now=now):
        return None
    return _PlainChange(line=known.moves[:-1], piles=known.piles + 1, move=known.moves[-1], position=None)


@dataclass(slots=True)
class SocketGame:
    """What a player's socket keeps between its messages (games/consumers.py): the game as the socket's
    last change left it, deal included, and the position its line reaches once that is known, so that
    the next plain move is checked with one step of the engine instead of a replay of the whole line."""

    game: Game
    position: engine.Position | None = None


class _PlainChange(NamedTuple):
    """A plain move or undo checked on a known game: the new line and pile count, the move played or
    taken back, and the new position where it is known (after a move; an undo leaves it to a replay)."""

    line: list[list[int]]
    piles: int
    move: Sequence[int]
    position: engine.Position | None


async def _stored_from_loop(
    known: SocketGame | None, *, game_id: int, kind: str, change: _PlainChange | None, now: datetime.datetime
) -> bool | None:
    """Store a plain `change` on the socket's `known` game from the event loop
    (realtime/loop_db.py), and bring `known` up to date. True when stored; False when the game
    changed meanwhile; None when this path does not apply (no known game, another database than
    PostgreSQL, no plain change) or all of the loop's connections are busy."""
    if known is None or known.game.pk != game_id or change is None or not store.conditional_changes_from_loop():
        return None
    try:
        stored = await events.append_change_from_loop(
            known.game, kind=kind, line=change.line, piles=change.piles, move=change.move, at=now
        )
    except LoopConnectionsBusy:
        return None  # the change goes to the threads
    if stored is None:
        return False
    known.game.moves, known.game.piles, known.game.version = change.line, change.piles, stored.v
    known.position = change.position
    return True


async def game_move_from_socket(
    *, game_id: int, player: Player, move: Sequence[int], now: datetime.datetime, known: SocketGame | None
) -> SocketGame:
    """`game_move` for the player's socket, which keeps the game as its last change left it (`known`).

    A plain move on the known game is checked here and stored from the event loop, in the same one
    conditional statement, on a connection of the loop's own (realtime/loop_db.py): no database
    thread, no hop. It is one statement that is its own transaction, which is why this write needs no
    `transaction.atomic`; `known` itself is brought up to date and returned. Everything else — another
    database than PostgreSQL, a move the locking path must decide, a game changed meanwhile, or all of
    the loop's connections busy — goes to `game_move` on the database threads."""
    change = None
    if known is not None:
        change = _plain_move(known.game, player=player, move=move, now=now, before=known.position)
    stored = await _stored_from_loop(known, game_id=game_id, kind=GameEvent.Kind.MOVE, change=change, now=now)
    if stored:
        assert known is not None
        return known
    # The socket's known game helps the threads' conditional statement, unless the game changed meanwhile.
    usable = known.game if known is not None and stored is None else None
    return SocketGame(await db_call(game_move)(game_id=game_id, player=player, move=move, now=now, known=usable))


async def game_undo_from_socket(
    *, game_id: int, player: Player, now: datetime.datetime, known: SocketGame | None
) -> SocketGame:
    """`game_undo` for the player's socket: an undo of the known game's last move is stored from the
    event loop as `game_move_from_socket` stores a plain move; anything else takes the locking path on
    the database threads, which gives the authoritative answer."""
    change = _plain_undo(known.game, player=player, now=now) if known is not None else None
    if await _stored_from_loop(known, game_id=game_id, kind=GameEvent.Kind.UNDO, change=change, now=now):
        assert known is not None
        return known
    return SocketGame(await db_call(game_undo)(game_id=game_id, player=player, now=now))


def game_undo(*, game_id: int, player: Player, now: datetime.datetime) -> Game:
    """Take the last move back."""
    with transaction.atomic():
        game = _lock_own_playing_game(game_id=game_id, player=player, now=now)
        if not _closed_if_day_over(game, now=now):
            if not game.moves:
                raise NothingToUndo(gettext("there is no move to undo"))
            undone = game.moves[-1]
            game.moves = game.moves[:-1]
            game.piles += 1
            events.append(game, kind=GameEvent.Kind.UNDO, move=undone, at=now, changed=_MOVE_FIELDS)
            return game
    raise _day_over(game)


def game_finish(*, game_id: int, player: Player, moves: Sequence[object], now: datetime.datetime) -> Game:
    """Replay `moves` from the deal and store the verified result; the client's own score, time or
    pile count is never read. Finishing again with the stored line (a retry) answers with the stored
    result; with any other line it is refused: a result, once stored, stands."""
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
        # A practice game of a day not over would hand its winning line to a fresh ranked attempt.
        raise LinesWithheld(gettext("no hints on a practice game of a daily deal before its day is over (UTC)"))
    if game.mode == Game.Mode.RACE:
        raise GameError(gettext("no hints in a race: everyone plays on their own"))
    if game.ranked and not accept_unranked:
        raise NeedsUnrankedConsent(gettext("a hint makes this game unranked for good: confirm with accept_unranked"))
    time_limit = settings.SOLVER_TIME_LIMIT
    # The search runs outside any transaction: the game row is not locked while the solver works.
    advice = solver_run(solver.hint, game.deal.cards, game.moves, time_limit, time_limit=time_limit)
    if advice.status in ("unknown", "won"):
        return game, advice
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
