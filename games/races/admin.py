from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Racer, Room


class RacerInline(admin.TabularInline):
    model = Racer
    extra = 0
    can_delete = False
    fields = ("round", "player", "ghost", "ready", "connected", "kicked", "left_at", "game", "place", "winner")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    """Race rooms to look at: every change goes through the race services, which announce it."""

    list_display = ("code", "state", "round", "host", "time_limit", "starts_at", "created_at")
    list_filter = ("state",)
    search_fields = ("code",)
    inlines = [RacerInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
