"""Every write to race rooms; racers' games are started and ended through games.services.

Lock order: a service holding a room's lock never waits for a game row (starting games is the one game
write under it); a game's finish, holding its row, locks the room in `race_game_finished`.
"""

from __future__ import annotations

import datetime
import logging
import secrets
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils.translation import gettext

from accounts.models import Player
from games import engine, withheld
from games import selectors as game_selectors
from games import services as game_services
from games.errors import GameError, GameNotFound
from games.models import Game
from games.transfers import games_transfer
from realtime import presence

from .broadcast import RoomNews, announce_on_commit, group_name, racer_who
from .errors import (
    NotEnoughReady,
    NotHost,
    NotRacer,
    RaceError,
    RoomFull,
    SpoilerWithheld,
    WrongState,
)
from .models import (
    DEFAULT_TIME_LIMIT,
    MAX_RACERS,
    MAX_TIME_LIMIT,
    MIN_TIME_LIMIT,
    Racer,
    Room,
)
from .selectors import (
    ROOM_CODE_ALPHABET,
    ROOM_CODE_LENGTH,
    counts_ready,
    host_away_until,
    race_abandoned_at,
    racer_seat,
    racing_seats,
    ranked_outcomes,
    room_check_visible,
    room_get,
    room_racers,
    room_readers,
    waiting_for,
)

logger = logging.getLogger(__name__)

COUNTDOWN_SECONDS = 5
_CODE_ATTEMPTS = 10


@dataclass(frozen=True, slots=True)
class Joined:
    room: Room
    seat: Racer | None  # None: watching


def _save(room: Room, *fields: str, kinds: tuple[str, ...] = ("changed",)) -> RoomNews:
    """Store a change with the room's next version, announced once the transaction commits."""
    room.version += 1
    room.save(update_fields=[*fields, "version"])
    return announce_on_commit(room.code, *kinds)


def _seat_to(
    room: Room, player: Player | None, doing: str | None, *, host: bool = False, state: str = Room.State.LOBBY
) -> Racer:
    """`player`'s seat if they may do `doing` now: a racer (`host`: the host) while the room is in `state`
    (any, for `doing` None)."""
    seat = racer_seat(room=room, player=player)
    if seat is None or seat.kicked or seat.left_at is not None:
        raise NotRacer(gettext("only the room's racers can do that: you are watching"))
    if host and room.host_id != seat.player_id:
        raise NotHost(gettext("only the host can do that"))
    if doing is not None and room.state != state:
        raise WrongState(
            gettext("cannot %(doing)s while the room is %(state)s") % {"doing": doing, "state": room.state}
        )
    return seat


def _time_limit(seconds: int | None) -> int:
    if seconds is None:
        return DEFAULT_TIME_LIMIT
    if not MIN_TIME_LIMIT <= seconds <= MAX_TIME_LIMIT:
        raise RaceError(
            gettext("time_limit: from %(least)s to %(most)s seconds, not %(seconds)s")
            % {"least": MIN_TIME_LIMIT, "most": MAX_TIME_LIMIT, "seconds": seconds}
        )
    return seconds


def _deal_code(text: str | None) -> str:
    if not text:
        return ""
    try:
        return game_services.display_deal_code(text)
    except GameError as error:
        raise RaceError(f"code: {error.message}") from error


def _ghost_game(*, player: Player, game_id: int, today: datetime.date) -> Game:
    """A finished game `player` may see, to race as a ghost."""
    game = game_selectors.game_get(game_id=game_id)
    if game.status != Game.Status.FINISHED and game.player_id != player.pk:  # as the game API answers
        raise GameNotFound(gettext("there is no game %(game)s you can see") % {"game": game_id})
    if game.status != Game.Status.FINISHED:
        raise RaceError(
            gettext("game %(game)s is still being played: only a finished game can be a ghost") % {"game": game_id}
        )
    if not game_selectors.game_visible_to(game=game, player=player, today=today):
        raise SpoilerWithheld(
            gettext("game %(game)s is on a daily deal whose day is not over: its moves stay hidden till then")
            % {"game": game_id}
        )
    return game


def _hand_over(room: Room, leaving: Player) -> list[str]:
    """A host leaving hands over to the next racer by arrival; the fields changed."""
    if room.host_id != leaving.pk:
        return []
    successor = _next_host(room, leaving).first()
    room.host_id = successor.player_id if successor is not None else None
    return ["host"]


def _next_host(room: Room, host: Player | int) -> QuerySet[Racer]:
    return racing_seats(room=room).exclude(player=host).order_by("joined_at", "pk")


