"""REST endpoints for race rooms: parse, call one service or selector, answer through the room's
output serializer (the services announce what changed to the room's sockets); and the allowance of
new rooms, checked before a view runs."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accordion_site.api_errors import refusals
from accordion_site.throttles import PlayerRateThrottle
from accounts.selectors import player_from_session
from accounts.services import player_for_session

from . import services
from .models import Room
from .selectors import room_check_visible, room_get, room_view
from .serializers import RaceCreateInputSerializer, RoomSerializer, room_payload


class RoomCreateRateThrottle(PlayerRateThrottle):
    """RACE_ROOMS_PER_MINUTE new rooms a minute per player (a visitor's first, which makes their guest,
    only by the API's per-address ceiling, so people behind one address share no allowance)."""

    scope = "race_rooms"

    def get_rate(self) -> str:
        return f"{settings.RACE_ROOMS_PER_MINUTE}/min"


def _room_answer(room: Room, *, answer_status: int = status.HTTP_200_OK) -> Response:
    return Response(room_payload(room_view(room=room, now=timezone.now())), status=answer_status)


class RaceCreateApi(APIView):
    throttle_classes = [*APIView.throttle_classes, RoomCreateRateThrottle]

    @extend_schema(
        operation_id="races_create",
        request=RaceCreateInputSerializer,
        responses={201: RoomSerializer, **refusals(400, 403, 404, 413, 429)},
        description="Open a race room with you as its host and first racer. The deal is a fresh one, the deal "
        "`code` you pick, or the `ghost`'s (a finished game you may see, raced at its own pace); nobody sees "
        "it before the start signal.",
    )
    def post(self, request: Request) -> Response:
        serializer = RaceCreateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data: dict[str, Any] = serializer.validated_data
        room = services.room_create(
            host=player_for_session(session=request.session),
            time_limit=data.get("time_limit"),
            deal_code=data.get("code") or None,
            ghost_game_id=data.get("ghost"),
            now=timezone.now(),
        )
        return _room_answer(room, answer_status=status.HTTP_201_CREATED)


class RaceDetailApi(APIView):
    @extend_schema(
        operation_id="races_get",
        responses={200: RoomSerializer, **refusals(403, 404)},
        description="The room: its state, racers and, once over, the standings. The deal is null until the start. "
        "A room racing a ghost on a daily deal whose day is not over is refused (403 `spoiler`) to anyone who may "
        "not see that game yet.",
    )
    def get(self, request: Request, code: str) -> Response:
        now = timezone.now()
        room = room_get(code=code)
        room_check_visible(room=room, player=player_from_session(request.session), today=now.date())
        # A read acts on the room's clock first (a start or an end that is due), as every socket does.
        if services.race_advance(code=code, now=now).kinds:
            room.refresh_from_db()
        return _room_answer(room)


class RaceJoinApi(APIView):
    @extend_schema(
        operation_id="races_join",
        request=None,
        responses={200: RoomSerializer, **refusals(403, 404)},
        description="Take a seat while the room is in its lobby and has one (a visitor becomes a guest player); "
        "otherwise you watch. Opening the room socket joins the same way.",
    )
    def post(self, request: Request, code: str) -> Response:
        room_get(code=code)  # a room that does not exist makes no guest
        player = player_for_session(session=request.session)
        joined = services.race_join(code=code, player=player, now=timezone.now())
        return _room_answer(joined.room)
