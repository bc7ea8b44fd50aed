"""Every write to arenas. Views, consumers and commands call these; the games are played through
games.services like any other game, and an arena game's finish is counted by arenas.receivers."""

from __future__ import annotations

import contextlib
import datetime
import logging
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from django.conf import settings
from django.db import IntegrityError, close_old_connections, transaction
from django.db.models import QuerySet
from django.utils.translation import gettext

from accordion_site.errors import log_background_failure
from accordion_site.languages import local_number
from accounts.models import Player
from games import engine, history
from games import services as game_services
from games.engine.deals import CODE_ALPHABET, seed_commitment
from games.engine.scoring import WIN_BONUS
from games.errors import SolverBusy
from games.models import Deal, Game, GameEvent
from games.solver_pool import solver_run
from realtime.bus import Message, publish

from . import deals
from .errors import ArenaError, ArenaFinished, ArenaNotStarted, GameInPlay, NotParticipant
from .models import MAX_MINUTES, MAX_STARTS_IN, MIN_MINUTES, Arena, ArenaDeal, ArenaGame, Participant
from .selectors import arena_get, normalize_arena_code

logger = logging.getLogger(__name__)

# Arena codes: the deal codes' unambiguous symbols.
ARENA_CODE_ALPHABET = CODE_ALPHABET
ARENA_CODE_LENGTH = 6
_CODE_ATTEMPTS = 10
# How long the solver pool may take to certify a deal (2,000,000 positions take a few seconds).
CERTIFY_SECONDS = 60.0
# Review states of a game that count in its arena: never held, or cleared by staff.
COUNTED_REVIEWS = ("", Game.Review.CLEARED)

# Deal k+1 is certified in the background as soon as someone reaches deal k, so that nobody waits for
# the solver between two games (one thread a process: the certifications of one arena follow each other).
_ahead = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-deals")
# Locks a deal's derivation takes in this process (by arena and k, shared by a few deals at most).
_DERIVING = tuple(threading.Lock() for _ in range(16))
# The deals this process has found stored, by arena (its id and seed) and k: a stored deal never
# changes and hundreds of participants ask for each one, so each process reads it once.
_known_deals: dict[tuple[int, str, int], Deal] = {}
_known_deals_lock = threading.Lock()
KNOWN_DEALS_MOST = 4096


def group(code: str) -> str:
    """The bus group of an arena's sockets."""
    return f"arena.{code}"


def _announce(code: str, kind: str, **data: object) -> None:
    """Tell the arena's sockets in every process, once the transaction commits, that `kind` happened."""
    transaction.on_commit(lambda: publish(Message(group=group(code), kind=kind, data=dict(data))))


def _whole(value: object, *, low: int, high: int, message: str) -> int:
    if type(value) is not int or not low <= value <= high:
        raise ArenaError(message, code="invalid")
    return value


def arena_create(
    *,
    created_by: Player | None,
    minutes: object,
    starts_in: object,
    now: datetime.datetime,
    kind: str = Arena.Kind.PLAYERS,
) -> Arena:
    """A new arena of `minutes` (1 to 120) starting `starts_in` seconds from now (0 to a week), with a
    fresh seed whose commitment is shown from now on."""
    length_words = {"low": local_number(MIN_MINUTES), "high": local_number(MAX_MINUTES)}
    length = _whole(
        minutes,
        low=MIN_MINUTES,
        high=MAX_MINUTES,
        message=gettext("an arena lasts from %(low)s to %(high)s minutes") % length_words,
    )
    delay = _whole(
        starts_in,
        low=0,
        high=MAX_STARTS_IN,
        message=gettext("an arena starts within a week: starts_in is 0 to %(high)s seconds")
        % {"high": local_number(MAX_STARTS_IN)},
    )
    starts_at = now + datetime.timedelta(seconds=delay)
    return _arena_create(created_by=created_by, kind=kind, minutes=length, starts_at=starts_at, now=now)


def _arena_create(
    *, created_by: Player | None, kind: str, minutes: int, starts_at: datetime.datetime, now: datetime.datetime
) -> Arena:
    seed = deals.new_seed()
    for _ in range(_CODE_ATTEMPTS):
        try:
            with transaction.atomic():  # a savepoint: a taken code leaves the transaction usable
                arena = Arena.objects.create(
                    code="".join(secrets.choice(ARENA_CODE_ALPHABET) for _ in range(ARENA_CODE_LENGTH)),
                    kind=kind,
                    minutes=minutes,
                    starts_at=starts_at,
                    ends_at=starts_at + datetime.timedelta(minutes=minutes),
                    seed=seed,
                    commitment=seed_commitment(seed),
                    created_by=created_by,
                    created_at=now,
                )
        except IntegrityError:
            if kind != Arena.Kind.PLAYERS and Arena.objects.filter(kind=kind, starts_at=starts_at).exists():
                raise
            continue
        logger.info("arena %s created: %s minutes from %s (%s)", arena.code, minutes, starts_at, kind)
        transaction.on_commit(partial(_certify_ahead, arena, 1))
        return arena
    raise RuntimeError("no free arena code found")


