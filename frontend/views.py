"""Page views. They only render templates: the board loads its game from the API, so the page and
the API can never disagree about the state."""

from __future__ import annotations

import datetime
import math
import re

from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods, require_safe

from accordion_site.languages import local_figure

from . import odds
from .jalali import JALALI_MONTHS, from_jalali, to_jalali

# Refusals of the race form are plain text, never markup.
_TEXT = "text/plain; charset=utf-8"
# A deal code is short (K7QD-M2XP); anything longer in ?code= is junk and is not echoed back.
_MAX_CODE_LENGTH = 32
# The site's arenas the home page lists: those live now, else the next to start, at most this many.
_HOME_ARENAS = 2


# How to play's worked example: its first row, then each move (the pile at `source` onto the pile at
# `target`, its top card staying on top) with what the step says; each picture's row follows from the last.
_EXAMPLE_ROW = "QC 6S 3C 9H 6C 9C"
_EXAMPLE_MOVES = (
    (
        4,
        1,
        gettext_lazy(
            "Three moves are open: the nine of clubs may go onto the six of clubs beside it or jump onto the three "
            "of clubs (same suit), and the six of clubs may jump onto the six of spades (same rank). The nine onto "
            "its neighbour looks natural, but it buries the six of clubs, and the row gets stuck at three piles. So "
            "the six of clubs jumps onto the six of spades."
        ),
    ),
    (1, 0, gettext_lazy("The six of clubs now lies beside the queen of clubs: it moves onto her (same suit).")),
    (1, 0, gettext_lazy("The three of clubs moves onto the six of clubs.")),
    (2, 1, gettext_lazy("The nine of clubs moves onto the nine of hearts (same rank)…")),
    (1, 0, gettext_lazy("…and onto the three of clubs: one pile, and the game is won.")),
)


def _worked_example() -> list[dict[str, object]]:
    """The worked example's pictures: each step's row, its move and its words."""
    row = _EXAMPLE_ROW.split()
    steps: list[dict[str, object]] = []
    for source, target, text in _EXAMPLE_MOVES:
        steps.append({"cards": " ".join(row), "source": source, "target": target, "text": text})
        row[target] = row.pop(source)
    return steps


@require_safe
@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    """The front page: daily deal, new game, play a deal code (prefilled from ?code=, a shared link). The
    daily button says where the player stands with today's deal: not begun (its clock starts when the deal
    appears), in play (resumed), or finished (it leads to their result and rank). Beside TV, the site's
    arenas live now, else the next to start."""
    from accounts.selectors import player_from_session
    from arenas.selectors import site_arenas_now
    from arenas.serializers import arena_payload
    from games.selectors import daily_state

    now = timezone.now()
    code = request.GET.get("code", "").strip()[:_MAX_CODE_LENGTH]
    daily = daily_state(player=player_from_session(request.session), today=now.date())
    arenas = [arena_payload(arena, now=now) for arena in site_arenas_now(now=now, limit=_HOME_ARENAS)]
    return render(request, "frontend/home.html", {"code": code, "daily": daily, "arenas": arenas})


@require_safe
def how_to_play(request: HttpRequest) -> HttpResponse:
    """The rules with a worked example, keyboard play, tips, the share of deals the solver wins and the
    game's history."""
    share = 100 * odds.WON_DEALS / odds.SAMPLE_DEALS
    context = {
        "odds": {
            "won": local_figure(f"{odds.WON_DEALS:,}"),
            "deals": local_figure(f"{odds.SAMPLE_DEALS:,}"),
            "share": local_figure(f"{share:.2f}%"),
        },
        "example": _worked_example(),
    }
    return render(request, "frontend/how_to_play.html", context)


