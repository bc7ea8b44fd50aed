"""TV: the featured live game, as a miniature on the home page and full screen at /tv. The page asks
GET /api/tv which game to show, watches it on its watch socket, and asks again when it ends."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import player_from_session
from arenas.leaders import live_leader_games
from games.watching.selectors import featured_game
from games.watching.serializers import LiveGameSerializer


class TvSerializer(serializers.Serializer):
    game = LiveGameSerializer(
        allow_null=True,
        help_text="The featured game, as an entry of GET /api/live, or null when no game is live.",
    )
    server_now = serializers.DateTimeField(help_text="The server's clock when it answered, to run the timer.")


class TvApi(APIView):
    @extend_schema(
        operation_id="tv",
        responses={200: TvSerializer},
        description="The featured live game: a live arena's leader, else among the most watched live games the "
        "closest to a win; never one "
        "the caller cannot watch (their own, one on a deal they are playing, today's daily). Watch it on its `ws`; "
        "ask again when it ends.",
    )
    def get(self, request: Request) -> Response:
        now = timezone.now()
        leaders = live_leader_games(now=now)
        game = featured_game(now=now, viewer=player_from_session(request.session), leaders=leaders)
        return Response(TvSerializer({"game": game, "server_now": now}, context={"now": now}).data)


@require_safe
@ensure_csrf_cookie
def tv(request: HttpRequest) -> HttpResponse:
    """The featured game full screen, with its player's name; it switches to another when it ends."""
    return render(request, "frontend/tv.html")
