"""Reads about race rooms: the room as clients see it, the standings, ghosts' timelines, race records."""

from __future__ import annotations

import datetime
import itertools
from dataclasses import dataclass, replace
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from accounts.models import Player
from games import engine, events, withheld
from games import selectors as game_selectors
from games.engine.deals import CODE_ALPHABET
from games.models import Game

from .errors import RoomNotFound, SpoilerWithheld
from .models import Racer, Room

# Room codes use the deal codes' alphabet: no 0/O or 1/I to misread.
ROOM_CODE_ALPHABET = CODE_ALPHABET
ROOM_CODE_LENGTH = 6
# A host away this long (every room socket closed) in the lobby or after the race hands the room on,
# or a closed tab would leave nobody able to start; long enough to survive a reload.
HOST_AWAY_SECONDS = 30
# A race whose every racer still playing has been away this long ends: nobody races it any more.
RACE_AWAY_SECONDS = 30
# A racer seated by `POST /join` opens their room socket next: the start waits this long for it, so that
# the others being ready at that moment do not leave the newcomer watching.
ARRIVAL_SECONDS = 10


def normalize_room_code(code: str) -> str | None:
    cleaned = code.strip().upper().replace("-", "").replace(" ", "")
    if len(cleaned) != ROOM_CODE_LENGTH or any(symbol not in ROOM_CODE_ALPHABET for symbol in cleaned):
        return None
    return cleaned


def room_get(*, code: str, lock: bool = False) -> Room:
    """The room a code names (`lock`: locked for the transaction's writes), else RoomNotFound."""
    canonical = normalize_room_code(code)
    rooms = Room.objects.select_for_update() if lock else Room.objects.all()
    room = rooms.filter(code=canonical).first() if canonical else None
    if room is None:
        raise RoomNotFound(_("there is no race room %(code)r") % {"code": code[:20]})
    return room


def room_readers(*, room: Room, today: datetime.date) -> list[int] | None:
    """Who may be sent the room (games/withheld.py): anyone (None), unless a game of its round is on a
    daily deal whose day is not over, from the moment such a ghost is chosen; then only its player."""
    racers = Racer.objects.filter(room=room, round=room.round).select_related("ghost__deal", "game__deal")
    games = [game for racer in racers for game in (racer.ghost, racer.game) if game is not None]
    return withheld.readers_of(games=games, today=today)


def room_check_readable(*, readers: list[int] | None, player: Player | None) -> None:
    if not withheld.admitted(readers, player):
        raise SpoilerWithheld(_("this room races a ghost on a daily deal whose day is not over: its moves stay hidden"))


def room_check_visible(*, room: Room, player: Player | None, today: datetime.date) -> None:
    room_check_readable(readers=room_readers(room=room, today=today), player=player)


def host_away_until(*, room: Room) -> datetime.datetime | None:
    """When the room passes on if its host stays away: only in the lobby and after the race."""
    if room.state not in (Room.State.LOBBY, Room.State.FINISHED) or room.host_id is None:
        return None
    seat = Racer.objects.filter(room=room, round=room.round, player_id=room.host_id).first()
    if seat is None or seat.connected or seat.away_since is None:
        return None
    return seat.away_since + datetime.timedelta(seconds=HOST_AWAY_SECONDS)


def race_abandoned_at(*, room: Room) -> datetime.datetime | None:
    """RACE_AWAY_SECONDS after the last racer still playing left, while all of them are away; else None."""
    if room.state != Room.State.RACING:
        return None
    playing = list(racing_seats(room=room).filter(game__status=Game.Status.PLAYING))
    away = [seat.away_since for seat in playing if not seat.connected]
    if not playing or len(away) < len(playing) or None in away:
        return None
    return max(moment for moment in away if moment is not None) + datetime.timedelta(seconds=RACE_AWAY_SECONDS)


def racing_seats(*, room: Room) -> QuerySet[Racer]:
    return Racer.objects.filter(room=room, round=room.round, player__isnull=False, kicked=False, left_at__isnull=True)


def room_racers(*, room: Room) -> list[Racer]:
    return list(
        Racer.objects.filter(room=room, round=room.round, kicked=False)
        .select_related("player", "game__deal", "ghost__player")
        .order_by("joined_at", "pk")
    )


def racer_seat(*, room: Room, player: Player | None) -> Racer | None:
    if player is None:
        return None
    return Racer.objects.filter(room=room, round=room.round, player=player).first()


def counts_ready(*, room: Room, racer: Racer) -> bool:
    """The host is ready by hosting (they may start the race at once)."""
    return racer.ready or racer.is_ghost or racer.player_id == room.host_id


def waiting_for(*, room: Room, racers: list[Racer], now: datetime.datetime) -> list[Racer]:
    """The racers present, or seated and not yet come, who are not ready: the start waits for them."""
    return [
        racer
        for racer in racers
        if racer.player_id is not None
        and (racer.connected or _arriving(racer, now))
        and racer.left_at is None
        and not counts_ready(room=room, racer=racer)
    ]


