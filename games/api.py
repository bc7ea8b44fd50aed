"""REST endpoints for games and players' profiles: parse, call one service or selector, answer through an output
serializer."""

from __future__ import annotations

import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accordion_site.api_errors import refusals
from accordion_site.throttles import request_player
from accounts.errors import PlayerNotFound
from accounts.models import Player
from accounts.selectors import player_by_nickname
from accounts.services import player_for_session

from . import selectors, services
from .errors import GameNotFound, NotYourGame
from .models import Game
from .profiles import player_profile
from .serializers import (
    AnalysisSerializer,
    EventResultSerializer,
    GameEventsInputSerializer,
    GameEventsSerializer,
    GameFinishInputSerializer,
    GameSerializer,
    GameStartInputSerializer,
    HintInputSerializer,
    HintSerializer,
    ProfileSerializer,
    WinnableSerializer,
    game_payload,
    profile_payload,
)
from .throttles import (
    FinishRateThrottle,
    GameStartRateThrottle,
    SolverAddressThrottle,
    SolverRateThrottle,
    client_address,
)

# A replay reads a game's events in pages of this many.
EVENTS_PAGE = 1000


def _valid(serializer_class: type, data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data  # type: ignore[no-any-return]


class SolverApi(APIView):
    """An endpoint that runs the solver: counted against the per-minute solver allowances of the
    session's player and of the client's address, checked before the view runs, so a refused request
    reaches no service."""

    throttle_classes = [*APIView.throttle_classes, SolverRateThrottle, SolverAddressThrottle]


class GameStartApi(APIView):
    throttle_classes = [*APIView.throttle_classes, GameStartRateThrottle]

    @extend_schema(
        operation_id="games_start",
        request=GameStartInputSerializer,
        responses={201: GameSerializer, 200: GameSerializer, **refusals(400, 403, 413, 429)},
        description="Start a game. Daily resumes the player's unfinished attempt (200) with its original clock. "
        "A daily game is practice (`ranked` false, `practice_reason` says why) after the player's ranked attempt, "
        "or once the day's ranked attempts from the client's address are used up (an account older than a day "
        "keeps one of its own). 429 when the player starts more games a minute than GAME_START_RATE.",
    )
    def post(self, request: Request) -> Response:
        data = _valid(GameStartInputSerializer, request.data)
        player = player_for_session(session=request.session)
        now = timezone.now()
        game, created = services.game_start(
            player=player, mode=data["mode"], code=data.get("code"), now=now, address=client_address(request)
        )
        return Response(game_payload(game, now=now), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class GameDetailApi(APIView):
    @extend_schema(
        operation_id="games_get",
        responses={200: GameSerializer, **refusals(404)},
        description="A game: your own at any time; anyone's once finished (a replay), except games on a daily "
        "deal whose day (UTC) is not over, which stay hidden from everyone but their player until midnight UTC.",
    )
    def get(self, request: Request, game_id: int) -> Response:
        now = timezone.now()
        game = _visible_game(request, game_id=game_id, now=now)
        return Response(game_payload(game, now=now))


def _visible_game(request: Request, *, game_id: int, now: datetime.datetime) -> Game:
    """The game, if the session may read it now; a ranked attempt whose day is over is closed first.
    Staff (the Django admin's users) read any finished game: they review flagged results on the day."""
    game = selectors.game_get(game_id=game_id)
    # Closed first, whoever reads it: an attempt whose day is over is finished, and so a replay anyone
    # may see, and it joins its day's board.
    if selectors.attempt_day_over(game=game, today=now.date()):
        services.game_close_if_day_over(game_id=game_id, now=now)
        game = selectors.game_get(game_id=game_id)
    staff_review = bool(getattr(request.user, "is_staff", False)) and game.status == Game.Status.FINISHED
    if not staff_review and not selectors.game_visible_to(game=game, player=request_player(request), today=now.date()):
        raise GameNotFound(_("there is no game %(game)s you can see") % {"game": game_id})
    return game


class GameEventsApi(APIView):
    @extend_schema(
        operation_id="games_events",
        parameters=[GameEventsInputSerializer],
        responses={200: GameEventsSerializer, **refusals(400, 404)},
        description="A game's stored events with the server's times, oldest first, at most 1,000 an answer: a "
        "replay at the speed it was played. Visible as the game is: your own at any time, anyone's once finished, "
        "except games on a daily deal whose day is not over (UTC), which only their owner sees.",
    )
    def get(self, request: Request, game_id: int) -> Response:
        after = int(_valid(GameEventsInputSerializer, request.query_params)["after"])
        now = timezone.now()
        game = _visible_game(request, game_id=game_id, now=now)
        found = selectors.game_events_after(game=game, after=after, limit=EVENTS_PAGE + 1)
        result = EventResultSerializer(game).data if game.status == Game.Status.FINISHED else None
        answer = {
            "game": game.pk,
            "player": game.player.nickname,
            "events": found[:EVENTS_PAGE],
            "more": len(found) > EVENTS_PAGE,
        }
        return Response(GameEventsSerializer(answer, context={"result": result}).data)


class GameFinishApi(APIView):
    throttle_classes = [*APIView.throttle_classes, FinishRateThrottle]

    @extend_schema(
        operation_id="games_finish",
        request=GameFinishInputSerializer,
        responses={200: GameSerializer, **refusals(400, 403, 404, 409, 413)},
        description="Replay the whole move line from the deal and store the verified result. A 400 names the "
        "first illegal move (`index`). Finishing a finished game with its stored line answers with its stored "
        "result; with another line, or after the day of a ranked attempt is over, 409 `game_finished`; before a "
        "race's start, 409 `not_started`.",
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(GameFinishInputSerializer, request.data)
        now = timezone.now()
        game = services.game_finish(game_id=game_id, player=_own_player(request), moves=data["moves"], now=now)
        return Response(game_payload(game, now=now))


class GameHintApi(SolverApi):
    @extend_schema(
        operation_id="games_hint",
        request=HintInputSerializer,
        responses={200: HintSerializer, **refusals(400, 403, 404, 409, 429, 503)},
        description="One move that keeps the game winnable, or how many moves to undo. Any hint makes the game "
        "unranked for good: a ranked game answers 400 `confirm_unranked` unless `accept_unranked` is true. "
        "429 past the per-minute allowance, 503 when the solver is busy: try again.",
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(HintInputSerializer, request.data)
        game, advice = services.game_hint(
            game_id=game_id, player=_own_player(request), accept_unranked=data["accept_unranked"], now=timezone.now()
        )
        hint = {
            "status": advice.status,
            "move": advice.move,
            "undo": advice.undo,
            "ranked": game.ranked,
            "hints": game.hints,
            "version": game.version,
        }
        return Response(HintSerializer(hint).data)


class GameWinnableApi(SolverApi):
    @extend_schema(
        operation_id="games_winnable",
        responses={200: WinnableSerializer, **refusals(400, 403, 404, 409, 429, 503)},
        description="Whether the current position of your unranked game can still be won.",
    )
    def get(self, request: Request, game_id: int) -> Response:
        game, status_found = selectors.game_winnable(
            game_id=game_id, player=_own_player(request), today=timezone.now().date()
        )
        return Response(WinnableSerializer({"status": status_found, "version": game.version}).data)


class GameAnalysisApi(SolverApi):
    @extend_schema(
        operation_id="games_analysis",
        responses={200: AnalysisSerializer, **refusals(400, 404, 429, 503)},
        description="After the game: was the deal winnable, the first move after which the game was lost, and "
        "winning lines from the deal and from before that move (withheld for a daily deal until its date is over).",
    )
    def get(self, request: Request, game_id: int) -> Response:
        now = timezone.now()
        game, found = selectors.game_analysis(game_id=game_id, player=request_player(request), today=now.date())
        analysis = {
            "deal_winnable": {"win": True, "lost": False}.get(found.deal_status),
            "deal_line": found.deal_line,
            "first_losing_move": found.first_losing_move,
            "line_from_there": found.line_from_there,
            "withheld": selectors.winning_lines_withheld(game=game, today=now.date()),
        }
        return Response(AnalysisSerializer(analysis).data)


def _own_player(request: Request) -> Player:
    """The session's player; a visitor who never played owns no game."""
    player = request_player(request)
    if player is None:
        raise NotYourGame(_("you have no games yet: start one first"))
    return player


class PlayerProfileApi(APIView):
    @extend_schema(
        operation_id="players_profile",
        responses={200: ProfileSerializer, **refusals(404)},
        description="A player's statistics from their verified games, daily calendar, score chart and recent games.",
    )
    def get(self, request: Request, nickname: str) -> Response:
        player = player_by_nickname(nickname=nickname)
        if player is None:
            raise PlayerNotFound(_("there is no player %(nickname)r") % {"nickname": nickname})
        today = timezone.now().date()
        return Response(profile_payload(player_profile(player=player, today=today), today=today))
