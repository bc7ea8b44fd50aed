from django.contrib import admin

from .models import Player


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("id", "nickname", "nickname_chosen", "user", "created_at")
    list_filter = ("nickname_chosen",)
    search_fields = ("nickname", "nickname_key")
    readonly_fields = ("nickname_key", "user", "created_at")
