"""The fair-play assessment of finished ranked games, between the stored games and the pure rules of
games.engine.risk: the events and the player's history as the assessment reads them, and the work
done after the finish's commit.

A ranked game is assessed twice. At the finish, in its transaction, on timing and history alone (no
solver: it costs nothing), so an obvious script never reaches the board. Then, after the commit, in a
background thread that hands the solver's part to the solver pool: the verdict on every position the
game visited is weighed too (services.game_assess). `manage.py assess_games` assesses any game the
background missed (a process that died, a busy pool), so no result is left unassessed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import connections
from django.db.models import Count, Q

from accordion_site.errors import log_background_failure

from .engine import risk
from .history import game_events, rows_hold_all
from .models import Game, GameEvent

logger = logging.getLogger(__name__)

_background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fair-play")


def limits() -> risk.Limits:
    return risk.Limits(
        min_win_seconds=settings.FAIR_PLAY_MIN_WIN_SECONDS,
        min_median_move_ms=settings.FAIR_PLAY_MIN_MEDIAN_MOVE_MS,
        min_timed_moves=settings.FAIR_PLAY_MIN_TIMED_MOVES,
        max_unseen_moves=settings.FAIR_PLAY_MAX_UNSEEN_MOVES,
    )


def held(assessment: risk.Assessment) -> bool:
    """Whether a result with this assessment waits for staff before it goes on the board."""
    return assessment.risk >= settings.FAIR_PLAY_REVIEW_RISK


_TIMED_KINDS = (GameEvent.Kind.MOVE, GameEvent.Kind.UNDO, GameEvent.Kind.FINISH)


def timed_events(game: Game) -> list[risk.TimedEvent]:
    """The game's stored moves, undos and finish, timed from its start. Read as plain values while the
    rows hold them all (every ranked finish reads them: no model instance per move), else through the
    history, which adds what a compacted game keeps in its record."""
    rows = GameEvent.objects.filter(game=game).order_by("v").values_list("v", "kind", "move", "line", "at")
    stored = list(rows)
    if not rows_hold_all(game, since=0, first=stored[0][0] if stored else game.version + 1):
        stored = [(event.v, event.kind, event.move, event.line, event.at) for event in game_events(game)]
    return [
        risk.TimedEvent(
            kind=kind,
            seconds=(at - game.started_at).total_seconds(),
            move=(move[0], move[1]) if move else None,
            line=tuple((step[0], step[1]) for step in line) if line is not None else None,
        )
        for _, kind, move, line, at in stored
        if kind in _TIMED_KINDS
    ]


def history(game: Game) -> risk.History:
    """The player's past before this game: earlier finished games, account age, reviews."""
    assert game.finished_at is not None
    # One query: every ranked finish asks.
    counts = (
        Game.objects.filter(player_id=game.player_id, status=Game.Status.FINISHED, finished_at__lte=game.finished_at)
        .exclude(pk=game.pk)
        .aggregate(
            earlier=Count("pk"),
            confirmed=Count("pk", filter=Q(review=Game.Review.CONFIRMED)),
            cleared=Count("pk", filter=Q(review=Game.Review.CLEARED)),
        )
    )
    return risk.History(
        first_game=counts["earlier"] == 0,
        account_days=(game.finished_at - game.player.created_at).total_seconds() / 86400,
        confirmed=counts["confirmed"],
        cleared=counts["cleared"],
    )


def same_line(game: Game) -> int:
    """Other ranked wins on the deal with exactly this line: a person's winning line is their own."""
    if not game.won:
        return 0
    return (
        Game.objects.filter(deal_id=game.deal_id, ranked=True, status=Game.Status.FINISHED, piles=1, moves=game.moves)
        .exclude(pk=game.pk)
        .count()
    )


def weigh(game: Game, events: list[risk.TimedEvent], verdicts: list[risk.Verdict] | None) -> risk.Assessment:
    """The assessment of a finished game from its events and (when known) the solver's verdicts; the
    day's other results are compared with it then too (at the finish, the timing alone decides)."""
    return risk.assess(
        events=events,
        verdicts=verdicts,
        won=game.won,
        seconds=game.seconds or 0,
        history=history(game),
        same_line=same_line(game) if verdicts is not None else 0,
        limits=limits(),
    )


def at_finish(game: Game, finishing: risk.TimedEvent) -> risk.Assessment:
    """The assessment at the finish, on timing and history alone; `finishing` is the finish's own event,
    not stored yet."""
    return weigh(game, [*timed_events(game), finishing], None)


def in_background(job: Callable[[], object], game_id: int) -> None:
    """Run `job` (the full assessment of a game) on the background thread, after the commit."""
    if settings.FAIR_PLAY_ASSESS_IN_BACKGROUND:
        _background.submit(_run, job, game_id)


def _run(job: Callable[[], object], game_id: int) -> None:
    try:
        job()
    except Exception:
        log_background_failure(logger, "game %s: not assessed now (manage.py assess_games will)", game_id)
    finally:
        connections.close_all()  # this thread's own connections
