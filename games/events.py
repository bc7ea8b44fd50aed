"""Games as streams of stored events: the typed event, its one encoding, appending and publishing.

A service appends an event in the same transaction as the change to the game row and publishes it
only once that transaction has committed (`transaction.on_commit`), so nothing can announce a change
that was not stored. Publishing sends the encoded frame once to the game's channel-layer group; each
process's hub (games/hub.py) writes those same bytes to its local sockets.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction

from accordion_site.channel_layers import group_send_many
from accordion_site.errors import log_background_failure
from accordion_site.tasks import raise_if_stopping

from . import store
from .models import Game, GameEvent
from .serializers import EventResultSerializer
from .signals import game_event_appended

logger = logging.getLogger(__name__)

_DJANGO_JSON = DjangoJSONEncoder()

Kind = GameEvent.Kind
# The channel-layer message type the hub listens for.
EVENT_MESSAGE = "game.event"


def group_name(game_id: int) -> str:
    """The channel-layer group of a game's stream (one subscriber per process: its hub)."""
    return f"game.{game_id}"


def finish_result(game: Game) -> dict[str, Any] | None:
    """The result a finish event carries (without a rank: one encoding serves every listener)."""
    if game.status != Game.Status.FINISHED:
        return None
    return EventResultSerializer(game).data  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class GameEventOut:
    """One event as it leaves the server; `frame` is its JSON text, encoded once for every listener."""

    game: int
    v: int
    kind: str
    frame: str

    @classmethod
    def of(cls, event: GameEvent, *, result: dict[str, Any] | None) -> GameEventOut:
        return cls.build(
            game=event.game_id,
            v=event.v,
            kind=event.kind,
            move=event.move,
            piles=event.piles,
            at=event.at,
            line=event.line,
            result=result,
        )

    @classmethod
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
        return cls(game=game, v=v, kind=kind, frame=json.dumps(content, cls=encoder))


def append(
    game: Game,
    *,
    kind: str,
    at: datetime.datetime,
    changed: Sequence[str],
    move: Sequence[int] | None = None,
    line: Sequence[Sequence[int]] | None = None,
) -> GameEventOut:
    """Record a change already made to `game` (locked by the caller's transaction): save the `changed`
    columns with the next version and store the event. It is published when the transaction commits."""
    event = _next_event(game, kind=kind, at=at, move=move, line=line)
    store.save_change(game, fields=[*changed, "version"], event=event)
    return _appended(game, event)


def append_move_if_unchanged(
    game: Game, *, known_version: int, at: datetime.datetime, move: Sequence[int], changed: Sequence[str]
) -> GameEventOut | None:
    """Record a plain move already made to `game`, which the caller has not locked: stored only if the
    game is still at `known_version`, still in play and still the same player's, in one statement that
    is its own transaction (PostgreSQL). Return the event, or None when the game changed meanwhile.

    A plain move is not heard by `game_event_appended`: there is no transaction for a receiver's writes
    to join, and none acts on one (the boards and races act on finishes, which always lock)."""
    event = _next_event(game, kind=Kind.MOVE, at=at, move=move, line=None)
    fields = [*changed, "version"]
    if not store.save_change_if_unchanged(
        game, version=known_version, status=Game.Status.PLAYING, fields=fields, event=event
    ):
        return None
    out = GameEventOut.of(event, result=None)
    transaction.on_commit(lambda: publish(out))
    return out


async def append_change_from_loop(
    known: Game, *, kind: str, line: list[list[int]], piles: int, move: Sequence[int], at: datetime.datetime
) -> GameEventOut | None:
    """Store a plain move or undo (`kind`, with the `move` played or taken back) on the game as `known`,
    which now has `line` and `piles` (the caller checked the change), from the event loop: one
    conditional statement, as `append_move_if_unchanged`, sent on one of the loop's own connections
    (accordion_site/loop_db.py), and the event published as soon as it returns (it has committed by
    then). Return the event, or None when the game changed meanwhile; raise LoopConnectionsBusy when
    the loop has no connection free. `known` is left as it was."""
    v = known.version + 1
    event_id = await store.save_change_if_unchanged_from_loop(
        game_id=known.pk,
        player_id=known.player_id,
        version=known.version,
        status=Game.Status.PLAYING,
        changes={"moves": line, "piles": piles, "version": v},
        event={"game_id": known.pk, "v": v, "kind": kind, "move": list(move), "line": None, "piles": piles, "at": at},
    )
    if event_id is None:
        return None
    out = GameEventOut.build(game=known.pk, v=v, kind=kind, move=list(move), piles=piles, at=at)
    publish(out)
    return out


