"""The whole API's request allowances (DEFAULT_THROTTLE_CLASSES): generous limits a real player never
meets, there to stop scripts. Views with tighter limits of their own add them to these, never in place
of them (`throttle_classes = [*APIView.throttle_classes, …]`).

Visitors who have not played are counted by client address (DRF's `get_ident`, which trusts NUM_PROXIES
entries of X-Forwarded-For), players by their player, so players behind one address (a school, an office)
do not share one count. A fresh guest is no way around the player count: new guests from one address are
themselves limited (games.throttles.GuestCreationThrottle).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import Player
from accounts.selectors import player_from_session


def request_player(request: Request) -> Player | None:
    """The session's player, looked up once per request however many throttles ask."""
    if not hasattr(request, "throttled_player"):
        request.throttled_player = player_from_session(request.session)  # type: ignore[attr-defined]
    return request.throttled_player  # type: ignore[attr-defined,no-any-return]


class SettingRateThrottle(SimpleRateThrottle):
    """A throttle whose rate is the setting named `rate_setting`, read on every request (so the setting
    has one source of truth, and tests may change it)."""

    rate_setting = ""

    def get_rate(self) -> str:
        return str(getattr(settings, self.rate_setting))

    def cache_key_for(self, ident: str) -> str:
        return self.cache_format % {"scope": self.scope, "ident": ident}


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
