"""Request allowances at the API edge, checked before a view runs."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from accounts.selectors import player_from_session


class SolverRateThrottle(SimpleRateThrottle):
    """Hints, still-winnable checks and analyses run the solver: SOLVER_REQUESTS_PER_MINUTE of them a
    minute per player, or per client address for a visitor who has not played. The counts live in the
    cache, which every web process shares in production (Redis)."""

    scope = "solver"

    def get_rate(self) -> str:
        # Read on every request rather than fixed at import, so the setting has one source of truth.
        return f"{settings.SOLVER_REQUESTS_PER_MINUTE}/min"

    def get_cache_key(self, request: Request, view: Any) -> str:
        player = player_from_session(request.session)
        ident = f"player:{player.pk}" if player is not None else f"address:{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}


class GuestCreationThrottle(SimpleRateThrottle):
    """A visitor without a player becomes a new guest on their first start: the "guests" rate (a few
    an hour) per client address, so that fresh cookies do not buy fresh ranked attempts. Players who
    have a session are never counted here."""

    scope = "guests"

    def get_rate(self) -> str:
        return str(settings.GUEST_CREATION_RATE)

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if player_from_session(request.session) is not None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def client_address(request: Request) -> str:
    """The client's address as the throttles see it: behind NUM_PROXIES trusted proxies, the entry of
    X-Forwarded-For they appended; otherwise the connection's own address, which a client cannot forge."""
    return BaseThrottle().get_ident(request)
