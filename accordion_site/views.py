"""Site-wide views: the health check a load balancer polls, and the error answers of the API.

Under /api/ every error is JSON in the API's shape ({"error", "code"}); pages get the site's error pages.
A database or Redis outage is a 503 "try again" (with Retry-After), never a 500: nothing was half
written, since every write is one transaction.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import redis
import redis.asyncio
from asgiref.sync import markcoroutinefunction
from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.template.loader import render_to_string
from django.utils.deprecation import MiddlewareMixin
from django.views import defaults

from .db import db_call
from .errors import OUTAGES

RETRY_AFTER_S = 5


def _database_ping() -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        connection.close()  # give the connection back to the pool; the next call takes one afresh


async def _redis_ping() -> None:
    client = redis.asyncio.Redis.from_url(settings.REDIS_URL, socket_timeout=settings.HEALTH_CHECK_TIMEOUT_S)
    try:
        await client.ping()
    finally:
        await client.aclose()


async def _timed(check: Awaitable[None]) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        await asyncio.wait_for(check, timeout=settings.HEALTH_CHECK_TIMEOUT_S)
    except (TimeoutError, DatabaseError, redis.RedisError, OSError) as error:
        return {"ok": False, "ms": round((time.perf_counter() - started) * 1000, 1), "error": type(error).__name__}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}


async def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database (and Redis, when the site uses it) answer within the time limit, else 503;
    the body gives each one's answer time in milliseconds."""
    names = ["database"]
    checks: list[Awaitable[dict[str, Any]]] = [_timed(db_call(_database_ping)())]
    if settings.REDIS_URL:
        names.append("redis")
        checks.append(_timed(_redis_ping()))
    results = dict(zip(names, await asyncio.gather(*checks), strict=True))
    healthy = all(result["ok"] for result in results.values())
    response = JsonResponse({"status": "ok" if healthy else "unavailable", "checks": results})
    response.status_code = 200 if healthy else 503
    response["Cache-Control"] = "no-store"
    return response


class HealthCheckFirst:
    """Serves `/healthz` (it has no URL route: this is its one way in), before the middleware that
    checks the Host: a load balancer polls each process
    by its own address, which is no name in ALLOWED_HOSTS (and over plain HTTP: SECURE_REDIRECT_EXEMPT
    keeps the HTTPS redirect away too)."""

    sync_capable = False
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Awaitable[HttpResponse]]) -> None:
        self.get_response = get_response
        markcoroutinefunction(self)

    async def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == "/healthz":
            return await healthz(request)
        return await self.get_response(request)


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _api_error(*, message: str, code: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message, "code": code}, status=status)


def service_unavailable(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        response: HttpResponse = _api_error(
            message="the service is briefly unavailable: try again in a few seconds", code="unavailable", status=503
        )
    else:
        response = HttpResponse(
            "Accordion Live is briefly unavailable. Try again in a few seconds.",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """Django calls this inside the `except` of an unhandled exception, so the exception is at hand: an
    outage is a 503, anything else a 500 that says nothing about the settings."""
    if isinstance(sys.exc_info()[1], OUTAGES):
        return service_unavailable(request)
    if _is_api(request):
        return _api_error(message="the server failed; the error is logged", code="server_error", status=500)
    return defaults.server_error(request)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return _api_error(message="no such endpoint", code="not_found", status=404)
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return _api_error(message="bad request", code="bad_request", status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return _api_error(message="not allowed", code="forbidden", status=403)
    return defaults.permission_denied(request, exception)


class MethodNotAllowedPage(MiddlewareMixin):
    """Django's `require_POST`, `require_safe`… answer a method a page does not take with a bare 405 and no
    body, which a browser shows as a blank page or one of its own, in its own words. Such a 405 becomes the
    site's 405 page, in the visitor's language, its `Allow` header kept. (The API's views are REST
    framework's, whose 405 is already JSON in the API's shape.)"""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if not isinstance(response, HttpResponseNotAllowed) or response.content:
            return response
        page = HttpResponse(render_to_string("405.html", request=request), status=405)
        page["Allow"] = response["Allow"]
        return page
