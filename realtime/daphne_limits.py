"""Two limits of Daphne's that its command line does not set.

- An oversized request body is refused (413) while it arrives, not after: Daphne buffers a whole body
  before Django's own limit is checked, so a few huge POSTs would grow a process for good.
- A client gets CLOSE_HANDSHAKE_S, less up to 1 s (autobahn's timers fall due on a whole second, rounded
  down), to answer the server's close frame: autobahn's 1 s reset busy browsers' connections, whose
  refusals (4403) then arrived as 1006.
"""

from __future__ import annotations

import json
from typing import Any

# A body up to this size is read; the API's own limit (64 KB) answers a clear JSON 413 below it.
MAX_BODY_BYTES = 256 * 1024
CLOSE_HANDSHAKE_S = 5.0
_REFUSAL = json.dumps({"error": "the request body is too large", "code": "too_large"}).encode()
# Written before Django runs, so the headers its middleware adds to every answer are written here.
_SECURITY_HEADERS = (
    b"X-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\nCache-Control: no-store\r\n"
    b"Content-Security-Policy: default-src 'none'; frame-ancestors 'none'\r\n"
)


def _refuse(request: Any) -> None:
    request._body_refused = True
    request.channel.transport.write(
        b"HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nConnection: close\r\n"
        + _SECURITY_HEADERS
        + f"Content-Length: {len(_REFUSAL)}\r\n\r\n".encode()
        + _REFUSAL
    )
    request.channel.transport.loseConnection()


def install() -> None:
    """Patch Daphne's request and WebSocket classes in this process (if Daphne is installed)."""
    try:
        from daphne.http_protocol import WebRequest
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:
        return
    if not getattr(WebSocketProtocol, "_close_handshake_installed", False):
        original_on_connect = WebSocketProtocol.onConnect

        def on_connect(self: Any, request: Any) -> Any:
            self.closeHandshakeTimeout = CLOSE_HANDSHAKE_S  # read when a close starts, from either side
            return original_on_connect(self, request)

        WebSocketProtocol.onConnect = on_connect
        WebSocketProtocol._close_handshake_installed = True
    if getattr(WebRequest, "_body_limit_installed", False):
        return
    original_got_length = WebRequest.gotLength
    original_content_chunk = WebRequest.handleContentChunk
    original_process = WebRequest.process

    def got_length(self: Any, length: int | None) -> None:
        self._body_received = 0
        self._body_refused = False
        original_got_length(self, length)
        if length is not None and length > MAX_BODY_BYTES:
            _refuse(self)

    def handle_content_chunk(self: Any, data: bytes) -> None:
        if getattr(self, "_body_refused", False):
            return  # the answer is sent; drop what is still in flight
        self._body_received = getattr(self, "_body_received", 0) + len(data)
        if self._body_received > MAX_BODY_BYTES:
            _refuse(self)
            return
        original_content_chunk(self, data)

    def process(self: Any) -> Any:
        if getattr(self, "_body_refused", False):
            return None  # answered already: no application is started for it
        return original_process(self)

    WebRequest.gotLength = got_length
    WebRequest.process = process
    WebRequest.handleContentChunk = handle_content_chunk
    WebRequest._body_limit_installed = True
