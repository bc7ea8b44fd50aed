"""Structured logs: every line written while serving a request or a socket names its request id, player
and game, so that one player's trouble can be followed across processes.

The ids live in context variables: a request's middleware or a socket's ASGI middleware sets them once,
and the tasks and database threads that work for it inherit them (asgiref copies the context).
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse

from .handshake import handshake_header

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
player_id: ContextVar[int | None] = ContextVar("player_id", default=None)
game_id: ContextVar[int | None] = ContextVar("game_id", default=None)

# A request id a proxy may pass on (nginx: $request_id); anything else is replaced by a fresh one.
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")
_GAME_SOCKET_PATH = re.compile(r"^/ws/(?:games|watch)/(\d{1,18})/")
_CONTEXT_FIELDS = ("request_id", "player_id", "game_id")
_LOG_RECORD_FIELDS = frozenset(vars(logging.makeLogRecord({}))) | frozenset(_CONTEXT_FIELDS)


class ContextFilter(logging.Filter):
    """Copies the current request id, player and game onto each record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        record.player_id = player_id.get()
        record.game_id = game_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, the context ids, and a traceback if any."""

    converter = time.gmtime  # type: ignore[assignment]  # UTC times; the stubs want the one-argument form

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in _CONTEXT_FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        extra = {key: value for key, value in vars(record).items() if key not in _LOG_RECORD_FIELDS}
        for key, value in extra.items():
            line.setdefault(key, value if isinstance(value, int | float | str | bool) else repr(value))
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def _incoming_request_id(value: str | None) -> str:
    return value if value and _REQUEST_ID.match(value) else uuid.uuid4().hex


access_logger = logging.getLogger("accordion_site.access")


def _log_access(request: HttpRequest, response: HttpResponse, started: float) -> None:
    """One line a request, in the site's log format (Daphne's own access log is plain text, and off)."""
    ms = round((time.perf_counter() - started) * 1000, 1)
    access_logger.info(
        "%s %s %s", request.method, request.path, response.status_code, extra={"status": response.status_code, "ms": ms}
    )


def _start_request_context(request: HttpRequest) -> str:
    """Set the request's id and clear the player and game a request before it on the same thread or
    task may have left (one that never reaches a view, a 404 or /healthz, sets neither); return the id."""
    player_id.set(None)
    game_id.set(None)
    request_id.set(answer_id := _incoming_request_id(request.headers.get("X-Request-ID")))
    return answer_id


class RequestLogMiddleware:
    """Sets the request id (the proxy's `X-Request-ID`, or a new one), the session's player and, once the
    view is known, the game; answers with `X-Request-ID` so a report can quote it, and logs the request
    with its status and duration."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._acall(request)
        started = time.perf_counter()
        answer_id = _start_request_context(request)
        response: HttpResponse = self.get_response(request)
        response["X-Request-ID"] = answer_id
        _log_access(request, response, started)
        return response

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        answer_id = _start_request_context(request)
        response: HttpResponse = await self.get_response(request)
        response["X-Request-ID"] = answer_id
        _log_access(request, response, started)
        return response

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]) -> None:
        # After the session middleware: the player id is in the session, so no query is needed.
        from accounts.selectors import SESSION_PLAYER_KEY

        session = getattr(request, "session", None)
        player = session.get(SESSION_PLAYER_KEY) if session is not None else None
        player_id.set(player if isinstance(player, int) else None)
        game = kwargs.get("game_id", kwargs.get("pk"))
        game_id.set(game if isinstance(game, int) else None)


class SocketLogContext:
    """ASGI middleware for sockets (inside SocketPlayerMiddleware): the socket's task and everything it starts
    log with a request id of its own, its player and the game its path names."""

    def __init__(self, inner: Callable[..., Awaitable[Any]]) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        request_id.set(_incoming_request_id(handshake_header(scope, b"x-request-id")))
        player = scope.get("player")
        player_id.set(getattr(player, "pk", None))
        match = _GAME_SOCKET_PATH.match(scope.get("path", ""))
        game_id.set(int(match.group(1)) if match else None)
        return await self.inner(scope, receive, send)
