"""Page views. They only render templates: the board loads its game from the API, so the page and
the API can never disagree about the state."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe

# A deal code is short (K7QD-M2XP); anything longer in ?code= is junk and is not echoed back.
_MAX_CODE_LENGTH = 32


@require_safe
@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    """The front page: daily deal, new game, play a deal code (prefilled from ?code=, a shared link)."""
    code = request.GET.get("code", "").strip()[:_MAX_CODE_LENGTH]
    return render(request, "frontend/home.html", {"code": code})


@require_safe
@ensure_csrf_cookie
def game(request: HttpRequest, game_id: int) -> HttpResponse:
    """The board for one game; 404 when there is no such game. Who may play it is the API's call."""
    from games.models import Game  # imported here so the frontend app loads without the games app

    found = get_object_or_404(Game, pk=game_id)
    return render(request, "frontend/game.html", {"game_id": found.pk})
