"""What a socket's handshake says, read from its ASGI scope."""

from __future__ import annotations

from typing import Any


def handshake_header(scope: dict[str, Any], name: bytes) -> str | None:
    """The value of the handshake's header `name` (lower case, as ASGI gives names), the last one if it
    came more than once; None without it."""
    found = None
    for key, value in scope.get("headers") or ():
        if key == name:
            found = value
    return None if found is None else found.decode("latin-1")
