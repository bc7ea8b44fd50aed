"""Over-limit account attempts refused at the door: before Django, on the event loop.

Django runs each request's middleware and view in a thread of its own, and a sign-up, login or
password attempt reads a session and a player there before its allowance is counted. A burst of
attempts from an address whose allowance is spent would be refused anyway; sent to threads, dozens at
once, they take the interpreter from the event loop that acknowledges players' moves. So an attempt
from an address whose count is already over its allowance is answered 429 here, with the same body
and Retry-After the API gives.

The per-address counts (accounts/throttles.py) are only read here, never counted: the pair
(address, account) needs the body, and an attempt under the address's allowance is counted by its
view as any other.
"""

from __future__ import annotations

import json
import math
import time
from io import BytesIO
from typing import Any

from django.core.cache import cache
from django.core.handlers.asgi import ASGIRequest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

from accordion_site.api_errors import logger
from accordion_site.languages import local_number
from accordion_site.throttles import RateThrottle, parse_rate

from .throttles import AccountAddressThrottle, SignupAddressThrottle

ASGIApp = Any


def _doors() -> dict[str, list[RateThrottle]]:
    """Each attempt's path with the per-address allowances its view counts."""
    address = AccountAddressThrottle()
    attempts = ("api-accounts-login", "api-accounts-password", "api-accounts-delete")
    return {
        reverse("api-accounts-signup"): [address, SignupAddressThrottle()],
        **{reverse(name): [address] for name in attempts},
    }


async def seconds_refused(request: ASGIRequest, throttles: list[RateThrottle]) -> float | None:
    """Seconds until the first spent allowance among `throttles` starts again; None while none is spent."""
    ident = throttles[0].get_ident(request)  # type: ignore[arg-type]  # reads only headers and META
    keys = [throttle.cache_key_for(ident) for throttle in throttles]
    # The cache's async API: a short hop for two reads per allowance, not a thread for the whole request.
    values = await cache.aget_many([f"{key}:{part}" for key in keys for part in ("n", "t")])
    now = time.time()
    for throttle, key in zip(throttles, keys, strict=True):
        allowed, period = parse_rate(throttle.get_rate())
        if values.get(f"{key}:n", 0) >= allowed:
            return max(1.0, float(values.get(f"{key}:t", now)) + period - now)
    return None


class OverLimitAttemptsRefused:
    """ASGI: a POST to an account attempt from an address past its allowance gets the API's 429 at once."""

    def __init__(self, inner: ASGIApp) -> None:
        self.inner = inner
        self.doors: dict[str, list[RateThrottle]] | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "http" and scope.get("method") == "POST":
            if self.doors is None:
                self.doors = _doors()  # the URLconf is ready once the first request arrives
            throttles = self.doors.get(scope.get("path", ""))
            if throttles is not None:
                request = ASGIRequest(scope, BytesIO())
                try:
                    seconds = await seconds_refused(request, throttles)
                except (RedisError, OSError):
                    seconds = None  # the cache is out: the view answers as it does in an outage
                if seconds is not None:
                    return await _refuse(request, send, seconds=math.ceil(seconds))
        return await self.inner(scope, receive, send)


async def _refuse(request: ASGIRequest, send: Any, *, seconds: int) -> None:
    with translation.override(translation.get_language_from_request(request)):
        message = _("too many requests: try again in %(seconds)s seconds") % {"seconds": local_number(seconds)}
        language = translation.get_language()
    logger.warning("%s %s refused (rate_limited): %s", request.method, request.path, message)
    body = json.dumps({"error": message, "code": "rate_limited"}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"content-language", language.encode()),
        (b"retry-after", str(seconds).encode()),
        (b"cache-control", b"no-store"),
        (b"x-content-type-options", b"nosniff"),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})
