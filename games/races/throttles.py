"""Request allowances for race rooms, checked before a view runs."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from accordion_site.throttles import request_player


class RoomCreateRateThrottle(SimpleRateThrottle):
    """New rooms: RACE_ROOMS_PER_MINUTE a minute per player, or per client address for a visitor who
    has not played (the counts live in the shared cache)."""

    scope = "race_rooms"

    def get_rate(self) -> str:
        return f"{settings.RACE_ROOMS_PER_MINUTE}/min"

    def get_cache_key(self, request: Request, view: Any) -> str:
        player = request_player(request)
        ident = f"player:{player.pk}" if player is not None else f"address:{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