def _hand_over_if_host_away(room: Room, now: datetime.datetime) -> bool:
    """Pass the room from a host away for HOST_AWAY_SECONDS to the next connected racer."""
    due = host_away_until(room=room)
    if due is None or now < due:
        return False
    assert room.host_id is not None
    successor = _next_host(room, room.host_id).filter(connected=True).first()
    if successor is None:
        return False
    logger.info("race %s: host %s away, player %s hosts", room.code, room.host_id, successor.player_id)
    room.host_id = successor.player_id
    _save(room, "host")
    return True


@transaction.atomic
def room_create(
    *,
    host: Player,
    time_limit: int | None = None,
    deal_code: str | None = None,
    ghost_game_id: int | None = None,
    now: datetime.datetime,
) -> Room:
    """A new room with the creator as host and first racer; a deal code or a ghost, or a fresh deal."""
    limit = _time_limit(time_limit)
    code = _deal_code(deal_code)
    ghost = _ghost_game(player=host, game_id=ghost_game_id, today=now.date()) if ghost_game_id is not None else None
    if code and ghost is not None:
        raise RaceError(gettext("race either a deal code or a ghost (which brings its own deal), not both"))
    room = None
    for _ in range(_CODE_ATTEMPTS):
        try:
            with transaction.atomic():  # a savepoint: a taken code leaves the transaction usable
                room = Room.objects.create(
                    code="".join(secrets.choice(ROOM_CODE_ALPHABET) for _ in range(ROOM_CODE_LENGTH)),
                    host=host,
                    time_limit=limit,
                    deal_code=code,
                    created_at=now,
                )
            break
        except IntegrityError:
            continue
    if room is None:
        raise RuntimeError("no free room code found")
    Racer.objects.create(room=room, round=room.round, player=host, joined_at=now)
    if ghost is not None:
        Racer.objects.create(room=room, round=room.round, ghost=ghost, ready=True, joined_at=now)
    logger.info("race room %s created by player %s", room.code, host.pk)
    return room


def race_join(*, code: str, player: Player | None, now: datetime.datetime) -> Joined:
    """A seat while the room is in its lobby and has one, otherwise watching. A socket is present
    (realtime/presence.py) before it joins, so its racer shows as connected."""
    race_advance(code=code, now=now)
    with transaction.atomic():
        room = room_get(code=code, lock=True)
        room_check_visible(room=room, player=player, today=now.date())
        seat = racer_seat(room=room, player=player)
        changed = False
        fields: list[str] = []  # the room's own columns that changed
        if seat is None and player is not None and room.state == Room.State.LOBBY:
            taken = Racer.objects.filter(room=room, round=room.round, kicked=False).count()
            if taken < MAX_RACERS:
                seat = Racer.objects.create(room=room, round=room.round, player=player, joined_at=now)
                changed = True
                if room.host_id is None:  # everyone had left: the newcomer hosts
                    room.host = player
                    fields.append("host")
        if seat is not None and (seat.kicked or seat.left_at is not None):
            seat = None  # kicked, or gone from the race: watches
        if _store_presence(room, now) or changed:
            _save(room, *fields)
            _start_if_everyone_ready(room, now)  # a racer who was not ready closed their last socket
    return Joined(room=room, seat=seat)


@transaction.atomic
def race_presence(*, code: str, now: datetime.datetime) -> RoomNews:
    """Store which racers have a room socket present now; idempotent, so every process may ask."""
    room = room_get(code=code, lock=True)
    if not _store_presence(room, now):
        return RoomNews(code=room.code)
    news = _save(room)
    _start_if_everyone_ready(room, now)  # the racers left present may all be ready
    return news


def _store_presence(room: Room, now: datetime.datetime) -> bool:
    """Mark each racer connected as presence has them, or away since their last socket left; changed?"""
    seats = list(racing_seats(room=room))
    found = presence.store().seen(group_name(room.code), [racer_who(seat.player_id) for seat in seats])  # type: ignore[arg-type]
    changed = False
    for seat in seats:
        here = found[racer_who(seat.player_id)]  # type: ignore[arg-type]
        if bool(here.present) == seat.connected:
            continue
        seat.connected = bool(here.present)
        last_seen = datetime.datetime.fromtimestamp(here.last_seen, datetime.UTC) if here.last_seen else now
        seat.away_since = None if seat.connected else min(last_seen, now)
        seat.save(update_fields=["connected", "away_since"])
        changed = True
    return changed