def _stored_deal(arena: Arena, k: int) -> Deal | None:
    known = _known_deals.get((arena.pk, arena.seed, k))
    if known is not None:
        return known
    stored = ArenaDeal.objects.select_related("deal").filter(arena=arena, k=k).first()
    if stored is None:
        return None
    with _known_deals_lock:
        if len(_known_deals) >= KNOWN_DEALS_MOST:
            del _known_deals[next(iter(_known_deals))]  # the oldest: dicts keep insertion order
        _known_deals[(arena.pk, arena.seed, k)] = stored.deal
    return stored.deal


def arena_deal(*, arena: Arena, k: int) -> Deal:
    """Deal `k` of the arena, derived and certified by the solver on first need (as the daily deal is),
    its winning lines withheld until the arena ends."""
    stored = _stored_deal(arena, k)
    if stored is not None:
        return stored
    # Hundreds of participants reach a deal within seconds of each other: one thread of the process
    # derives it while the others wait for it here, instead of each deriving it again.
    with _DERIVING[hash((arena.pk, k)) % len(_DERIVING)]:
        stored = _stored_deal(arena, k)
        return stored if stored is not None else _derive_deal(arena=arena, k=k)


def _derive_deal(*, arena: Arena, k: int) -> Deal:
    # The solver runs outside any transaction, in the solver pool so that a web process's
    # event loop does not wait on it; two derivations of one deal give the same deal.
    try:
        derived = solver_run(deals.certified_arena_deal, arena.seed, k, time_limit=CERTIFY_SECONDS)
    except SolverBusy:  # the pool is full or restarting: derive it here, as the daily deal's first start does
        derived = deals.certified_arena_deal(arena.seed, k)
    with transaction.atomic():
        deal, _ = Deal.objects.get_or_create(code=derived.code, defaults={"cards": list(derived.cards)})
        if deal.lines_secret_until is None or deal.lines_secret_until < arena.ends_at:
            deal.lines_secret_until = arena.ends_at
            deal.solution = [list(move) for move in derived.solution]
            deal.save(update_fields=["lines_secret_until", "solution"])
        ArenaDeal.objects.get_or_create(arena=arena, k=k, defaults={"deal": deal, "attempt": derived.attempt})
    return deal


def _certify_ahead(arena: Arena, k: int) -> None:
    if settings.ARENA_DEALS_AHEAD and (arena.pk, arena.seed, k) not in _known_deals:
        _ahead.submit(_certify_in_background, arena, k)


def _certify_in_background(arena: Arena, k: int) -> None:
    close_old_connections()
    try:
        arena_deal(arena=arena, k=k)
    except Exception:
        log_background_failure(logger, "deal %s of arena %s could not be certified ahead", k, arena.code)
    finally:
        close_old_connections()


def _arena(code: str) -> Arena:
    return arena_get(code=code)


def _refuse_if_over(arena: Arena, now: datetime.datetime) -> None:
    if arena.state(now) == Arena.State.FINISHED:
        raise ArenaFinished(gettext("arena %(code)s is over: see its results") % {"code": arena.code})


def arena_join(*, code: str, player: Player, now: datetime.datetime) -> Participant:
    """Take part (guests too) from the arena's creation until its end; joining again is harmless. While
    the arena runs, the participant's current game is there (deal 1 for a newcomer)."""
    arena = _arena(code)
    _refuse_if_over(arena, now)
    participant = Participant.objects.filter(arena=arena, player=player).first()
    if participant is None:
        try:
            with transaction.atomic():
                participant = Participant.objects.create(arena=arena, player=player, joined_at=now, reached_at=now)
            logger.info("arena %s: player %s joined", arena.code, player.pk)
            _announce(arena.code, "joined", player=player.pk)
        except IntegrityError:  # the same player joining from two tabs at once
            participant = Participant.objects.get(arena=arena, player=player)
    if participant.game_id is None and arena.state(now) == Arena.State.LIVE:
        with contextlib.suppress(GameInPlay):  # the arena socket handed deal 1 out meanwhile
            _next_game(arena=arena, participant=participant, now=now)
        participant.refresh_from_db()
    return participant


