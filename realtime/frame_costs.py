"""Two per-frame costs of autobahn (Daphne's WebSocket library) that serve nobody here.

- Every frame sent builds the arguments of a debug log line that is then discarded: the sending
  method's qualified name and two values, coloured with `click` when it is installed (it is wherever
  the development tools are). The debug line's helpers are swapped for ones that hand the value on
  as it is, so the line costs nothing unless autobahn's debug log is on (where it reads uncoloured).
- Every frame received is unmasked by a masker made for that frame: autobahn's native one allocates
  C buffers through cffi for a 40-byte move, its pure-Python one loops over the bytes. This one
  unmasks the payload as one integer XOR, keeping autobahn's interface (a running position, so a
  payload may arrive in pieces).

Together they were about a tenth of a web process's CPU in `bench/race.py` (py-spy;
docs/performance.md, "Daphne's floor").
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
    """Patch autobahn's WebSocket protocol in this process (a no-op where autobahn is not installed)."""
    try:
        from autobahn.websocket import protocol
    except ImportError:
        return
    patched: Any = protocol
    patched.hltype = patched.hlval = _as_is
    patched.create_xor_masker = XorMasker
