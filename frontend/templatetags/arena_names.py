"""{{ arena|arena_name }}: what the pages call an arena, in the page's language: the site's own are named
for their schedule ("Hourly arena", "Daily arena"), a player's is an "Arena"; its code goes beside it.
frontend/static/js/arena_entry.js names them the same way."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext as _

from arenas.models import Arena

register = template.Library()


@register.filter
def arena_name(arena: Arena) -> str:
    if arena.kind == Arena.Kind.HOURLY:
        return _("Hourly arena")
    if arena.kind == Arena.Kind.DAILY:
        return _("Daily arena")
    return _("Arena")
