from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from . import services
from .models import Deal, Game


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ("id", "daily_date", "code", "created_at")


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    """Games; filter "review: pending" for the ranked results flagged for implausible timing, each with
    its reasons and its replay, and clear or confirm them with the actions."""

    list_display = ["id", "player", "mode", "ranked", "status", "piles", "score", "seconds"]
    list_display += ["review", "reasons", "replay"]
    list_filter = ("review", "mode", "ranked", "status")
    raw_id_fields = ("player", "deal")
    readonly_fields = ("flags", "review")
    actions = ["clear_results", "confirm_flags"]

    @admin.display(description="flagged because")
    def reasons(self, game: Game) -> str:
        return format_html_join(mark_safe("<br>"), "{}", ((flag["detail"],) for flag in game.flags))

    @admin.display(description="replay")
    def replay(self, game: Game) -> str:
        if game.status != Game.Status.FINISHED:
            return ""
        return format_html('<a href="{}">replay</a>', reverse("replay", args=[game.pk]))

    @admin.action(description="Clear: put the selected flagged results on their day's board")
    def clear_results(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        changed = services.games_review(game_ids=list(queryset.values_list("pk", flat=True)), decision="cleared")
        self.message_user(request, f"{changed} flagged results cleared: they are on their boards.")

    @admin.action(description="Confirm: keep the selected flagged results off the board")
    def confirm_flags(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        changed = services.games_review(game_ids=list(queryset.values_list("pk", flat=True)), decision="confirmed")
        self.message_user(request, f"{changed} flagged results confirmed: they stay off the boards.")
