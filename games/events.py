"""Games as streams of stored events: the typed event, its one encoding, appending and publishing.

An event is appended in the transaction that changes the game row and published once it has committed,
so nothing announces a change that was not stored; its frame is encoded once, and each process's bus
(realtime/bus.py) writes those same bytes to its sockets.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction

from realtime import bus
from realtime.protocol import outgoing

from . import history, store
from .models import Game, GameEvent
from .serializers import EventResultSerializer
from .signals import game_event_appended

_DJANGO_JSON = DjangoJSONEncoder()

# The bus message kind of a game's event.
EVENT = "event"


def group_name(game_id: int) -> str:
    return f"game.{game_id}"


def finish_result(game: Game) -> dict[str, Any] | None:
    """The result a finish event carries (without a rank: one encoding serves every listener)."""
    if game.status != Game.Status.FINISHED:
        return None
    return EventResultSerializer(game).data  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class GameEventOut:
    """One event as it leaves the server; `frame` is its JSON text, encoded once for every listener,
    and `data` what listeners on the server act on (a race's progress) without decoding it."""

    game: int
    v: int
    kind: str
    frame: str
    data: dict[str, Any]

    @classmethod
    def of(cls, event: GameEvent, *, game: Game) -> GameEventOut:
        """A stored event of `game`; a finish carries the game's result."""
        return cls.build(
            game=event.game_id,
            v=event.v,
            kind=event.kind,
            move=event.move,
            piles=event.piles,
            at=event.at,
            line=event.line,
            result=finish_result(game) if event.kind == GameEvent.Kind.FINISH else None,
        )

    @classmethod
    @outgoing("event")
    def build(
        cls,
        *,
        game: int,
        v: int,
        kind: str,
        move: list[int] | None,
        piles: int,
        at: datetime.datetime,
        line: list[list[int]] | None = None,
        result: dict[str, Any] | None = None,
    ) -> GameEventOut:
        """One change to a game, as every listener of its stream gets it (docs/api.md, "Games are streams")."""
        content = {
            "t": "event",
            "game": game,
            "v": v,
            "kind": kind,
            "move": move,
            "piles": piles,
            "at": _DJANGO_JSON.default(at),
            "line": line,
            "result": result,
        }
        # The time is written as DjangoJSONEncoder writes it; past it, only a result may hold a value that
        # plain JSON cannot write, so every other event is encoded by the json module's C encoder alone.
        encoder = DjangoJSONEncoder if result is not None else None
        data = {"kind": kind, "move": move, "line": line, "piles": piles, "at": content["at"],
                "score": result["score"] if result else None}  # fmt: skip
        return cls(game=game, v=v, kind=kind, frame=json.dumps(content, cls=encoder), data=data)


def append(
    game: Game,
    *,
    kind: str,
    at: datetime.datetime,
    changed: Sequence[str],
    move: Sequence[int] | None = None,
    line: Sequence[Sequence[int]] | None = None,
) -> GameEventOut:
    """Record a change already made to `game` under its lock (the caller's transaction): save the
    `changed` columns with the next version and store the event. Receivers of `game_event_appended`
    hear it in the transaction; it is published when the transaction commits."""
    version = game.version
    game.version += 1
    event = GameEvent(
        game=game,
        v=game.version,
        kind=kind,
        move=list(move) if move is not None else None,
        line=[list(step) for step in line] if line is not None else None,
        piles=game.piles,
        at=at,
    )
    changes = {name: getattr(game, name) for name in changed} | {"version": game.version}
    row = {name: getattr(event, name) for name in _EVENT_ROW}
    event.pk = store.save_change(game_id=game.pk, player_id=game.player_id, version=version, changes=changes, event=row)
    assert event.pk is not None, "the game's lock keeps it at its version"
    out = GameEventOut.of(event, game=game)
    # Inside the change's transaction, so a receiver's writes (a leaderboard row, say) commit or roll
    # back with the change.
    game_event_appended.send(sender=Game, game=game, event=event)
    transaction.on_commit(lambda: publish(out))
    return out


# The event row's values, by attribute name (the id is the database's).
_EVENT_ROW = ("game_id", "v", "kind", "move", "line", "piles", "at")


# A plain change is stored only if the game is still as known, in one statement that is its own
# transaction (games/store.py). `game_event_appended` does not hear it: no transaction for a receiver's
# writes to join, and none acts on one (the boards and races act on finishes, which lock).
@dataclass(frozen=True, slots=True)
class PlainChange:
    """A move or undo checked on a game in play as known at `version`, without its lock: `move` is the
    move played or taken back, `line` and `piles` the game's after it."""

    game_id: int
    player_id: int
    version: int
    kind: str
    move: list[int]
    line: list[list[int]]
    piles: int
    at: datetime.datetime

    def statement(self) -> dict[str, Any]:
        v = self.version + 1
        return {
            "game_id": self.game_id,
            "player_id": self.player_id,
            "version": self.version,
            "changes": {"moves": self.line, "piles": self.piles, "version": v},
            "event": {"game_id": self.game_id, "v": v, "kind": self.kind, "move": self.move, "line": None}
            | {"piles": self.piles, "at": self.at},
        }

    def out(self) -> GameEventOut:
        v = self.version + 1
        return GameEventOut.build(game=self.game_id, v=v, kind=self.kind, move=self.move, piles=self.piles, at=self.at)


def append_if_unchanged(change: PlainChange) -> GameEventOut | None:
    """Store `change` from a database thread; return its event, or None when the game changed meanwhile."""
    if store.save_change(**change.statement()) is None:
        return None
    out = change.out()
    transaction.on_commit(lambda: publish(out))
    return out


async def append_if_unchanged_from_loop(change: PlainChange) -> GameEventOut | None:
    """`append_if_unchanged` sent from the event loop on one of its own connections
    (realtime/loop_db.py), the event published as soon as it returns (it has committed by then).
    Raise LoopConnectionsBusy when the loop has no connection free."""
    if await store.save_change_from_loop(**change.statement()) is None:
        return None
    out = change.out()
    publish(out)
    return out


def events_after(*, game: Game, v: int, limit: int) -> list[GameEventOut] | None:
    """The stored events of `game` after version `v` up to the game's version as read (later ones reach
    the caller live), in order; None when more than `limit` are missing or `v` is not a version the game
    has had (the caller sends the whole state instead)."""
    if not 0 <= v <= game.version or game.version - v > limit:
        return None
    return [GameEventOut.of(event, game=game) for event in history.game_events(game, since=v, until=game.version)]


def publish(event: GameEventOut) -> None:
    """Send a committed event to the game's stream, once."""
    bus.publish(bus.Message(group_name(event.game), EVENT, event.v, event.frame, event.data))
