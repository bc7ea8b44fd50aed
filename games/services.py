"""Every write to deals and games. Views and consumers call these; the rules come from games.engine."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Sequence

from django.conf import settings
from django.db import transaction

from accounts.models import Player

from . import engine, events, store
from .engine import solver
from .errors import (
    GameChanged,
    GameError,
    GameFinished,
    GameNotFound,
    IllegalMoveError,
    NeedsUnrankedConsent,
    NothingToUndo,
    NotYourGame,
)
from .models import Deal, Game, GameEvent
from .selectors import game_get_for_player
from .solver_pool import solver_run

logger = logging.getLogger(__name__)

# The game columns each kind of change writes (besides the version, which every event bumps).
_MOVE_FIELDS = ["moves", "piles"]
_FINISH_FIELDS = ["moves", "piles", "status", "finished_at", "seconds", "score"]


def deal_for_date(*, date: datetime.date) -> Deal:
    """The stored daily deal of a UTC date, derived and stored on first use."""
    deal = Deal.objects.filter(daily_date=date).first()
    if deal is None:
        # Deriving the deal runs the solver; do it once, outside the row's unique-insert race.
        daily = engine.certified_daily_deal(date)
        deal, _ = Deal.objects.get_or_create(
            daily_date=date,
            defaults={"cards": list(daily.cards), "solution": [list(move) for move in daily.solution]},
        )
    return deal


def deal_for_code(*, code: str) -> Deal:
    """The stored deal a code names; raise GameError for text that is not a deal code."""
    try:
        display_code = engine.format_deal_code(code)
    except ValueError as error:
        raise GameError(str(error)) from error
    deal, _ = Deal.objects.get_or_create(code=display_code, defaults={"cards": engine.deal_from_code(display_code)})
    return deal


def game_start(*, player: Player, mode: str, code: str | None = None, now: datetime.datetime) -> tuple[Game, bool]:
    """Hand a deal out and start its clock. Return (game, created).

    Daily: resume the player's unfinished game on today's deal with its original clock; otherwise the
    first daily game of the date is ranked and later ones are practice.
    """
    # The deal is found (for a day not certified ahead of time: derived and certified by the solver)
    # before any row is locked, so a slow certification never holds up anyone's game.
    if mode == Game.Mode.DAILY:
        deal = deal_for_date(date=now.date())
    elif mode == Game.Mode.NEW:
        deal = deal_for_code(code=engine.new_deal_code())
    elif mode == Game.Mode.CODE:
        if not code:
            raise GameError("a deal code is needed to play a code, such as 'K7QD-M2XP'")
        deal = deal_for_code(code=code)
    else:
        raise GameError(f"unknown mode {mode!r}: use daily, new or code")
    return _game_start_on(player=player, deal=deal, mode=mode, race_code="", now=now)


def game_start_race(*, player: Player, deal: Deal, race_code: str, now: datetime.datetime) -> Game:
    """Start a racer's game on the race's deal, its clock at the race's start signal (`now`); race
    games are never ranked."""
    game, _ = _game_start_on(player=player, deal=deal, mode=Game.Mode.RACE, race_code=race_code, now=now)
    return game


@transaction.atomic
def _game_start_on(
    *, player: Player, deal: Deal, mode: str, race_code: str, now: datetime.datetime
) -> tuple[Game, bool]:
    ranked = False
    if mode == Game.Mode.DAILY:
        # Serialise a player's daily starts so that two tabs cannot both take the ranked attempt.
        Player.objects.select_for_update().filter(pk=player.pk).first()
        games = Game.objects.filter(player=player, deal=deal)
        unfinished = games.filter(status=Game.Status.PLAYING).order_by("-started_at").first()
        if unfinished is not None:
            return unfinished, False
        # Only the first game of the date is ranked, even if a hint later unranked it.
        ranked = not games.exists()
    game = Game.objects.create(player=player, deal=deal, mode=mode, ranked=ranked, race_code=race_code, started_at=now)
    events.append(game, kind=GameEvent.Kind.START, at=now, changed=[])
    logger.info("game %s started: player=%s mode=%s ranked=%s", game.pk, player.pk, mode, ranked)
    return game, True


def _lock_own_game(*, game_id: int, player: Player) -> Game:
    # of=("self",): lock the game row only. Locking the joined deal too would make every player of
    # the day's deal wait for each other's moves.
    game = store.lock_game(game_id)
    if game is None:
        raise GameNotFound(f"there is no game {game_id}")
    if game.player_id != player.pk:
        raise NotYourGame(f"game {game_id} belongs to another player")
    return game


def _lock_own_playing_game(*, game_id: int, player: Player) -> Game:
    game = _lock_own_game(game_id=game_id, player=player)
    if game.status != Game.Status.PLAYING:
        raise GameFinished(f"game {game_id} is finished and cannot change")
    return game


def _replay(game: Game, moves: Sequence[object]) -> engine.Position:
    try:
        return engine.replay(game.deal.cards, moves)  # type: ignore[arg-type]
    except engine.IllegalMove as error:
        raise IllegalMoveError(str(error), index=error.index) from error


def _record_finish(game: Game, *, piles: int, now: datetime.datetime) -> None:
    seconds = max(0, int((now - game.started_at).total_seconds()))
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.piles = piles
    game.seconds = seconds
    game.score = engine.score(piles, seconds)
    logger.info("game %s finished: piles=%s seconds=%s score=%s", game.pk, piles, seconds, game.score)


@transaction.atomic
def game_move(*, game_id: int, player: Player, move: Sequence[int], now: datetime.datetime) -> Game:
    """Store one move on the player's line; a move that leaves one pile finishes (wins) the game."""
    game = _lock_own_playing_game(game_id=game_id, player=player)
    line = [*game.moves, move]
    position = _replay(game, line)
    game.moves = [list(step) for step in line]
    game.piles = position.piles
    if position.won:
        _record_finish(game, piles=position.piles, now=now)
    kind = GameEvent.Kind.FINISH if position.won else GameEvent.Kind.MOVE
    events.append(game, kind=kind, move=move, at=now, changed=_FINISH_FIELDS if position.won else _MOVE_FIELDS)
    return game


