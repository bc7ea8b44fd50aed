"""The arenas' pages: the list with the form that opens one, an arena's page (its standings, clock and
boards come from the API and the arena's socket), and its results with every game replayable."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe

from arenas import selectors
from arenas.errors import ArenaNotFound
from arenas.models import Arena


def _arena(code: str) -> Arena:
    try:
        return selectors.arena_get(code=code)
    except ArenaNotFound as error:
        raise Http404(error.message) from error


@require_safe
@ensure_csrf_cookie
def arenas(request: HttpRequest) -> HttpResponse:
    """Live, upcoming and finished arenas (the page reads GET /api/arenas), and the form to open one."""
    sections = [("live", _("Live")), ("upcoming", _("Upcoming")), ("finished", _("Finished"))]
    return render(request, "frontend/arenas.html", {"sections": sections})


@require_safe
@ensure_csrf_cookie
def arena(request: HttpRequest, code: str) -> HttpResponse:
    """An arena's page (its shared link); 404 when there is no such arena, its own address for a code
    typed in another case."""
    found = _arena(code)
    if found.code != code:
        return redirect("arena", code=found.code)
    return render(request, "frontend/arena.html", {"arena": found, "ws_path": f"/ws/arenas/{found.code}/"})


@require_safe
def arena_results(request: HttpRequest, code: str) -> HttpResponse:
    """Every participant, best first, with each game they played and a link to its replay."""
    found = _arena(code)
    if found.code != code:
        return redirect("arena-results", code=found.code)
    context = {
        "arena": found,
        "state": found.state(timezone.now()),
        "results": selectors.arena_results(arena=found),
    }
    return render(request, "frontend/arena_results.html", context)