@transaction.atomic
def race_ready(*, code: str, player: Player | None, ready: bool, now: datetime.datetime) -> RoomNews:
    """The last racer present to be ready starts the countdown."""
    room = room_get(code=code, lock=True)
    seat = _seat_to(room, player, gettext("change readiness"))
    if seat.ready == ready:
        return RoomNews(code=room.code)
    seat.ready = ready
    seat.save(update_fields=["ready"])
    news = _save(room)
    _start_if_everyone_ready(room, now)
    return news


@transaction.atomic
def race_start(*, code: str, player: Player | None, now: datetime.datetime) -> RoomNews:
    """The host starts the countdown with at least two racers ready (the host is), or everyone present;
    racers not ready watch this round."""
    room = room_get(code=code, lock=True)
    _seat_to(room, player, gettext("start"), host=True)
    humans = [seat for seat in room_racers(room=room) if seat.player_id is not None]
    ready = [seat for seat in humans if counts_ready(room=room, racer=seat)]
    present = [seat for seat in humans if counts_ready(room=room, racer=seat) or seat.away_since is None]
    if len(ready) < 2 and len(ready) < len(present):
        raise NotEnoughReady(gettext("the race starts when at least two racers are ready, or everyone is"))
    return _count_down(room, humans, now)


def _start_if_everyone_ready(room: Room, now: datetime.datetime) -> None:
    """Count down once the racers present are all ready, one of them besides the host."""
    if room.state != Room.State.LOBBY:
        return
    seats = room_racers(room=room)
    humans = [seat for seat in seats if seat.player_id is not None]
    others_ready = [seat for seat in humans if seat.player_id != room.host_id and seat.ready and seat.connected]
    if others_ready and not waiting_for(room=room, racers=seats, now=now):
        _count_down(room, humans, now)


def _count_down(room: Room, humans: list[Racer], now: datetime.datetime) -> RoomNews:
    Racer.objects.filter(pk__in=[seat.pk for seat in humans if not counts_ready(room=room, racer=seat)]).delete()
    Racer.objects.filter(pk__in=[seat.pk for seat in humans if not seat.ready]).update(ready=True)
    room.state = Room.State.COUNTDOWN
    room.starts_at = now + datetime.timedelta(seconds=COUNTDOWN_SECONDS)
    logger.info("race %s round %s: countdown to %s", room.code, room.round, room.starts_at.isoformat())
    return _save(room, "state", "starts_at", kinds=("changed", "countdown"))


@transaction.atomic
def race_kick(*, code: str, player: Player | None, target: int, now: datetime.datetime) -> RoomNews:
    room = room_get(code=code, lock=True)
    _seat_to(room, player, gettext("kick"), host=True)
    if player is not None and target == player.pk:
        raise RaceError(gettext("the host cannot kick themselves: leave instead"))
    seat = Racer.objects.filter(room=room, round=room.round, player_id=target, kicked=False).first()
    if seat is None:
        raise RaceError(
            gettext("player %(player)s is not racing in this room") % {"player": target}, code="not_found", status=404
        )
    seat.kicked = True
    seat.ready = False
    seat.save(update_fields=["kicked", "ready"])
    news = _save(room)
    _start_if_everyone_ready(room, now)
    return news


def race_leave(*, code: str, player: Player | None, now: datetime.datetime) -> None:
    """Give up the seat: freed before the start; during the race the game ends as it stands (its finish
    announces the standings, or the race's end)."""
    with transaction.atomic():
        room = room_get(code=code, lock=True)
        seat = _seat_to(room, player, None)
        changed = _hand_over(room, seat.player)  # type: ignore[arg-type]
        game_to_end = None
        if room.state in (Room.State.LOBBY, Room.State.COUNTDOWN):
            seat.delete()
            _start_if_everyone_ready(room, now)
        else:
            seat.left_at = now
            seat.connected = False
            seat.save(update_fields=["left_at", "connected"])
            game_to_end = seat.game_id if room.state == Room.State.RACING else None
        _save(room, *changed)
    if game_to_end is not None:
        _end_game(game_id=game_to_end, at=now)


