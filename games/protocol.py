"""Typed messages at the socket edge: what a client may send, and what the server answers.

The consumer turns raw text into one of these (or a ProtocolError with a reason) before any service
runs, so the services never see junk from the wire.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from realtime.protocol import ProtocolError, decode_frame, is_int, is_whole, outgoing, sequence_number

# The kinds a player's socket takes (docs/api.md).
CLIENT_KINDS = ("move", "undo", "sync")


@dataclass(frozen=True, slots=True)
class MoveMessage:
    n: int
    move: tuple[int, int]


@dataclass(frozen=True, slots=True)
class UndoMessage:
    n: int


@dataclass(frozen=True, slots=True)
class SyncMessage:
    """The client saw a gap in the versions it received: send what follows version `v`."""

    n: int
    v: int


ClientMessage = MoveMessage | UndoMessage | SyncMessage


def parse_client_message(text: str | None) -> ClientMessage:
    """Parse one text frame from a player's socket; raise ProtocolError saying what is wrong."""
    content = decode_frame(text)
    n = sequence_number(content)
    kind = content.get("t")
    if kind == "move":
        move = content.get("move")
        if not isinstance(move, list) or len(move) != 2 or not all(is_int(index) for index in move):
            raise ProtocolError(_("'move' must be [from, to], two whole numbers"), n=n, code="illegal_move")
        return MoveMessage(n=n, move=(move[0], move[1]))
    if kind == "undo":
        return UndoMessage(n=n)
    if kind == "sync":
        v = content.get("v")
        if not is_whole(v):
            raise ProtocolError(_("'v' must be a whole number (the last version the client has)"), n=n)
        return SyncMessage(n=n, v=v)
    raise ProtocolError(
        _("unknown message type %(type)r: use 'move', 'undo' or 'sync'") % {"type": kind}, n=n, code="unknown_type"
    )


@outgoing("ack")
def ack(*, n: int, version: int, piles: int, status: str, result: dict[str, Any] | None) -> dict[str, Any]:
    """A message applied and stored: the game's new version, piles and status (and result, once over)."""
    return {"t": "ack", "n": n, "v": version, "piles": piles, "status": status, "result": result}


@outgoing("state")
def state(*, game: dict[str, Any], version: int) -> dict[str, Any]:
    """The whole game, for a client too far behind (or new) to catch up event by event."""
    return {"t": "state", "v": version, "game": game}