def _next_event(
    game: Game,
    *,
    kind: str,
    at: datetime.datetime,
    move: Sequence[int] | None,
    line: Sequence[Sequence[int]] | None,
) -> GameEvent:
    """The event of a change made to `game`, at the game's next version (set on the game)."""
    game.version += 1
    return GameEvent(
        game=game,
        v=game.version,
        kind=kind,
        move=list(move) if move is not None else None,
        line=[list(step) for step in line] if line is not None else None,
        piles=game.piles,
        at=at,
    )


def _appended(game: Game, event: GameEvent) -> GameEventOut:
    out = GameEventOut.of(event, result=finish_result(game) if event.kind == Kind.FINISH else None)
    # Inside the change's transaction, so a receiver's writes (a leaderboard row, say) commit or roll
    # back with the change.
    game_event_appended.send(sender=Game, game=game, event=event)
    transaction.on_commit(lambda: publish(out))
    return out


def events_after(*, game: Game, v: int, limit: int) -> list[GameEventOut] | None:
    """The stored events of `game` after version `v` up to the game's version as read (later ones reach
    the caller live), in order; None when more than `limit` are missing or `v` is not a version the game
    has had (the caller sends the whole state instead)."""
    if not 0 <= v <= game.version or game.version - v > limit:
        return None
    result = finish_result(game)
    return [
        GameEventOut.of(event, result=result if event.kind == Kind.FINISH else None)
        for event in GameEvent.objects.filter(game=game, v__gt=v, v__lte=game.version).order_by("v")
    ]


# --- publishing -------------------------------------------------------------------------------------

_publisher_lock = threading.Lock()
_publisher: _Publisher | None = None


class _Publisher:
    """Sends events to the channel layer from the event loop that serves this process's sockets, in
    the order their transactions committed, without making the committing thread wait for Redis."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[GameEventOut] = asyncio.Queue()
        self.task = loop.create_task(self._run())

    def put(self, event: GameEventOut) -> None:
        if _running_loop() is self.loop:
            self.queue.put_nowait(event)  # a statement sent from the loop itself (append_change_from_loop)
        else:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, event)

    async def _run(self) -> None:
        layer = get_channel_layer()
        while True:
            raise_if_stopping()  # a cancel that a send swallowed whole
            # Everything committed since the last send goes out together: one round trip to Redis,
            # however many events queued meanwhile (accordion_site/channel_layers.py).
            batch = [await self.queue.get()]
            while not self.queue.empty():
                batch.append(self.queue.get_nowait())
            try:
                await send_to_layer(layer, batch)
            except Exception:
                raise_if_stopping()
                # The events are stored; clients that missed them catch up by version.
                names = ", ".join(f"game {event.game} v{event.v}" for event in batch)
                log_background_failure(logger, "events could not be published: %s", names)


async def send_to_layer(layer: Any, batch: Sequence[GameEventOut]) -> None:
    await group_send_many(
        layer,
        [
            (group_name(event.game), {"type": EVENT_MESSAGE, "game": event.game, "v": event.v, "frame": event.frame})
            for event in batch
        ],
    )


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # a database thread
        return None


def start_publisher(loop: asyncio.AbstractEventLoop) -> None:
    """Publish from `loop` from now on (called by the hub when the first socket arrives)."""
    global _publisher
    with _publisher_lock:
        if _publisher is None or _publisher.loop is not loop or _publisher.loop.is_closed():
            _publisher = _Publisher(loop)


def stop_publisher() -> asyncio.Task[None] | None:
    """Forget the publisher and hand back its task for the caller to cancel."""
    global _publisher
    with _publisher_lock:
        publisher, _publisher = _publisher, None
    return publisher.task if publisher is not None else None


def publish(event: GameEventOut) -> None:
    """Send a committed event to the game's stream, once."""
    publisher = _publisher
    if publisher is not None and publisher.loop.is_running() and not publisher.loop.is_closed():
        publisher.put(event)
        return
    # No socket loop in this process (a management command, a sync test): send it from here.
    try:
        async_to_sync(send_to_layer)(get_channel_layer(), [event])
    except Exception:
        log_background_failure(logger, "game %s: event v%s could not be published", event.game, event.v)