@transaction.atomic
def race_rematch(*, code: str, player: Player | None, confirm: bool, now: datetime.datetime) -> RoomNews:
    """A racer asks for (or agrees to) a rematch: the next round, on a new deal with those who stayed,
    starts when every racer present agrees or the host confirms; those who agreed are ready in it."""
    room = room_get(code=code, lock=True)
    asker = _seat_to(room, player, gettext("ask for a rematch"), host=confirm, state=Room.State.FINISHED)
    staying = [seat for seat in room_racers(room=room) if seat.player_id is not None and seat.left_at is None]
    if not confirm:
        if not asker.rematch:
            asker.rematch = True
            asker.save(update_fields=["rematch"])
        if any(other.connected and not other.rematch for other in staying if other.pk != asker.pk):
            return _save(room)  # the others see who agreed
    room.round += 1
    room.state = Room.State.LOBBY
    room.deal = None
    room.deal_code = ""
    room.starts_at = room.ends_at = room.finished_at = None
    news = _save(room, "round", "state", "deal", "deal_code", "starts_at", "ends_at", "finished_at")
    Racer.objects.bulk_create(
        Racer(
            room=room,
            round=room.round,
            player=seat.player,
            joined_at=seat.joined_at,
            ready=seat.rematch or seat.player_id == room.host_id,
            connected=seat.connected,
            away_since=seat.away_since,
        )
        for seat in staying
    )
    logger.info("race %s: rematch, round %s", room.code, room.round)
    _start_if_everyone_ready(room, now)
    return news


@transaction.atomic
def race_settings(
    *, code: str, player: Player | None, time_limit: int | None = None, deal_code: str | None = None
) -> RoomNews:
    room = room_get(code=code, lock=True)
    _seat_to(room, player, gettext("change the settings"), host=True)
    if time_limit is not None:
        room.time_limit = _time_limit(time_limit)
    if deal_code is not None:
        room.deal_code = _deal_code(deal_code)
    if room.deal_code and Racer.objects.filter(room=room, round=room.round, ghost__isnull=False).exists():
        raise RaceError(gettext("code: the ghost brings its own deal; drop the ghost to race a deal code"))
    return _save(room, "time_limit", "deal_code")


@transaction.atomic
def race_ghost(*, code: str, player: Player | None, game_id: int | None, now: datetime.datetime) -> RoomNews:
    room = room_get(code=code, lock=True)
    host = _seat_to(room, player, gettext("change the ghost"), host=True)
    Racer.objects.filter(room=room, round=room.round, ghost__isnull=False).delete()
    if game_id is not None:
        ghost = _ghost_game(player=host.player, game_id=game_id, today=now.date())  # type: ignore[arg-type]
        if Racer.objects.filter(room=room, round=room.round, kicked=False).count() >= MAX_RACERS:
            raise RoomFull(gettext("the room is full: %(most)s racers at most") % {"most": MAX_RACERS})
        Racer.objects.create(room=room, round=room.round, ghost=ghost, ready=True, joined_at=now)
        # A racer the room would now be withheld from refuses the ghost; watchers, the next room message.
        readers = room_readers(room=room, today=now.date())
        for seat in room_racers(room=room):
            if seat.player is not None and not withheld.admitted(readers, seat.player):
                raise SpoilerWithheld(
                    gettext("game %(game)s stays hidden from %(nickname)s until its day is over")
                    % {"game": game_id, "nickname": seat.player.nickname}
                )
        room.deal_code = ""
    return _save(room, "deal_code")


def race_advance(*, code: str, now: datetime.datetime) -> RoomNews:
    """Do what the room's clock says is due: the start, the end (at the time limit, or when every racer
    is away: `race_abandoned_at`), a host's hand-over. Called by the room's timers and before every read
    or join, so a restarted process still acts."""
    news = RoomNews(code=code)
    with transaction.atomic():
        room = room_get(code=code, lock=True)
        if _hand_over_if_host_away(room, now):
            news.add("changed")
        if room.state == Room.State.COUNTDOWN and room.starts_at is not None and now >= room.starts_at:
            _begin(room)
            news.add("changed")
            if room.state == Room.State.RACING:
                news.add("started")
        end = _race_end_due(room, now)
        if end is None:
            return news
        seats = room_racers(room=room)
        unfinished = [seat.game.pk for seat in seats if seat.game and seat.game.status == Game.Status.PLAYING]
        if not unfinished:
            _finish(room, seats, now=end)
    for game_id in unfinished:
        # Each in its own transaction, the room's lock given back (lock order): the last ends the race.
        _end_game(game_id=game_id, at=end)
    news.add("changed", "finished")
    return news


def _race_end_due(room: Room, now: datetime.datetime) -> datetime.datetime | None:
    if room.state != Room.State.RACING:
        return None
    if room.ends_at is not None and now >= room.ends_at:
        return room.ends_at
    abandoned = race_abandoned_at(room=room)
    if abandoned is not None and now >= abandoned:
        logger.info("race %s round %s: every racer away, it ends", room.code, room.round)
        return abandoned
    return None


