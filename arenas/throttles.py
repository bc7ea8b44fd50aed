"""Request allowances for arenas, checked before a view runs."""

from __future__ import annotations

from django.conf import settings

from accordion_site.throttles import PlayerRateThrottle


class ArenaCreateRateThrottle(PlayerRateThrottle):
    """New arenas: ARENAS_PER_HOUR an hour per player (the counts live in the shared cache); a visitor's
    first arena, which makes their guest, is counted by the whole API's per-address ceiling."""

    scope = "arenas"

    def get_rate(self) -> str:
        return f"{settings.ARENAS_PER_HOUR}/hour"
