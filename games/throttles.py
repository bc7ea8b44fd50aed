"""Request allowances at the API edge, checked before a view runs."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

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