def arena_next(*, code: str, player: Player | int | None, now: datetime.datetime) -> Game:
    """The participant's next game, on the next deal, once the current one is finished: one game at a
    time, and a deal is handed out only when reached. `player`: the player or their id; None, a visitor
    who has not played."""
    participant = (
        Participant.objects.select_related("arena", "game", "player")
        .filter(arena__code=normalize_arena_code(code), player=player)
        .first()
        if player is not None
        else None
    )
    if participant is None:
        raise NotParticipant(gettext("join arena %(code)s to play in it") % {"code": _arena(code).code})
    arena = participant.arena
    state = arena.state(now)
    if state == Arena.State.UPCOMING:
        raise ArenaNotStarted(gettext("arena %(code)s has not started yet") % {"code": arena.code})
    _refuse_if_over(arena, now)
    return _next_game(arena=arena, participant=participant, now=now)


def _refuse_in_play(participant: Participant) -> None:
    if participant.game is not None and participant.game.status == Game.Status.PLAYING:
        raise GameInPlay(
            gettext("finish game %(game)s first: one game at a time") % {"game": participant.game_id},
            code=GameInPlay.code,
        )


def _next_game(*, arena: Arena, participant: Participant, now: datetime.datetime) -> Game:
    """Deal `participant.reached + 1`, `participant` as just read (its game with it)."""
    _refuse_in_play(participant)
    k = participant.reached + 1
    deal = arena_deal(arena=arena, k=k)  # the solver, if needed, before any lock
    with transaction.atomic():
        locked = Participant.objects.select_for_update().get(pk=participant.pk)
        if locked.reached != participant.reached:  # another tab took the next game meanwhile
            locked = Participant.objects.select_related("game").get(pk=participant.pk)
            _refuse_in_play(locked)
            raise GameInPlay(gettext("the next game was started elsewhere: reload"), code=GameInPlay.code)
        game = game_services.game_start_arena(player=participant.player, deal=deal, now=now)
        ArenaGame.objects.create(participant=locked, k=k, game=game)
        locked.game = game
        locked.reached = k
        locked.save(update_fields=["game", "reached"])
        transaction.on_commit(partial(_certify_ahead, arena, k + 1))
    logger.info("arena %s: player %s has deal %s (game %s)", arena.code, participant.player_id, k, game.pk)
    return game


def _line_at(game: Game, at: datetime.datetime) -> list[list[int]]:
    """The game's move line as it stood at `at`, from its stored events (rows or record)."""
    line: list[list[int]] = []
    for event in (event for event in history.game_events(game) if event.at <= at):
        if event.kind == GameEvent.Kind.MOVE and event.move is not None:
            line.append(list(event.move))
        elif event.kind == GameEvent.Kind.UNDO and line:
            line.pop()
        elif event.kind == GameEvent.Kind.FINISH and event.line is not None:
            line = [list(step) for step in event.line]
    return line


def _points_at_end(game: Game, ends_at: datetime.datetime) -> tuple[int, bool]:
    """What a game finished after the arena's end counts for: its position as it stood at the end."""
    piles = engine.replay(game.deal.cards, _line_at(game, ends_at)).piles
    seconds = max(0, int((ends_at - game.started_at).total_seconds()))
    return engine.score(piles, seconds), piles == 1


def participant_recount(*, participant_id: int) -> Participant:
    """Count the participant's games again: each finished game not held for review earns its score (as
    it stood at the end, for one finished later); a win right after a win ("on fire") earns its 500
    win bonus twice. The total's time is when its last points came, for ties."""
    # No savepoint of its own inside a finish's transaction: a failure here fails the finish anyway.
    with transaction.atomic(savepoint=False):
        return _recount(_locked_participants().get(pk=participant_id))


def _locked_participants() -> QuerySet[Participant]:
    # The participant's row only (`of`): locking the arena's too would queue every finish in it.
    return Participant.objects.select_for_update(of=("self",)).select_related("arena")


def _recount(participant: Participant) -> Participant:
    """`participant_recount` on the participant's locked row."""
    ends_at = participant.arena.ends_at
    points = games = wins = 0
    reached_at = participant.joined_at
    previous_won = False
    # Plain values, as every finish counts all the participant's games again: neither the games' lines
    # nor their deals, which only a game finished after the end needs.
    rows = (
        ArenaGame.objects.filter(participant=participant)
        .order_by("k")
        .values_list(
            "pk", "points", "fire", "game_id", "game__status", "game__review", "game__finished_at", "game__score",
            "game__piles",
        )
    )  # fmt: skip
    for row_id, stored_points, stored_fire, game_id, status, review, finished_at, score, piles in rows:
        row_points, row_fire, won = None, False, False
        if status == Game.Status.FINISHED and review in COUNTED_REVIEWS:
            assert finished_at is not None and score is not None
            if finished_at <= ends_at:
                row_points, won = score, piles == 1
            else:
                row_points, won = _points_at_end(Game.objects.select_related("deal").get(pk=game_id), ends_at)
            row_fire = won and previous_won
            if row_fire:
                row_points += WIN_BONUS
            games += 1
            wins += won
            if row_points:
                points += row_points
                reached_at = min(finished_at, ends_at)
        previous_won = won
        if (stored_points, stored_fire) != (row_points, row_fire):
            ArenaGame.objects.filter(pk=row_id).update(points=row_points, fire=row_fire)
    participant.points, participant.games, participant.wins = points, games, wins
    participant.fire, participant.reached_at = previous_won, reached_at
    participant.save(update_fields=["points", "games", "wins", "fire", "reached_at"])
    return participant