@transaction.atomic
def game_undo(*, game_id: int, player: Player, now: datetime.datetime) -> Game:
    """Take the last move back."""
    game = _lock_own_playing_game(game_id=game_id, player=player)
    if not game.moves:
        raise NothingToUndo("there is no move to undo")
    undone = game.moves[-1]
    game.moves = game.moves[:-1]
    game.piles += 1
    events.append(game, kind=GameEvent.Kind.UNDO, move=undone, at=now, changed=_MOVE_FIELDS)
    return game


@transaction.atomic
def game_finish(*, game_id: int, player: Player, moves: Sequence[object], now: datetime.datetime) -> Game:
    """Replay `moves` from the deal and store the verified result; the client's own score, time or
    pile count is never read. A game already finished answers with its stored result unchanged."""
    game = _lock_own_game(game_id=game_id, player=player)
    if game.status == Game.Status.FINISHED:
        return game
    position = _replay(game, moves)
    line = [list(step) for step in moves]  # type: ignore[call-overload]
    # The finish carries the line only when it is not the stored one (moves played while offline),
    # so that replaying the events always gives the stored game.
    replaced_line = line if line != game.moves else None
    game.moves = line
    _record_finish(game, piles=position.piles, now=now)
    events.append(game, kind=GameEvent.Kind.FINISH, line=replaced_line, at=now, changed=_FINISH_FIELDS)
    return game


def game_hint(
    *, game_id: int, player: Player, accept_unranked: bool, now: datetime.datetime
) -> tuple[Game, solver.HintResult]:
    """Ask the solver for one move that keeps the game winnable, or how many moves to undo to get back
    to a winnable position. A hint makes the game unranked for good, so a ranked game needs the
    player's explicit `accept_unranked`. An undecided ("unknown") answer costs nothing."""
    game = game_get_for_player(game_id=game_id, player=player)
    if game.status != Game.Status.PLAYING:
        raise GameFinished(f"game {game_id} is finished: no hints")
    if game.ranked and not accept_unranked:
        raise NeedsUnrankedConsent("a hint makes this game unranked for good: confirm with accept_unranked")
    time_limit = settings.SOLVER_TIME_LIMIT
    # The search runs outside any transaction: the game row is not locked while the solver works.
    advice = solver_run(solver.hint, game.deal.cards, game.moves, time_limit, time_limit=time_limit)
    if advice.status in ("unknown", "won"):
        return game, advice
    with transaction.atomic():
        locked = _lock_own_playing_game(game_id=game_id, player=player)
        if locked.version != game.version:
            raise GameChanged("the game changed while the hint was worked out: ask again")
        locked.ranked = False
        locked.hints += 1
        events.append(locked, kind=GameEvent.Kind.HINT, at=now, changed=["ranked", "hints"])
    logger.info("game %s: hint %s given (%s)", game_id, locked.hints, advice.status)
    return locked, advice
