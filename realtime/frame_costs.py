"""Two per-frame costs of autobahn (Daphne's WebSocket library) that serve nobody here, together about a
tenth of a web process's CPU in bench/race.py (docs/performance.md, "Daphne's floor"):

- every frame sent builds (and colours) the arguments of a debug log line that is then discarded;
- every frame received is unmasked by a masker made for it; this one is one integer XOR.
"""

from __future__ import annotations

from typing import Any


def _as_is(value: Any, *args: Any, **kwargs: Any) -> Any:
    return value


class XorMasker:
    """Unmask (or mask) a payload with a frame's 4-byte key, from the payload's current position."""

    __slots__ = ("key", "position")

    def __init__(self, mask: bytes, length: int | None = None) -> None:
        self.key = bytes(mask)
        self.position = 0

    def pointer(self) -> int:
        return self.position

    def reset(self) -> None:
        self.position = 0

    def process(self, data: bytes) -> bytes:
        size = len(data)
        shift = self.position & 3
        self.position += size
        key = (self.key[shift:] + self.key[:shift]) * (size // 4 + 1)
        masked = int.from_bytes(data, "little") ^ int.from_bytes(key[:size], "little")
        return masked.to_bytes(size, "little")


def install() -> None:
    """Patch autobahn's WebSocket protocol in this process (if autobahn is installed)."""
    try:
        from autobahn.websocket import protocol
    except ImportError:
        return
    patched: Any = protocol
    patched.hltype = patched.hlval = _as_is
    patched.create_xor_masker = XorMasker
