"""Reads about players: who a session is, and who a nickname names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.db.models import Q
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _

from .errors import PlayerNotFound
from .models import Player
from .nicknames import NICKNAME_KEY_MAX_LENGTH, SET_APART, nickname_folded, nickname_key

SESSION_PLAYER_KEY = "player_id"


def _session_is_logged_in_as(session: Mapping[str, Any], user: Any) -> bool:
    """Whether the session holds a valid Django login of `user` (as django.contrib.auth.get_user decides:
    a password change elsewhere ends the session's login)."""
    if not user.is_active or session.get(SESSION_KEY) != str(user.pk):
        return False
    session_hash = session.get(HASH_SESSION_KEY) or ""
    hashes = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
    return any(constant_time_compare(session_hash, known) for known in hashes)


def player_from_session(session: Mapping[str, Any]) -> Player | None:
    """The player this session belongs to, or None for a visitor who has not played yet.

    An account's player belongs only to a session logged in to that account, so logging out, or a
    password change on another device, takes the player away from every other session."""
    player_id = session.get(SESSION_PLAYER_KEY)
    if not isinstance(player_id, int):
        return None
    player = Player.objects.select_related("user").filter(pk=player_id).first()
    if player is not None and player.user is not None and not _session_is_logged_in_as(session, player.user):
        return None
    return player


def session_player(session: Mapping[str, Any]) -> Player:
    """The player this session belongs to; PlayerNotFound for a visitor who has not played yet."""
    player = player_from_session(session)
    if player is None:
        raise PlayerNotFound(_("you have not played yet: start a game, sign up or log in"))
    return player


def player_is_referenced(*, player: Player) -> bool:
    """Whether any row (a game, a race seat, …) still names the player."""
    return any(
        relation.field.model._default_manager.filter(**{relation.field.name: player}).exists()
        for relation in Player._meta.related_objects
    )


def player_by_nickname(*, nickname: str) -> Player | None:
    """The player with this nickname, compared as the nickname rule compares (case, look-alikes).

    Players set apart by migration accounts/0005 share their key with an older player: of those, the one
    whose nickname is spelt as `nickname` (whatever its case) is found, else the key's holder, else the
    first set apart, so a set-apart player still logs in with their nickname and no one else can take it."""
    key = nickname_key(nickname)
    if len(key) > NICKNAME_KEY_MAX_LENGTH:
        return None
    players = Player.objects.filter(Q(nickname_key=key) | Q(nickname_key__startswith=f"{key}{SET_APART}"))
    spelt = nickname_folded(nickname)
    return min(
        players,
        key=lambda player: (nickname_folded(player.nickname) != spelt, player.nickname_key != key, player.pk),
        default=None,
    )