def _begin(room: Room) -> None:
    """The start signal: choose the deal, start every racer's game on it at `starts_at`."""
    seats = room_racers(room=room)
    humans = [seat for seat in seats if seat.player is not None]
    if not humans:  # everyone left during the countdown: back to the lobby
        room.state = Room.State.LOBBY
        room.starts_at = None
        _save(room, "state", "starts_at")
        return
    ghost = next((seat for seat in seats if seat.ghost is not None), None)
    if ghost is not None:
        deal = ghost.ghost.deal  # type: ignore[union-attr]
    else:
        deal = game_services.deal_for_code(code=room.deal_code or engine.new_deal_code())
    assert room.starts_at is not None
    for seat in humans:
        seat.game = game_services.game_start_race(
            player=seat.player,  # type: ignore[arg-type]
            deal=deal,
            race_code=room.code,
            now=room.starts_at,
        )
        seat.save(update_fields=["game"])
    if ghost is not None:
        ghost.game = ghost.ghost
        ghost.save(update_fields=["game"])
    room.deal = deal
    room.state = Room.State.RACING
    room.ends_at = room.starts_at + datetime.timedelta(seconds=room.time_limit)
    _save(room, "deal", "state", "ends_at", kinds=("changed", "started"))
    logger.info("race %s round %s started: %s racers", room.code, room.round, len(humans))


def _end_game(*, game_id: int, at: datetime.datetime) -> None:
    game = Game.objects.select_related("player").filter(pk=game_id, status=Game.Status.PLAYING).first()
    if game is not None:
        game_services.game_finish(game_id=game_id, player=game.player, moves=game.moves, now=at)


def race_game_finished(*, game: Game, now: datetime.datetime) -> None:
    """A race game ended (in its finish's transaction): the standings so far, or the race's end."""
    room = Room.objects.select_for_update().filter(code=game.race_code).first()
    if room is None or room.state != Room.State.RACING:
        return
    seats = room_racers(room=room)
    games = {seat.game_id for seat in seats if seat.player_id is not None}
    if game.pk not in games:
        return  # a game of an earlier round
    if Game.objects.filter(pk__in=games, status=Game.Status.PLAYING).exists():
        _save(room, kinds=("changed", "standings"))  # the standings so far, with this finisher's place
    else:
        _finish(room, seats, now=now)


def _finish(room: Room, seats: list[Racer], *, now: datetime.datetime) -> None:
    for place, seat, _outcome in ranked_outcomes(room=room, racers=seats):
        seat.place = place
        seat.winner = place == 1 and len(seats) > 1
        seat.save(update_fields=["place", "winner"])
    room.state = Room.State.FINISHED
    room.finished_at = now
    _save(room, "state", "finished_at", kinds=("changed", "finished"))
    logger.info("race %s round %s finished", room.code, room.round)


def races_hand_over(*, player: Player, stand_in: Player, now: datetime.datetime) -> None:
    """`player`'s account is being deleted: they leave every race; rooms nobody else raced in go; in
    the others their seats and games pass to `stand_in`, so others' standings and replays stay. Each
    change is announced by `_save` once the deletion commits."""
    touching = Room.objects.filter(Q(racers__player=player) | Q(racers__ghost__player=player) | Q(host=player))
    codes = set(touching.values_list("code", flat=True))
    for room in Room.objects.filter(code__in=codes).exclude(state=Room.State.FINISHED):
        race_advance(code=room.code, now=now)
        room.refresh_from_db()
        seat = racer_seat(room=room, player=player)
        if room.state != Room.State.FINISHED and seat is not None and not seat.kicked and seat.left_at is None:
            race_leave(code=room.code, player=player, now=now)
    others = Racer.objects.filter(player__isnull=False).exclude(player=player).values("room")
    Room.objects.filter(code__in=codes).exclude(pk__in=others).delete()
    shared = list(Room.objects.filter(code__in=codes).values_list("code", flat=True))
    for code in shared:
        room = room_get(code=code, lock=True)
        _save(room, *_hand_over(room, player))  # the seats' nickname changes too: a newer version either way
    seats = Racer.objects.filter(room__code__in=shared)
    kept = Game.objects.filter(Q(pk__in=seats.values("game")) | Q(pk__in=seats.values("ghost")), player=player)
    games_transfer(source=player, target=stand_in, games=list(kept.values_list("pk", flat=True)))
    seats.filter(player=player).update(player=stand_in)
    logger.info("player %s deleted: %s of %s race rooms kept for others", player.pk, len(shared), len(codes))
