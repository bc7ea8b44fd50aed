from django.contrib import admin

from .models import Deal, Game


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ("id", "daily_date", "code", "created_at")


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "player", "mode", "ranked", "status", "piles", "score", "started_at")
    list_filter = ("mode", "ranked", "status")
    raw_id_fields = ("player", "deal")
