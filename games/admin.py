from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from . import services
from .models import Deal, Game


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ("id", "daily_date", "code", "created_at")


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    """Games; filter "review: pending" for the ranked results held for review, each with its risk, its
    reasons and its replay, and clear or confirm them with the actions (the staff review page,
    /staff/review/, shows each one's line with the solver's verdicts and keeps a written reason)."""

    list_display = ["id", "player", "mode", "ranked", "status", "piles", "score", "seconds"]
    list_display += ["risk", "review", "reasons", "replay"]
    list_filter = ("review", "mode", "ranked", "status")
    raw_id_fields = ("player", "deal")
    readonly_fields = ("risk", "risk_reasons", "verdicts", "assessed_at", "review", "review_reason", "reviewed_by")
    actions = ["clear_results", "confirm_flags"]

    @admin.display(description="risk because")
    def reasons(self, game: Game) -> str:
        return format_html_join(mark_safe("<br>"), "{}", ((reason["detail"],) for reason in game.risk_reasons))

    @admin.display(description="replay")
    def replay(self, game: Game) -> str:
        if game.status != Game.Status.FINISHED:
            return ""
        return format_html('<a href="{}">replay</a>', reverse("replay", args=[game.pk]))

    @admin.action(description="Clear: put the selected held results on their day's board")
    def clear_results(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        changed = self._review(request, queryset, "cleared")
        self.message_user(request, f"{changed} held results cleared: they are on their boards.")

    @admin.action(description="Confirm: keep the selected held results off the board")
    def confirm_flags(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        changed = self._review(request, queryset, "confirmed")
        self.message_user(request, f"{changed} held results confirmed: they stay off the boards.")

    def _review(self, request: HttpRequest, queryset: QuerySet[Game], decision: str) -> int:
        return services.games_review(
            game_ids=list(queryset.values_list("pk", flat=True)),
            decision=decision,
            reason=f"{decision} in bulk from the admin's list",
            reviewer=request.user if request.user.is_authenticated else None,
            now=timezone.now(),
        )
