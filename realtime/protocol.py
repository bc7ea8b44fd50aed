"""What every live socket shares on the wire: reading a client's frame (size, JSON, the sequence number
`n`), the per-socket message rate, and `outgoing(kind)`, which declares every message the server sends
(tests/realtime/test_protocol_docs.py checks OUTGOING against docs/api.md)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeGuard, TypeVar

from django.core.serializers.json import DjangoJSONEncoder
from django.utils.translation import gettext as _

F = TypeVar("F", bound=Callable[..., Any])

# Outgoing message kinds (the `t` clients read) → the builders that make them.
OUTGOING: dict[str, list[Callable[..., Any]]] = {}


def outgoing(kind: str) -> Callable[[F], F]:
    def declare(builder: F) -> F:
        OUTGOING.setdefault(kind, []).append(builder)
        return builder

    return declare


def encode(content: Any) -> str:
    return json.dumps(content, cls=DjangoJSONEncoder)


@outgoing("reject")
def reject(*, n: int | None, error: str, code: str) -> dict[str, Any]:
    """A client message refused (`n` names it; null for one that could not be read): nothing changed."""
    return {"t": "reject", "n": n, "error": error, "code": code}


@outgoing("refused")
def refused(*, error: str, code: str) -> dict[str, Any]:
    """Why the server will not serve this socket; sent after accepting it, just before the 4xxx close."""
    return {"t": "refused", "error": error, "code": code}


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


def is_int(value: object) -> TypeGuard[int]:
    return type(value) is int  # bool is not a move index or a sequence number


def is_whole(value: object) -> TypeGuard[int]:
    """A sequence number, version or id a client may send (fits a 32-bit column)."""
    return is_int(value) and 0 <= value < 2**31


def decode_frame(text: str | None) -> dict[str, Any]:
    """The JSON object in one text frame from a socket, else ProtocolError."""
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
    n = content.get("n")
    if not is_whole(n):
        raise ProtocolError(_("'n' must be a whole number (the message's sequence number)"))
    return n