@require_safe
@ensure_csrf_cookie
def game(request: HttpRequest, game_id: int) -> HttpResponse:
    """The board for one game; 404 when there is no such game. Who may play it is the socket's and the
    API's call: the page opens the game's socket first, and its `state` (or its refusal) says. Someone
    else's game that will not open comes with the reason and where to go instead, which the page shows
    once the API has refused it."""
    from accounts.selectors import player_from_session
    from games.models import Game  # imported here so the frontend app loads without the games app
    from games.races.selectors import ghost_open
    from games.watching.selectors import game_unseen

    found = get_object_or_404(Game.objects.select_related("player", "deal"), pk=game_id)
    viewer = player_from_session(request.session)
    mine = viewer is not None and viewer.pk == found.player_id
    today = timezone.now().date()
    context = {
        "game": found,
        "ws_path": found.ws_path,
        # Someone else's game names its player, so the page never says "your game" to a visitor.
        "owner": "" if mine else found.player.nickname,
        "unseen": None if mine else game_unseen(game=found, viewer=viewer, today=today),
        # The after-game panel's "Race this game as a ghost": it shows once the game is over, so the
        # player's own game in play has it too, for when they finish it.
        "ghost": mine or ghost_open(game=found, player=viewer, today=today),
    }
    return render(request, "frontend/game.html", context)


@require_safe
@ensure_csrf_cookie
def profile(request: HttpRequest, nickname: str) -> HttpResponse:
    """A player's profile; the page draws its statistics from GET /api/players/<nickname>."""
    from accounts.selectors import player_by_nickname, player_from_session
    from arenas.selectors import player_arenas
    from games.races.selectors import player_race_stats

    player = player_by_nickname(nickname=nickname)
    if player is None:
        raise Http404("no such player")
    viewer = player_from_session(request.session)
    context = {
        "player": player,
        "races": player_race_stats(player=player),
        "arenas": player_arenas(player=player),
        # The page offers each finished game as a ghost by the rule of races.selectors.ghost_open: all of
        # the viewer's own, and anyone else's but a daily one whose (UTC) day is not over.
        "mine": viewer is not None and viewer.pk == player.pk,
        "today": timezone.now().date(),
    }
    return render(request, "frontend/profile.html", context)


@require_safe
@ensure_csrf_cookie
def account(request: HttpRequest) -> HttpResponse:
    """Nickname, sign-up, login, password and logout: the forms post to /api/accounts/… and /api/me."""
    from accounts.selectors import player_from_session

    return render(request, "frontend/account.html", {"player": player_from_session(request.session)})


@require_http_methods(["GET", "HEAD", "POST"])
@ensure_csrf_cookie
def race_new(request: HttpRequest) -> HttpResponse:
    """GET: the page that offers to open a race room (someone who typed /race). POST, the "Race a friend"
    form (the home page's, this page's, or a finished game's with `ghost`, its id): a new room with this
    visitor as host, then its page."""
    if request.method != "POST":
        return render(request, "frontend/race_new.html")
    from rest_framework.request import Request
    from rest_framework.views import APIView

    from accordion_site.errors import ServiceError
    from accordion_site.throttles import VisitorRateThrottle
    from accounts.services import player_for_session
    from games.races.api import RoomCreateRateThrottle
    from games.races.services import room_create

    # The same allowances as POST /api/races: the flood ceiling per address for a visitor who has not
    # played, new rooms per player.
    if not VisitorRateThrottle().allow_request(Request(request), APIView()):
        return HttpResponse(_("Too many requests: try again in a minute."), status=429, content_type=_TEXT)
    if not RoomCreateRateThrottle().allow_request(Request(request), APIView()):
        return HttpResponse(_("Too many new race rooms: try again in a minute."), status=429, content_type=_TEXT)
    ghost = request.POST.get("ghost", "")
    if ghost and not (ghost.isdigit() and len(ghost) < 19):
        return HttpResponse(_("That is not a game number."), status=400, content_type=_TEXT)
    try:
        room = room_create(
            host=player_for_session(session=request.session),
            ghost_game_id=int(ghost) if ghost else None,
            now=timezone.now(),
        )
    except ServiceError as error:
        return HttpResponse(error.message, status=error.status, content_type=_TEXT)
    return redirect("race", code=room.code)


