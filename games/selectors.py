"""Reads about deals and games."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable, Mapping

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player

from . import engine, history, withheld
from .assessment import timed_events
from .engine import analysis
from .errors import GameError, GameFinished, GameNotFound, LinesWithheld, NotYourGame
from .models import Deal, Game, GameEvent
from .solver_pool import solver_run

# Review states of a ranked result that keep it on the public board: never flagged, or cleared by staff.
BOARD_REVIEWS = ("", Game.Review.CLEARED)


def game_get(*, game_id: int) -> Game:
    """The game with its deal and player, or GameNotFound."""
    game = Game.objects.select_related("deal", "player").filter(pk=game_id).first()
    if game is None:
        raise GameNotFound(_("there is no game %(game)s") % {"game": game_id})
    return game


def game_get_for_player(*, game_id: int, player: Player | None) -> Game:
    """The game, if `player` owns it; GameNotFound or NotYourGame otherwise."""
    game = game_get(game_id=game_id)
    if player is None or game.player_id != player.pk:
        raise NotYourGame(_("game %(game)s belongs to another player") % {"game": game_id})
    return game


def game_visible_to(*, game: Game, player: Player | None, today: datetime.date) -> bool:
    """Its player may read a game at any time; anyone else a finished one (a replay), unless it is on a
    daily deal whose day is not over (UTC): the rule of games/withheld.py."""
    if withheld.line_withheld(game=game, viewer=player, today=today):
        return False
    return game.status == Game.Status.FINISHED or (player is not None and game.player_id == player.pk)


def game_winnable(*, game_id: int, player: Player, today: datetime.date) -> tuple[Game, str]:
    """("win" | "lost" | "unknown") for the player's unranked game in progress. Ranked games have no
    such indicator: it would be a hint."""
    game = game_get_for_player(game_id=game_id, player=player)
    if game.ranked:
        raise GameError(_("the still-winnable indicator is for unranked games only"))
    if game.mode == Game.Mode.RACE:
        raise GameError(_("no still-winnable indicator in a race: everyone plays on their own"))
    if game.status != Game.Status.PLAYING:
        raise GameFinished(_("game %(game)s is finished: see its analysis instead") % {"game": game_id})
    if winning_lines_withheld(game=game, today=today):
        raise LinesWithheld(_("no still-winnable indicator on a daily deal before its day is over (UTC)"))
    time_limit = settings.SOLVER_TIME_LIMIT
    status = solver_run(analysis.position_status, game.deal.cards, game.moves, time_limit, time_limit=time_limit)
    return game, status


def winning_lines_withheld(*, game: Game, today: datetime.date) -> bool:
    """A daily deal's winning lines reach no client before its date is over (UTC), an arena's deal's none
    before its arena ends: no hint, analysis or still-winnable indicator, not even for the game's own player."""
    return withheld.day_secret(game.deal.daily_date, today=today) or withheld.arena_secret(
        game.deal.lines_secret_until, now=timezone.now()
    )


def hints_open(*, game: Game, today: datetime.date) -> bool:
    """Whether hints and the still-winnable indicator may be asked for `game`: never in a race or an arena, and not
    on a practice game of a daily deal whose day is not over (its winning lines would reach a fresh
    ranked attempt). A ranked game may take a hint, which makes it unranked."""
    return game.mode not in (Game.Mode.RACE, Game.Mode.ARENA) and (
        game.ranked or not winning_lines_withheld(game=game, today=today)
    )


def game_analysis(*, game_id: int, player: Player | None, today: datetime.date) -> tuple[Game, analysis.LineAnalysis]:
    """The after-game analysis of a finished game the reader may see. For a daily deal whose date is not
    over, all of it is withheld (None): not only the winning lines, but whether the deal can be won and
    where a line lost it, since practice games could otherwise probe the day's winning line a move at a
    time."""
    game = game_get(game_id=game_id)
    if not game_visible_to(game=game, player=player, today=today):
        raise GameNotFound(_("there is no game %(game)s you can see") % {"game": game_id})
    if game.status != Game.Status.FINISHED:
        raise GameError(_("game %(game)s is still being played: the analysis comes after the game") % {"game": game_id})
    if winning_lines_withheld(game=game, today=today):
        return game, analysis.LineAnalysis(
            deal_status="unknown", deal_line=None, first_losing_move=None, line_from_there=None
        )
    time_limit = settings.SOLVER_TIME_LIMIT
    found = solver_run(
        analysis.analyse_line, game.deal.cards, game.moves, time_limit, game.deal.solution, time_limit=3 * time_limit
    )
    return game, found


def deal_codes_stored(*, codes: list[str]) -> list[str]:
    """Those of `codes` (the names deals are stored under, "K7QD-M2XP") that name a deal someone has played
    or been dealt, in the order given."""
    stored = set(Deal.objects.filter(code__in=codes).values_list("code", flat=True))
    return [code for code in codes if code in stored]


