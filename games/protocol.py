"""Typed messages at the socket edge: what a client may send, and what the server answers.

The consumer turns raw text into one of these (or a ProtocolError with a reason) before any service
runs, so the services never see junk from the wire.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from django.utils.translation import gettext as _

# A move message is about 40 bytes; anything near this is junk or abuse.
MAX_MESSAGE_BYTES = 1024


# A person taps a few times a second; a client replaying queued moves after a reconnect sends bursts.
MESSAGES_PER_SECOND = 20.0
MESSAGE_BURST = 60


@dataclass(slots=True)
class MessageRate:
    """A token bucket per socket: `per_second` messages a second on average, `burst` at once."""

    per_second: float = MESSAGES_PER_SECOND
    burst: int = MESSAGE_BURST
    clock: Callable[[], float] = time.monotonic
    tokens: float = field(init=False)
    last: float = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)
        self.last = self.clock()

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(float(self.burst), self.tokens + (now - self.last) * self.per_second)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class ProtocolError(ValueError):
    def __init__(self, reason: str, *, n: int | None = None, code: str = "bad_message") -> None:
        super().__init__(reason)
        self.reason = reason
        self.n = n
        self.code = code


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


def _is_int(value: object) -> TypeGuard[int]:
    return type(value) is int  # bool is not a move index or a sequence number


def is_whole(value: object) -> TypeGuard[int]:
    """A whole number a client may send as a sequence number, version or id (fits a 32-bit column)."""
    return _is_int(value) and 0 <= value < 2**31


def decode_frame(text: str | None) -> dict[str, Any]:
    """The JSON object in one text frame from a socket; raise ProtocolError if it is not one or is too large."""
    if text is None:
        raise ProtocolError(_("send JSON text frames, not binary"))
    if len(text) > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            _("message too large: %(size)s characters, at most %(limit)s")
            % {"size": len(text), "limit": MAX_MESSAGE_BYTES},
            code="too_large",
        )
    try:
        content: Any = json.loads(text)
    except RecursionError:  # e.g. a thousand "[": deeper than Python's parser goes, still just bad input
        raise ProtocolError(_("malformed JSON: nested too deeply")) from None
    except ValueError:
        raise ProtocolError(_("malformed JSON")) from None
    if not isinstance(content, dict):
        raise ProtocolError(_("a message is a JSON object with a type field 't'"))
    return content


def sequence_number(content: dict[str, Any]) -> int:
    """The message's 'n', which every client message carries so its answer can name it."""
    n = content.get("n")
    if not is_whole(n):
        raise ProtocolError(_("'n' must be a whole number (the message's sequence number)"))
    return n


def parse_client_message(text: str | None) -> ClientMessage:
    """Parse one text frame from a player's socket; raise ProtocolError saying what is wrong."""
    content = decode_frame(text)
    n = sequence_number(content)
    kind = content.get("t")
    if kind == "move":
        move = content.get("move")
        if not isinstance(move, list) or len(move) != 2 or not all(_is_int(index) for index in move):
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


def ack(*, n: int, version: int, piles: int, status: str, result: dict[str, Any] | None) -> dict[str, Any]:
    return {"t": "ack", "n": n, "v": version, "piles": piles, "status": status, "result": result}


def reject(*, n: int | None, error: str, code: str) -> dict[str, Any]:
    return {"t": "reject", "n": n, "error": error, "code": code}


def refused(*, error: str, code: str) -> dict[str, Any]:
    """Why the server will not serve this socket; sent after accepting it, just before the 4xxx close."""
    return {"t": "refused", "error": error, "code": code}


def state(*, game: dict[str, Any], version: int) -> dict[str, Any]:
    """The whole game, for a client too far behind (or new) to catch up event by event."""
    return {"t": "state", "v": version, "game": game}
