"""{% current_player as me %}: the session's player (or None) for the page header."""

from __future__ import annotations

from typing import Any

from django import template

from accounts.models import Player
from accounts.selectors import player_from_session

register = template.Library()


@register.simple_tag(takes_context=True)
def current_player(context: dict[str, Any]) -> Player | None:
    request = context.get("request")
    return player_from_session(request.session) if request is not None else None
