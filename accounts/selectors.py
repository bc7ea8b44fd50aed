"""Reads about players."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .models import Player

SESSION_PLAYER_KEY = "player_id"


def player_from_session(session: Mapping[str, Any]) -> Player | None:
    """The player this session belongs to, or None for a visitor who has not played yet."""
    player_id = session.get(SESSION_PLAYER_KEY)
    if not isinstance(player_id, int):
        return None
    return Player.objects.filter(pk=player_id).first()
