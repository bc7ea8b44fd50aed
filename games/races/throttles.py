"""Request allowances for race rooms, checked before a view runs."""

from __future__ import annotations

from django.conf import settings

from accordion_site.throttles import PlayerRateThrottle


class RoomCreateRateThrottle(PlayerRateThrottle):
    """New rooms: RACE_ROOMS_PER_MINUTE a minute per player (the counts live in the shared cache). A
    visitor's first room, which makes their guest, is counted only by the whole API's per-address
    ceiling (API_VISITOR_RATE), so people behind one address never share an allowance of rooms."""

    scope = "race_rooms"

    def get_rate(self) -> str:
        return f"{settings.RACE_ROOMS_PER_MINUTE}/min"
