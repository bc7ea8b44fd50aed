"""REST endpoints for games: parse, call one service or selector, answer."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import player_from_session
from accounts.services import player_for_session

from . import services
from .errors import GameNotFound
from .selectors import game_get, game_visible_to
from .serializers import (
    ErrorSerializer,
    GameFinishInputSerializer,
    GameSerializer,
    GameStartInputSerializer,
    game_payload,
)


def _valid(serializer_class: type, data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data  # type: ignore[no-any-return]


class GameStartApi(APIView):
    @extend_schema(
        operation_id="games_start",
        request=GameStartInputSerializer,
        responses={201: GameSerializer, 200: GameSerializer, 400: ErrorSerializer},
        description="Start a game. Daily resumes the player's unfinished attempt (200) with its original clock.",
    )
    def post(self, request: Request) -> Response:
        data = _valid(GameStartInputSerializer, request.data)
        player = player_for_session(session=request.session)
        now = timezone.now()
        game, created = services.game_start(player=player, mode=data["mode"], code=data.get("code"), now=now)
        return Response(game_payload(game, now=now), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class GameDetailApi(APIView):
    @extend_schema(
        operation_id="games_get",
        responses={200: GameSerializer, 404: ErrorSerializer},
        description="A game: your own at any time; anyone's once finished (a replay), except today's daily "
        "games before you have finished your own daily attempt.",
    )
    def get(self, request: Request, game_id: int) -> Response:
        now = timezone.now()
        game = game_get(game_id=game_id)
        if not game_visible_to(game=game, player=player_from_session(request.session), today=now.date()):
            raise GameNotFound(f"there is no game {game_id} you can see")
        return Response(game_payload(game, now=now))


class GameFinishApi(APIView):
    @extend_schema(
        operation_id="games_finish",
        request=GameFinishInputSerializer,
        responses={200: GameSerializer, 400: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer},
        description="Replay the whole move line from the deal and store the verified result. A 400 names the "
        "first illegal move (`index`). Finishing a finished game answers with its stored result.",
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(GameFinishInputSerializer, request.data)
        now = timezone.now()
        game = services.game_finish(
            game_id=game_id, player=player_for_session(session=request.session), moves=data["moves"], now=now
        )
        return Response(game_payload(game, now=now))
