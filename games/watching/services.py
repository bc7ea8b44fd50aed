"""Writes of the watching feature: a player's "let others watch my games" setting."""

from __future__ import annotations

import logging

from django.db import transaction

from accounts.models import Player

logger = logging.getLogger(__name__)


@transaction.atomic
def player_watchable_set(*, player: Player, watchable: bool) -> Player:
    """Let others watch the player's games live, or not. Games already being watched stay watched
    until those watchers leave; new watchers are refused and the live list drops the games."""
    player.watchable = watchable
    player.save(update_fields=["watchable"])
    logger.info("player %s: watchable=%s", player.pk, watchable)
    return player
