"""The whole API's request allowances (DEFAULT_THROTTLE_CLASSES): generous limits a real player never
meets, there to stop scripts. Views with tighter limits of their own add them to these, never in place
of them (`throttle_classes = [*APIView.throttle_classes, …]`).

Visitors who have not played are counted by client address (DRF's `get_ident`, which trusts NUM_PROXIES
entries of X-Forwarded-For), players by their player, so players behind one address (a school, an office)
do not share one count. A visitor's first request, which creates their guest, meets only the per-address
flood ceiling (API_VISITOR_RATE), far above what any crowd behind one address sends (docs/fair-play.md).

Every allowance is counted atomically in the shared cache (`RateThrottle`), so a burst of concurrent
requests gets exactly the allowance and no more.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.cache import cache, caches
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from accordion_site.cache import ProcessRedisCache
from accounts.models import Player
from accounts.selectors import player_from_session


def request_player(request: Request) -> Player | None:
    """The session's player, looked up once per request however many throttles (and the view) ask."""
    if not hasattr(request, "throttled_player"):
        request.throttled_player = player_from_session(request.session)  # type: ignore[attr-defined]
    return request.throttled_player  # type: ignore[attr-defined,no-any-return]


PERIODS = {"s": 1, "m": 60, "h": 60 * 60, "d": 24 * 60 * 60}


def parse_rate(rate: str) -> tuple[int, int]:
    """A DRF rate ("20/minute", "6/hour", "30/min") as (requests, period in seconds)."""
    number, period = rate.split("/")
    return int(number), PERIODS[period[0]]


def window_count(key: str, *, period: int) -> tuple[int, float]:
    """Add one to `key`'s count in the shared cache and return the new count with the seconds left in its
    window. A window starts with the first count when none is running and lasts `period` seconds.

    Atomic: the count is the cache's own increment (Redis INCR; a lock in the in-process cache), so each
    of many concurrent callers gets a count of its own and exactly as many as allowed see one within
    the allowance. A read-modify-write (DRF's SimpleRateThrottle keeps a list of times) lets a burst
    read the same list and pass together: 60 concurrent logins had 38 passwords checked against 20.
    On Redis one script counts in one round trip (`ProcessRedisCache.count_in_window`)."""
    backend = caches["default"]
    if isinstance(backend, ProcessRedisCache):
        return backend.count_in_window(f"{key}:n", period=period)
    return count_with_cache_calls(key, period=period)


def count_with_cache_calls(key: str, *, period: int) -> tuple[int, float]:
    """`window_count` with any cache's own add, increment and get (the in-process cache's way)."""
    counter, started = f"{key}:n", f"{key}:t"
    now = time.time()
    if cache.add(counter, 0, timeout=period):
        cache.set(started, now, timeout=period)
    try:
        count = cache.incr(counter)
    except ValueError:  # the window ended between the two calls: this count starts the next one
        cache.add(counter, 0, timeout=period)
        cache.set(started, now, timeout=period)
        count = cache.incr(counter)
    if count == 1:
        # Either ours from `add`, or Redis's INCR made the key afresh (it ended between Django's
        # EXISTS and INCR) and with no expiry: (re)set it, or this count would never start again.
        cache.touch(counter, timeout=period)
    return count, max(0.0, float(cache.get(started, now)) + period - now)


class RateThrottle(BaseThrottle):
    """At most a rate ("20/minute": N per second, minute, hour or day) of requests per key
    (`get_cache_key`; None = not counted), counted with `window_count`. A refused request counts too,
    and never lengthens its window: a client that keeps trying is let in again when the window ends."""

    scope = ""
    cache_format = "throttle_%(scope)s_%(ident)s"

    def get_rate(self) -> str:
        """The rate of `scope` in REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], read on every request."""
        return str(api_settings.DEFAULT_THROTTLE_RATES[self.scope])

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        raise NotImplementedError

    def cache_key_for(self, ident: str) -> str:
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request: Request, view: Any) -> bool:
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        allowed, period = parse_rate(self.get_rate())
        count, self.seconds_left = window_count(key, period=period)
        return count <= allowed

    def wait(self) -> float:
        """Seconds until the window ends and the count starts again (Retry-After)."""
        return max(1.0, self.seconds_left)


class SettingRateThrottle(RateThrottle):
    """A throttle whose rate is the setting named `rate_setting`, read on every request (so the setting
    has one source of truth, and tests may change it)."""

    rate_setting = ""

    def get_rate(self) -> str:
        return str(getattr(settings, self.rate_setting))


class VisitorRateThrottle(SettingRateThrottle):
    """Requests of visitors who have not played, per client address: API_VISITOR_RATE."""

    scope = "api_visitor"
    rate_setting = "API_VISITOR_RATE"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return None if request_player(request) is not None else self.cache_key_for(self.get_ident(request))


class PlayerRateThrottle(SettingRateThrottle):
    """Requests of a player (a guest or an account), per player: API_PLAYER_RATE."""

    scope = "api_player"
    rate_setting = "API_PLAYER_RATE"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        player = request_player(request)
        return None if player is None else self.cache_key_for(f"player:{player.pk}")


class PlayerOrAddressRateThrottle(SettingRateThrottle):
    """One count per player, or per client address for a visitor who has not played."""

    def get_cache_key(self, request: Request, view: Any) -> str:
        player = request_player(request)
        return self.cache_key_for(f"player:{player.pk}" if player is not None else f"address:{self.get_ident(request)}")


class AddressRateThrottle(SettingRateThrottle):
    """One count per client address, whoever asks from it."""

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_key_for(self.get_ident(request))