def arena_game_finished(*, game: Game) -> None:
    """Count an arena game that has just finished (in the finish's own transaction) and tell the arena's
    sockets: the standings changed, and the participant is due their next game."""
    with transaction.atomic(savepoint=False):
        participant = _locked_participants().filter(arena_games__game=game).first()
        if participant is None:
            return
        _recount(participant)
    _announce(participant.arena.code, "finished", player=game.player_id, game=game.pk)


def arena_games_restanded(*, game_ids: list[int]) -> None:
    """Count again the participants of arena games whose standing changed (a review, a transfer)."""
    rows = ArenaGame.objects.select_related("participant__arena").filter(game_id__in=game_ids)
    for participant_id, code in {(row.participant_id, row.participant.arena.code) for row in rows}:
        participant_recount(participant_id=participant_id)
        _announce(code, "changed")


def seats_transfer(*, source: Player, target: Player) -> int:
    """Hand a guest's arena seats to the account it logs in to (its games move with games_transfer), so
    that the account goes on playing where the guest was; a seat in an arena where the account has one
    of its own stays the guest's. Return how many seats moved."""
    taken = Participant.objects.filter(player=target).values_list("arena_id", flat=True)
    moved = Participant.objects.filter(player=source).exclude(arena_id__in=list(taken)).update(player=target)
    if moved:
        logger.info("player %s: %s arena seats handed to player %s", source.pk, moved, target.pk)
    return moved


def arena_end(*, code: str, now: datetime.datetime) -> bool:
    """Close an arena that is over: each game still in play is finished as it stood at the end and
    counted so; from then on the seed is published. Whether this call closed it (False: not over yet,
    or closed already)."""
    arena = _arena(code)
    if now < arena.ends_at or arena.ended_at is not None:
        return False
    with transaction.atomic():
        arena = Arena.objects.select_for_update().get(pk=arena.pk)
        if arena.ended_at is not None:
            return False
        playing = Game.objects.filter(arena_game__participant__arena=arena, status=Game.Status.PLAYING).select_related(
            "player", "deal"
        )
        for game in playing:
            game_services.game_finish(game_id=game.pk, player=game.player, moves=_line_at(game, arena.ends_at), now=now)
        arena.ended_at = now
        arena.save(update_fields=["ended_at"])
        _announce(arena.code, "ended")
    logger.info("arena %s ended", arena.code)
    return True


def arenas_end(*, now: datetime.datetime) -> list[str]:
    """Close every arena that is over and not closed yet (manage.py end_arenas); their codes."""
    due = Arena.objects.filter(ends_at__lte=now, ended_at__isnull=True).values_list("code", flat=True)
    return [code for code in due if arena_end(code=code, now=now)]


# The site's own arenas: (kind, minutes, every how many hours one starts, how many ahead).
SCHEDULE = ((Arena.Kind.HOURLY, 10, 1), (Arena.Kind.DAILY, 30, 24))


def arenas_schedule(*, now: datetime.datetime, hours: int) -> list[Arena]:
    """Create the site's own arenas starting in the next `hours` hours that do not exist yet: an hourly
    10-minute arena at the top of each hour, and a daily 30-minute one at ARENA_DAILY_HOUR (UTC). Running
    it again creates nothing new."""
    created: list[Arena] = []
    top = now.replace(minute=0, second=0, microsecond=0)
    for kind, minutes, every in SCHEDULE:
        for offset in range(1, hours + 1):
            starts_at = top + datetime.timedelta(hours=offset)
            if every == 24 and starts_at.hour != settings.ARENA_DAILY_HOUR:
                continue
            if Arena.objects.filter(kind=kind, starts_at=starts_at).exists():
                continue
            try:
                with transaction.atomic():
                    created.append(
                        _arena_create(created_by=None, kind=kind, minutes=minutes, starts_at=starts_at, now=now)
                    )
            except IntegrityError:  # another run made it meanwhile
                continue
    return created
