"""Request allowances at the API edge, checked before a view runs (on top of the whole API's, see
accordion_site/throttles.py)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from accordion_site.api_errors import Throttled
from accordion_site.throttles import AddressRateThrottle, PlayerOrAddressRateThrottle, PlayerRateThrottle


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


class GameStartRateThrottle(PlayerRateThrottle):
    """Game starts: GAME_START_RATE per player (someone skipping deals with "New game" starts one every
    few seconds). A visitor's first start, which makes their guest, is counted only by the whole API's
    per-address ceiling (API_VISITOR_RATE): people behind one address each get their own allowance."""

    scope = "game_start"
    rate_setting = "GAME_START_RATE"

    def allow_request(self, request: Request, view: Any) -> bool:
        if not super().allow_request(request, view):
            raise Throttled(self.wait(), what=gettext("too many new games"))
        return True


def client_address(request: Request) -> str:
    """The client's address as the throttles see it: behind NUM_PROXIES trusted proxies, the entry of
    X-Forwarded-For they appended; otherwise the connection's own address, which a client cannot forge."""
    return BaseThrottle().get_ident(request)
