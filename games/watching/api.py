"""REST endpoints of the watching feature: the live list, and a player's "let others watch" setting."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accordion_site.api_errors import refusals
from accounts.selectors import session_player

from . import selectors, services
from .serializers import LiveListSerializer, WatchSettingSerializer


class LiveApi(APIView):
    @extend_schema(
        operation_id="live_list",
        responses={200: LiveListSerializer},
        description="The games being played right now that their players let others watch, most interesting "
        "first (most watched, then closest to a win); games on a daily deal whose day is not over are `withheld` "
        "(nobody may watch them). /ws/live/ sends the same entries as they change.",
    )
    def get(self, request: Request) -> Response:
        now = timezone.now()
        live = {"games": selectors.live_games(now=now), "server_now": now}
        return Response(LiveListSerializer(live, context={"now": now}).data)


class WatchSettingApi(APIView):
    @extend_schema(
        operation_id="me_watching_get",
        responses={200: WatchSettingSerializer, **refusals(404)},
        description="Whether others may watch your games live. 404 for a visitor who has not played yet.",
    )
    def get(self, request: Request) -> Response:
        return Response(WatchSettingSerializer({"watchable": session_player(request.session).watchable}).data)

    @extend_schema(
        operation_id="me_watching_set",
        request=WatchSettingSerializer,
        responses={200: WatchSettingSerializer, **refusals(400, 403, 404)},
        description="Let others watch your games live, or not. Watchers already watching stay until they "
        "leave; new ones are refused, and your games leave the live list.",
    )
    def put(self, request: Request) -> Response:
        serializer = WatchSettingSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        player = services.player_watchable_set(
            player=session_player(request.session), watchable=serializer.validated_data["watchable"]
        )
        return Response(WatchSettingSerializer({"watchable": player.watchable}).data)
