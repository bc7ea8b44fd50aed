"""Account attempts counted at the door: before Django, with the over-limit ones refused there.

Django runs each request's middleware and view in a thread of its own, and a sign-up, login or
password attempt reads a session and a player there. A burst of attempts from one address, most of
them past its allowance, sent to threads dozens at once, takes the interpreter from the event loop
that acknowledges players' moves. So the per-address allowances (accounts/throttles.py:
`accounts_address`, and `accounts_signup` for a sign-up) are counted here, from the event loop, and an
attempt past one is answered 429 at once, with the same body and Retry-After the API gives; one within
them goes on to its view marked as counted, and its view counts only the pair (address, account),
which needs the body.
"""

from __future__ import annotations

import json
import math
from io import BytesIO
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

from accordion_site.api_errors import logger
from accordion_site.languages import local_number
from accordion_site.throttles import RateThrottle, parse_rate, window_count

from .throttles import COUNTED_AT_THE_DOOR, AccountAddressThrottle, SignupAddressThrottle

ASGIApp = Any


def _doors() -> dict[str, list[RateThrottle]]:
    """Each attempt's path with the per-address allowances its view counts."""
    address = AccountAddressThrottle()
    attempts = ("api-accounts-login", "api-accounts-password", "api-accounts-delete")
    return {
        reverse("api-accounts-signup"): [address, SignupAddressThrottle()],
        **{reverse(name): [address] for name in attempts},
    }


async def counted_at_the_door(request: ASGIRequest, throttles: list[RateThrottle]) -> float | None:
    """Count the attempt against each of `throttles` (per-address allowances), as their views would; return
    the seconds until the latest spent one starts again, or None when none is spent."""

    def count() -> float | None:
        ident = throttles[0].get_ident(request)  # type: ignore[arg-type]  # reads only headers and META
        waits = []
        for throttle in throttles:
            allowed, period = parse_rate(throttle.get_rate())
            number, seconds_left = window_count(throttle.cache_key_for(ident), period=period)
            if number > allowed:
                waits.append(max(1.0, seconds_left))
        return max(waits, default=None)

    # A few cache round trips on a pool thread, not a request thread for middleware, session and view.
    return await sync_to_async(count, thread_sensitive=False)()


class AttemptsCountedAtTheDoor:
    """ASGI: a POST to an account attempt is counted against its address's allowances here; past one, it
    gets the API's 429 at once, else it goes on to Django marked as counted (COUNTED_AT_THE_DOOR in its scope)."""

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
                    seconds = await counted_at_the_door(request, throttles)
                except (RedisError, OSError):
                    seconds = None  # the cache is out: the view counts, and answers as it does in an outage
                else:
                    scope[COUNTED_AT_THE_DOOR] = {throttle.scope for throttle in throttles}
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