def daily_deal_exists(*, date: datetime.date) -> bool:
    """Whether the daily deal of `date` is already derived, certified and stored."""
    return Deal.objects.filter(daily_date=date).exists()


def daily_state(*, player: Player | None, today: datetime.date) -> str:
    """Where the player stands with `today`'s daily deal: "new" (their next start is the day's attempt),
    "playing" (a daily game of the date in play, which a start resumes) or "finished" (their attempt is
    over; a start now is practice)."""
    if player is None:
        return "new"
    games = Game.objects.filter(player=player, deal__daily_date=today, mode=Game.Mode.DAILY)
    statuses = set(games.values_list("status", flat=True))
    if Game.Status.PLAYING in statuses:
        return "playing"
    return "finished" if statuses else "new"


def daily_board_games(*, deal_id: int) -> QuerySet[Game]:
    """The games on a daily deal's public board: ranked, finished (so verified by the server's replay),
    and not held for review."""
    return Game.objects.filter(deal_id=deal_id, ranked=True, status=Game.Status.FINISHED, review__in=BOARD_REVIEWS)


def game_on_daily_board(*, game: Game) -> bool:
    """Whether `game` belongs on its day's public board (the same rule as daily_board_games)."""
    return (
        game.ranked
        and game.status == Game.Status.FINISHED
        and game.deal.daily_date is not None
        and game.review in BOARD_REVIEWS
    )


def result_provisional(*, game: Game, rank: int | None, now: datetime.datetime) -> bool:
    """Whether a result's place on its day's board may still change: not assessed with the solver yet, or
    among the day's first FAIR_PLAY_PROVISIONAL_PLACES places, not reviewed, and finished less than
    FAIR_PLAY_FINAL_AFTER_HOURS ago. A result staff cleared is final."""
    if game.review == Game.Review.CLEARED:
        return False
    if game.assessed_at is None:
        return True
    waiting = datetime.timedelta(hours=settings.FAIR_PLAY_FINAL_AFTER_HOURS)
    return (
        rank is not None
        and rank <= settings.FAIR_PLAY_PROVISIONAL_PLACES
        and game.finished_at is not None
        and now < game.finished_at + waiting
    )


@dataclasses.dataclass(frozen=True, slots=True)
class DailyStanding:
    rank: int | None  # None while the result is held for review
    of: int  # players on the day's board


def game_daily_standing(*, game: Game) -> DailyStanding | None:
    """A finished ranked daily attempt's place on its day's board and the board's size; None for any
    other game. Equal score and seconds share a rank (1, 2, 2, 4): the rank is 1 + the games with a
    higher score + those with the same score in fewer seconds, each an index-only range of
    game_daily_board_idx. (games never reads leaderboards' own tables: docs/architecture.md.)"""
    if not game.ranked or game.status != Game.Status.FINISHED or game.deal.daily_date is None:
        return None
    board = daily_board_games(deal_id=game.deal_id)
    of = board.count()
    if game.review not in BOARD_REVIEWS:
        return DailyStanding(rank=None, of=of)
    higher = board.filter(score__gt=game.score).count()
    quicker = board.filter(score=game.score, seconds__lt=game.seconds).count()
    return DailyStanding(rank=1 + higher + quicker, of=of)


def day_end(date: datetime.date) -> datetime.datetime:
    """The moment a UTC date is over: the next midnight, UTC."""
    return datetime.datetime.combine(date + datetime.timedelta(days=1), datetime.time.min, tzinfo=datetime.UTC)


def attempt_day_over(*, game: Game, today: datetime.date) -> bool:
    """A ranked attempt still in play whose day is over: it must be closed, since the day's winning
    lines are published from now on."""
    return (
        game.ranked
        and game.status == Game.Status.PLAYING
        and game.deal.daily_date is not None
        and game.deal.daily_date < today
    )


def attempts_to_close(*, today: datetime.date) -> list[int]:
    """The ids of ranked attempts still in play on days before `today` (game_ranked_playing_idx)."""
    return list(
        Game.objects.filter(ranked=True, status=Game.Status.PLAYING, deal__daily_date__lt=today).values_list(
            "pk", flat=True
        )
    )


def game_events_after(*, game: Game, after: int, limit: int) -> list[GameEvent]:
    """Up to `limit` stored events of `game` after version `after`, in order (a replay reads them all)."""
    return history.game_events(game, since=after)[:limit]


@dataclasses.dataclass(frozen=True, slots=True)
class DailySeed:
    """What is published about a date's seed: its commitment beforehand, the seed itself once the day
    is over. A date with nothing to publish has both None."""

    date: datetime.date
    commitment: str | None
    seed: str | None
    attempt: int | None


