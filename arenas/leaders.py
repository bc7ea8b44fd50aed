"""The leaders of the arenas being played, for TV (frontend/tv.py): each live arena's first place's
newest game, the busiest arena first."""

from __future__ import annotations

import datetime

from django.db.models import Count, OuterRef, Subquery

from .models import Arena, Participant


def live_leader_games(*, now: datetime.datetime) -> list[int]:
    """The newest game of each live arena's leader (most points, then whoever reached them first), the
    arenas with the most players first; one query."""
    leader = Participant.objects.filter(arena=OuterRef("pk")).order_by("-points", "reached_at", "id")
    arenas = (
        Arena.objects.filter(starts_at__lte=now, ends_at__gt=now)
        .annotate(players=Count("participants"), leader_game=Subquery(leader.values("game_id")[:1]))
        .filter(leader_game__isnull=False)
        .order_by("-players", "ends_at", "id")
    )
    return list(arenas.values_list("leader_game", flat=True))
