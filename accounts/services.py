"""Writes about players."""

from __future__ import annotations

import secrets

from django.contrib.sessions.backends.base import SessionBase
from django.db import transaction

from .models import Player
from .selectors import SESSION_PLAYER_KEY, player_from_session


@transaction.atomic
def player_for_session(*, session: SessionBase) -> Player:
    """The session's player, creating a guest (with a nickname such as "Guest 4821") on first play."""
    player = player_from_session(session)
    if player is None:
        player = Player.objects.create(nickname=f"Guest {secrets.randbelow(9000) + 1000}")
        session[SESSION_PLAYER_KEY] = player.pk
        session.save()
    return player