@require_safe
@ensure_csrf_cookie
def race(request: HttpRequest, code: str) -> HttpResponse:
    """A race room (the invite link); 404 when there is no such room. The page takes a seat through
    the API and follows the room on its socket; nothing here names the deal."""
    from games.races.errors import RoomNotFound
    from games.races.selectors import room_get

    try:
        room = room_get(code=code)
    except RoomNotFound as error:
        raise Http404(error.message) from error
    if room.code != code:
        return redirect("race", code=room.code)
    return render(request, "frontend/race.html", {"code": room.code, "ws_path": f"/ws/races/{room.code}/"})


def _day(text: str) -> datetime.date:
    """A date of a page address, strictly YYYY-MM-DD; 404 for anything else."""
    try:
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
            raise ValueError(text)
        return datetime.date.fromisoformat(text)
    except ValueError as error:
        raise Http404("no such date") from error


def _solar_hijri_day(query: QueryDict) -> datetime.date:
    """The day the Persian date picker names (?jy=1405&jm=10&jd=11); 404 for one the calendar lacks."""
    try:
        return from_jalali(*(int(query.get(field, "")) for field in ("jy", "jm", "jd")))
    except ValueError as error:
        raise Http404("no such date") from error


@require_safe
@ensure_csrf_cookie
def daily(request: HttpRequest, date: str | None = None) -> HttpResponse:
    """A day's leaderboard (today's at /daily); the page draws it from /api/leaderboards/daily/<date>. The
    date picker's form sends ?date=, answered by a redirect to that day's own address."""
    from accounts.selectors import player_from_session
    from games.selectors import daily_state, day_end

    today = timezone.now().date()
    picked = request.GET.get("date")
    if date is None and picked:
        return redirect("daily-date", date=_day(picked).isoformat())
    if date is None and "jy" in request.GET:
        return redirect("daily-date", date=_solar_hijri_day(request.GET).isoformat())
    day = _day(date) if date is not None else today
    one_day = datetime.timedelta(days=1)
    this_year, shown = to_jalali(today)[0], to_jalali(day)
    context = {
        "day": day,
        "today": today,
        # Today's page opens with the reader's own day once their attempt is over: result, rank, the board
        # around them, and a countdown (on the server's clock) to the next deal.
        "daily": daily_state(player=player_from_session(request.session), today=today) if day == today else "",
        "next_deal_in": math.ceil((day_end(today) - timezone.now()).total_seconds()),
        "previous_day": day - one_day if day > datetime.date.min else None,
        "next_day": day + one_day if day < today else None,
        # The Persian page's date picker: the Solar Hijri calendar's days, months and recent years.
        "jalali": dict(zip(("year", "month", "day"), shown, strict=True)),
        "jalali_months": list(enumerate(JALALI_MONTHS, start=1)),
        "jalali_years": sorted({*range(this_year - 4, this_year + 1), shown[0]}),
        "month_days": list(range(1, 32)),
    }
    return render(request, "frontend/daily.html", context)


@require_safe
@ensure_csrf_cookie
def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished game replayed from its stored events; who may see it is the API's call (the spoiler
    rule), so the page asks it and says why when it may not. A game the viewer may race as a ghost comes
    with the button that opens a room racing it."""
    from accounts.selectors import player_from_session
    from games.models import Game
    from games.races.selectors import ghost_open

    found = get_object_or_404(Game.objects.select_related("deal"), pk=game_id)
    viewer = player_from_session(request.session)
    ghost = ghost_open(game=found, player=viewer, today=timezone.now().date())
    return render(request, "frontend/replay.html", {"game_id": found.pk, "ghost": ghost})


@require_safe
@ensure_csrf_cookie
def live(request: HttpRequest) -> HttpResponse:
    """The games being played right now; the page reads GET /api/live and follows /ws/live/."""
    return render(request, "frontend/live.html")


@require_safe
@ensure_csrf_cookie
def watch(request: HttpRequest, game_id: int) -> HttpResponse:
    """Watch one game live; 404 when there is no such game. Who may watch it is the watch socket's call
    (an opted-out player, the spoiler rule): the page shows the reason it gives."""
    from games.models import Game

    found = get_object_or_404(Game.objects.select_related("player"), pk=game_id)
    context = {"game_id": found.pk, "player": found.player.nickname, "ws_path": f"/ws/watch/{found.pk}/"}
    return render(request, "frontend/watch.html", context)