def daily_seed_published(*, date: datetime.date, today: datetime.date) -> DailySeed:
    """The published facts about a date's daily seed. A stored deal's own seed is the truth (it was
    derived with the secret of its day); a past day nobody played is derived now, since publishing it
    costs nothing; a coming day that is not certified yet has no commitment (the secret may change)."""
    deal = Deal.objects.filter(daily_date=date).only("seed", "attempt").first()
    if deal is not None and deal.seed:
        seed, attempt = deal.seed, deal.attempt
    elif deal is None and date <= today:
        # Its attempt would take the solver to find: a reader who reproduces the deal finds it anyway.
        seed, attempt = engine.daily_seed(date, secret=settings.DAILY_SECRET), None
    else:
        # Stored before seeds were secret, or a coming day not certified yet.
        return DailySeed(date=date, commitment=None, seed=None, attempt=None)
    over = date < today
    return DailySeed(
        date=date,
        commitment=engine.seed_commitment(seed),
        seed=seed if over else None,
        attempt=attempt if over else None,
    )


def results_to_assess() -> list[int]:
    """The ids of finished ranked results not assessed with the solver yet, oldest first
    (game_unassessed_idx)."""
    unassessed = Game.objects.filter(ranked=True, status=Game.Status.FINISHED, assessed_at__isnull=True)
    return list(unassessed.order_by("finished_at").values_list("pk", flat=True))


@dataclasses.dataclass(frozen=True, slots=True)
class HeldResult:
    """A ranked result waiting for a staff review: the board it would join, the place it would take
    there, and its priority (risk ÷ that place: a likely script near the top is looked at first)."""

    game: Game
    board: str
    rank: int
    priority: float


# Where a held result would stand if it counted: its board's name and its place there.
Placing = Callable[[Game], tuple[str, int]]


def review_queue(*, placings: Mapping[str, Placing] | None = None) -> list[HeldResult]:
    """The results held for review, the most pressing first (game_review_pending_idx). A game whose mode
    has a placing in `placings` (an arena game's, from the arenas app) is placed by it, any other on its
    day's board."""
    placings = placings or {}
    held = []
    for game in Game.objects.filter(review=Game.Review.PENDING).select_related("player", "deal"):
        board, rank = placings.get(game.mode, _place_on_its_day)(game)
        held.append(HeldResult(game=game, board=board, rank=rank, priority=(game.risk or 0) / rank))
    held.sort(key=lambda found: (-found.priority, found.game.finished_at, found.game.pk))
    return held


def _place_on_its_day(game: Game) -> tuple[str, int]:
    board = daily_board_games(deal_id=game.deal_id)
    rank = 1 + board.filter(score__gt=game.score).count()
    rank += board.filter(score=game.score, seconds__lt=game.seconds).count()
    day = game.deal.daily_date
    return (day.isoformat() if day is not None else game.deal.code or f"deal {game.deal_id}"), rank


@dataclasses.dataclass(frozen=True, slots=True)
class TimelineRow:
    """One move, undo or finish of a game under review: when, the gap since the event before, what it
    did, the pile count after it, and the solver's verdict on it (games.engine.risk.Verdict) once known."""

    number: int
    kind: str
    seconds: float
    gap: float
    what: str
    piles: int
    verdict: dict[str, object] | None


def review_timeline(*, game: Game) -> list[TimelineRow]:
    """A finished game's line on a timeline, for the staff who review it."""
    rows = []
    line: list[engine.Move] = []
    positions = [engine.Position.from_deal(game.deal.cards)]
    previous = 0.0
    for number, event in enumerate(timed_events(game)):
        if event.kind == GameEvent.Kind.UNDO and line:
            what = f"undo {_card_move(positions[-2], line[-1])}"
            line.pop()
            positions.pop()
        elif event.move is not None:
            what = _card_move(positions[-1], event.move)
            line.append(event.move)
            positions.append(engine.apply_move(positions[-1], event.move))
        elif event.line is not None:
            what = f"finish bringing a line of {len(event.line)} moves"
            line = list(event.line)
            positions = [engine.replay(game.deal.cards, line)]
        else:
            what = "finish"
        verdict = game.verdicts[number] if number < len(game.verdicts) else None
        rows.append(
            TimelineRow(
                number=number + 1,
                kind=event.kind,
                seconds=event.seconds,
                gap=event.seconds - previous,
                what=what,
                piles=positions[-1].piles,
                verdict=verdict,
            )
        )
        previous = event.seconds
    return rows


def _card_move(position: engine.Position, move: engine.Move) -> str:
    source, target = move
    return f"{position.tops[source]} onto {position.tops[target]} ({source}→{target})"


def player_daily_done(*, player: Player, today: datetime.date) -> bool:
    """Whether the player has finished their attempt at today's daily deal (the first daily game of a
    date is the attempt, and a later one can only start once it is finished)."""
    return Game.objects.filter(player=player, deal__daily_date=today, status=Game.Status.FINISHED).exists()