def _arriving(racer: Racer, now: datetime.datetime) -> bool:
    """Seated moments ago and no room socket yet (none has left either)."""
    return racer.away_since is None and now - racer.joined_at < datetime.timedelta(seconds=ARRIVAL_SECONDS)


def player_race_stats(*, player: Player) -> dict[str, int]:
    seats = Racer.objects.filter(player=player, place__isnull=False)
    return {"played": seats.count(), "won": seats.filter(winner=True).count()}


def ghost_open(*, game: Game, player: Player | None, today: datetime.date) -> bool:
    """Whether `player` may race `game` as a ghost, as the services check it (for the pages' button)."""
    return game.status == Game.Status.FINISHED and game_selectors.game_visible_to(game=game, player=player, today=today)


@dataclass(frozen=True, slots=True)
class GhostStep:
    """One event of a ghost's game, `offset` seconds after its start, and the line once it is played."""

    offset: float
    event: dict[str, Any]
    line: list[list[int]]


def ghost_timeline(*, game: Game) -> list[GhostStep]:
    """Every event of a finished game, timed from its start. A finish that brings a whole line (moves
    played offline) becomes a step per move, spread over the time since the step before; versions are
    counted afresh, one a step, since progress is heard one version at a time."""
    stored = events.events_after(game=game, v=0, limit=game.version) or []
    steps: list[GhostStep] = []
    line: list[list[int]] = []
    for out in stored:
        event = out.data
        at = datetime.datetime.fromisoformat(event["at"].replace("Z", "+00:00"))
        offset = (at - game.started_at).total_seconds()
        kind = event["kind"]
        if kind == "finish" and event["line"] is not None:
            steps += _steps_to_line(line, event, since=steps[-1].offset if steps else 0.0, until=offset)
            line = [list(move) for move in event["line"]]
        elif kind == "move" or (kind == "finish" and event["move"] is not None):
            line.append(event["move"])
        elif kind == "undo" and line:
            line.pop()
        steps.append(GhostStep(offset=offset, event=event, line=list(line)))
    return [replace(step, event={**step.event, "v": v}) for v, step in enumerate(steps, start=1)]


def _steps_to_line(line: list[list[int]], finish: dict[str, Any], *, since: float, until: float) -> list[GhostStep]:
    """The undos and moves from `line` to `finish`'s line but its last move, spread over `since`..`until`."""
    target = [list(move) for move in finish["line"]]
    kept = 0
    while kept < min(len(line), len(target)) and line[kept] == target[kept]:
        kept += 1
    changes = [("undo", move) for move in reversed(line[kept:])] + [("move", move) for move in target[kept:-1]]
    current = list(line)
    steps = []
    for index, (kind, move) in enumerate(changes, start=1):
        if kind == "undo":
            current.pop()
        else:
            current.append(move)
        offset = since + (until - since) * index / (len(changes) + 1)
        event = {**finish, "kind": kind, "move": move, "line": None, "piles": 52 - len(current), "score": None}
        steps.append(GhostStep(offset=offset, event=event, line=list(current)))
    return steps


@dataclass(frozen=True, slots=True)
class RaceLine:
    line: list[list[int]]
    piles: int
    v: int
    finished: bool
    score: int


def ghost_line_at(steps: list[GhostStep], seconds: float) -> RaceLine:
    reached = list(itertools.takewhile(lambda step: step.offset <= seconds, steps))
    if not reached:
        return RaceLine(line=[], piles=52, v=0, finished=False, score=0)
    last = reached[-1].event
    finished = last["kind"] == "finish"
    score = last["score"] if finished else _score(last["piles"])
    return RaceLine(line=reached[-1].line, piles=last["piles"], v=last["v"], finished=finished, score=score)


def _score(piles: int) -> int:
    return engine.score(piles, None) if piles > 1 else 0


@dataclass(frozen=True, slots=True)
class Outcome:
    won: bool
    seconds: int
    piles: int
    score: int

    def order(self) -> tuple[int, int, int, int]:
        return (0 if self.won else 1, self.seconds if self.won else 0, self.piles, -self.score)


def racer_outcome(*, room: Room, racer: Racer) -> Outcome | None:
    """A racer's result, or None while their game goes on: a ghost's cut at the time limit; a win after
    the deadline is no win of the race."""
    if racer.ghost is not None:
        ghost = racer.ghost
        if ghost.seconds is not None and ghost.seconds <= room.time_limit and ghost.score is not None:
            return Outcome(won=ghost.won, seconds=ghost.seconds, piles=ghost.piles, score=ghost.score)
        cut = ghost_line_at(ghost_timeline(game=ghost), room.time_limit)
        return Outcome(won=False, seconds=room.time_limit, piles=cut.piles, score=_score(cut.piles))
    game = racer.game
    if game is None or game.status != Game.Status.FINISHED or game.seconds is None or game.score is None:
        return None
    in_time = room.ends_at is None or (game.finished_at is not None and game.finished_at <= room.ends_at)
    return Outcome(won=game.won and in_time, seconds=game.seconds, piles=game.piles, score=game.score)


