"""The staff's review pages: the queue of results held for review, and one result's line on a timeline
with the solver's verdict on every move, where staff clear or confirm it with a reason. Staff only (a
403 for anyone else); English only, like the admin."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_safe

from arenas import selectors as arena_selectors
from games import selectors, services
from games.errors import GameError
from games.models import Game


def _staff_only(request: HttpRequest) -> None:
    if not (request.user.is_authenticated and request.user.is_staff):
        raise PermissionDenied("staff only")


@require_safe
def review_queue(request: HttpRequest) -> HttpResponse:
    """Results held for review, the most pressing first (risk ÷ the place each would take)."""
    _staff_only(request)
    held = selectors.review_queue(placings={Game.Mode.ARENA: arena_selectors.place_if_counted})
    return render(request, "frontend/staff/review_queue.html", {"held": held})


@require_http_methods(["GET", "HEAD", "POST"])
def review_game(request: HttpRequest, game_id: int) -> HttpResponse:
    """One result: its reasons and its timeline; a POST clears or confirms it with the reason given."""
    _staff_only(request)
    game = get_object_or_404(
        Game.objects.select_related("player", "deal", "reviewed_by"), pk=game_id, status=Game.Status.FINISHED
    )
    error = ""
    if request.method == "POST":
        try:
            services.games_review(
                game_ids=[game.pk],
                decision=request.POST.get("decision", ""),
                reason=request.POST.get("reason", ""),
                reviewer=request.user,  # type: ignore[arg-type]  # _staff_only: a signed-in user
                now=timezone.now(),
            )
        except GameError as refused:
            error = str(refused)
        else:
            messages.success(request, f"Game {game.pk} {request.POST['decision']}.")
            return redirect("staff-review-queue")
    context = {"game": game, "timeline": selectors.review_timeline(game=game), "error": error}
    return render(request, "frontend/staff/review_game.html", context, status=400 if error else 200)
