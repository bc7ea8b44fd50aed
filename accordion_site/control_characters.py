"""Control characters (NUL, the other C0 codes but tab, and DEL) are refused where a request comes in:
in its path, query string, headers and JSON body a 400 (a socket handshake: refused with 4400), and in
the session cookie a fresh anonymous session (accordion_site/sessions.py). No page, API call or socket
has a use for them, and PostgreSQL refuses a NUL in any text it is sent, so one that reached a query
(`/api/players/Guest%00`) was a 500 with a traceback.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse

from realtime.edges import ASGIApp, refuse

logger = logging.getLogger(__name__)

CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f]")
CLOSE_BAD_REQUEST = 4400
REFUSAL = "the request holds a control character"
# A bad session cookie is no reason to refuse a request: the session store starts a fresh session.
_COOKIE_HEADER = "HTTP_COOKIE"


def holds_control(text: str) -> bool:
    return CONTROL.search(text) is not None


def json_holds_control(value: Any) -> bool:
    """Whether any string in a parsed JSON value, key or value, holds a control character."""
    if isinstance(value, str):
        return holds_control(value)
    if isinstance(value, dict):
        return any(holds_control(key) or json_holds_control(item) for key, item in value.items())
    if isinstance(value, list):
        return any(json_holds_control(item) for item in value)
    return False


def _first_control(parts: Iterable[tuple[str, str]]) -> str | None:
    return next((where for where, text in parts if holds_control(text)), None)


class ControlCharactersRefused:
    """HTTP: a 400 (JSON under /api/, the error page elsewhere) for a control character in the path,
    the query string or a header."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        headers = ((name, str(value)) for name, value in request.META.items() if name.startswith("HTTP_"))
        where = _first_control(
            [
                ("path", request.path_info),
                ("query string", unquote(request.META.get("QUERY_STRING", ""))),
                *((name, value) for name, value in headers if name != _COOKIE_HEADER),
            ]
        )
        if where is not None:
            raise BadRequest(f"{REFUSAL} in its {where}")  # logged by Django as a bad request
        return self.get_response(request)


class SocketControlCharactersRefused:
    """Sockets: a handshake with a control character in its path, query string or a header is refused with
    4400, as the other refusals are (realtime/edges.py)."""

    def __init__(self, inner: ASGIApp) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        where = _first_control(
            [
                ("path", scope.get("path", "")),
                ("query string", unquote(scope.get("query_string", b"").decode("latin1"))),
                *(
                    (name.decode("latin1"), value.decode("latin1"))
                    for name, value in scope.get("headers", [])
                    if name.lower() != b"cookie"
                ),
            ]
        )
        if where is None:
            return await self.inner(scope, receive, send)
        logger.warning("socket refused: %s in its %s", REFUSAL, where)
        await refuse(receive, send, error=REFUSAL, code="bad_request", close_code=CLOSE_BAD_REQUEST)
        return None