def ranked_outcomes(*, room: Room, racers: list[Racer]) -> list[tuple[int, Racer, Outcome]]:
    """(place, racer, outcome) best first, for racers done; equal outcomes share a place (1, 2, 2, 4)."""
    ended = [(racer, outcome) for racer in racers if (outcome := racer_outcome(room=room, racer=racer)) is not None]
    ended.sort(key=lambda pair: (pair[1].order(), pair[0].joined_at, pair[0].pk))
    ranked: list[tuple[int, Racer, Outcome]] = []
    for index, (racer, outcome) in enumerate(ended):
        tied = ranked and ranked[-1][2].order() == outcome.order()
        ranked.append((ranked[-1][0] if tied else index + 1, racer, outcome))
    return ranked


def _seat(racer: Racer) -> dict[str, Any]:
    person = racer.player if racer.player is not None else racer.ghost.player  # type: ignore[union-attr]
    return {
        "racer": racer.pk,
        "player": person.pk,
        "nickname": person.nickname,
        "ghost": racer.is_ghost,
        "left": racer.left_at is not None,
        "game": racer.ghost_id if racer.is_ghost else racer.game_id,
    }


def standings_entries(*, room: Room, racers: list[Racer], now: datetime.datetime) -> list[dict[str, Any]]:
    """The racers done, best first (a ghost once the time of its finish has come)."""
    if room.state == Room.State.RACING:
        racers = [racer for racer in racers if not racer.is_ghost or _ghost_done(room=room, racer=racer, now=now)]
    return [
        {
            **_seat(racer),
            "place": place,
            "won": outcome.won,
            "seconds": outcome.seconds,
            "piles": outcome.piles,
            "score": outcome.score,
        }
        for place, racer, outcome in ranked_outcomes(room=room, racers=racers)
    ]


def _ghost_done(*, room: Room, racer: Racer, now: datetime.datetime) -> bool:
    seconds = racer.ghost.seconds  # type: ignore[union-attr]
    if seconds is None or seconds > room.time_limit or room.starts_at is None:
        return False
    return room.starts_at + datetime.timedelta(seconds=seconds) <= now


def _racer_line(*, room: Room, racer: Racer, now: datetime.datetime) -> RaceLine | None:
    if room.state not in (Room.State.RACING, Room.State.FINISHED) or room.starts_at is None:
        return None
    if racer.ghost is not None:
        elapsed = room.time_limit if room.state == Room.State.FINISHED else (now - room.starts_at).total_seconds()
        return ghost_line_at(ghost_timeline(game=racer.ghost), min(elapsed, room.time_limit))
    game = racer.game
    if game is None:
        return None
    finished = game.status == Game.Status.FINISHED
    score = game.score if finished and game.score is not None else _score(game.piles)
    return RaceLine(line=game.moves, piles=game.piles, v=game.version, finished=finished, score=score)


def _racer_entry(*, room: Room, racer: Racer, now: datetime.datetime) -> dict[str, Any]:
    seat = _seat(racer)
    started = room.state in (Room.State.RACING, Room.State.FINISHED)
    line = _racer_line(room=room, racer=racer, now=now)
    status = "waiting" if line is None else "finished" if line.finished else "playing"
    return {
        **seat,
        "ready": counts_ready(room=room, racer=racer),
        "connected": racer.is_ghost or racer.connected,
        # Until the start a ghost's game would name the deal: it is withheld like the deal itself.
        "game": seat["game"] if started else None,
        "status": status,
        "finished": status == "finished",
        "v": line.v if line else 0,
        "line": line.line if line else None,
        "piles": line.piles if line else 52,
        "score": line.score if line else 0,
        "moves": len(line.line) if line else 0,
        "place": racer.place,
        "rematch": racer.rematch,
    }


def room_view(*, room: Room, now: datetime.datetime, racers: list[Racer] | None = None) -> dict[str, Any]:
    """The room as every client sees it: nothing in it names the deal before the start signal. `racers`:
    its `room_racers`, when the caller has read them already."""
    racers = room_racers(room=room) if racers is None else racers
    started = room.state in (Room.State.RACING, Room.State.FINISHED) and room.deal is not None
    return {
        "code": room.code,
        "state": room.state,
        "round": room.round,
        "version": room.version,
        "host": room.host_id,
        "time_limit": room.time_limit,
        "starts_at": room.starts_at,
        "ends_at": room.ends_at,
        "server_now": now,
        "url": f"/race/{room.code}",
        "ws": f"/ws/races/{room.code}/",
        "deal": room.deal.cards if started else None,  # type: ignore[union-attr]
        "deal_code": room.deal.shared_code if started else None,  # type: ignore[union-attr]
        "deal_picked": bool(room.deal_code),
        "racers": [_racer_entry(room=room, racer=racer, now=now) for racer in racers],
        "waiting": [racer.pk for racer in waiting_for(room=room, racers=racers, now=now)]
        if room.state == Room.State.LOBBY
        else [],
        "standings": standings_entries(room=room, racers=racers, now=now) if started else None,
    }
