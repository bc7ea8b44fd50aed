"""Request allowances at the API edge, checked before a view runs (on top of the whole API's, see
accordion_site/throttles.py)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from accordion_site.throttles import AddressRateThrottle, PlayerOrAddressRateThrottle, request_player


class SolverRateThrottle(PlayerOrAddressRateThrottle):
    """Hints, still-winnable checks and analyses run the solver: SOLVER_REQUESTS_PER_MINUTE of them a
    minute per player, or per client address for a visitor who has not played. The counts live in the
    cache, which every web process shares in production (Redis)."""

    scope = "solver"

    def get_rate(self) -> str:
        return f"{settings.SOLVER_REQUESTS_PER_MINUTE}/min"


class SolverAddressThrottle(AddressRateThrottle):
    """Solver requests from one client address, whichever players make them:
    SOLVER_REQUESTS_PER_MINUTE_PER_ADDRESS a minute. Each fresh guest brings a fresh player allowance, so
    without this one address could keep the solver pool busy and other players' hints would find it full."""

    scope = "solver_address"

    def get_rate(self) -> str:
        return f"{settings.SOLVER_REQUESTS_PER_MINUTE_PER_ADDRESS}/min"


class FinishRateThrottle(PlayerOrAddressRateThrottle):
    """Finishes replay a whole line: FINISH_RATE per player (a player finishes a game or two a minute)."""

    scope = "finish"
    rate_setting = "FINISH_RATE"


class GuestCreationThrottle(SimpleRateThrottle):
    """A visitor without a player becomes a new guest on their first start: the "guests" rate (a few
    an hour) per client address, so that fresh cookies do not buy fresh ranked attempts. Players who
    have a session are never counted here."""

    scope = "guests"

    def get_rate(self) -> str:
        return str(settings.GUEST_CREATION_RATE)

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request_player(request) is not None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def client_address(request: Request) -> str:
    """The client's address as the throttles see it: behind NUM_PROXIES trusted proxies, the entry of
    X-Forwarded-For they appended; otherwise the connection's own address, which a client cannot forge."""
    return BaseThrottle().get_ident(request)
