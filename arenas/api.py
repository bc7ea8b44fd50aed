"""REST endpoints for arenas: parse, call one service or selector, answer through the output serializers
(the services announce what changed to the arena's sockets)."""

from __future__ import annotations

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
from accounts.selectors import player_by_nickname
from accounts.services import player_for_session

from . import selectors, services
from .serializers import (
    ArenaCreateInputSerializer,
    ArenaDetailSerializer,
    ArenaJoinSerializer,
    ArenaListSerializer,
    ArenaNextSerializer,
    ArenaResultsSerializer,
    ArenaSerializer,
    PlayerArenaSerializer,
    arena_detail_payload,
    arena_join_payload,
    arena_list_payload,
    arena_payload,
    arena_results_payload,
    player_arenas_payload,
)
from .throttles import ArenaCreateRateThrottle


class ArenaListApi(APIView):
    def get_throttles(self):  # type: ignore[no-untyped-def]
        if self.request.method == "POST":
            return [*super().get_throttles(), ArenaCreateRateThrottle()]
        return super().get_throttles()

    @extend_schema(
        operation_id="arenas_list",
        responses={200: ArenaListSerializer},
        description="Upcoming arenas (soonest first), live ones and the newest finished ones, each with `players`.",
    )
    def get(self, request: Request) -> Response:
        now = timezone.now()
        return Response(arena_list_payload(selectors.arena_lists(now=now), now=now))

    @extend_schema(
        operation_id="arenas_create",
        request=ArenaCreateInputSerializer,
        responses={201: ArenaSerializer, **refusals(400, 403, 413, 429)},
        description="Create an arena of `minutes` (1 to 120) starting in `starts_in` seconds (0 to 604800); share "
        "its `url`. Anyone may join it, guests included, until it ends.",
    )
    def post(self, request: Request) -> Response:
        serializer = ArenaCreateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data: dict[str, Any] = serializer.validated_data
        now = timezone.now()
        arena = services.arena_create(
            created_by=player_for_session(session=request.session),
            minutes=data["minutes"],
            starts_in=data["starts_in"],
            now=now,
        )
        return Response(arena_payload(arena, now=now), status=status.HTTP_201_CREATED)


class ArenaDetailApi(APIView):
    @extend_schema(
        operation_id="arenas_get",
        responses={200: ArenaDetailSerializer, **refusals(404)},
        description="The arena with its standings (the top 100; ties go to whoever reached the points first), "
        "your own row as `me`, and `players`.",
    )
    def get(self, request: Request, code: str) -> Response:
        now = timezone.now()
        arena = selectors.arena_get(code=code)
        player = request_player(request)
        table = selectors.standings(arena_id=arena.pk)
        return Response(arena_detail_payload(arena, table, player_id=player.pk if player else None, now=now))


class ArenaJoinApi(APIView):
    @extend_schema(
        operation_id="arenas_join",
        request=None,
        responses={200: ArenaJoinSerializer, **refusals(403, 404, 409)},
        description="Take part (a visitor becomes a guest player). While the arena runs, `game` is your current "
        "game, played on its own socket `ws` like any game. A finished arena answers 409 `arena_finished`.",
    )
    def post(self, request: Request, code: str) -> Response:
        selectors.arena_get(code=code)  # an arena that does not exist makes no guest
        player = player_for_session(session=request.session)
        now = timezone.now()
        participant = services.arena_join(code=code, player=player, now=now)
        table = selectors.standings(arena_id=participant.arena_id)
        return Response(arena_join_payload(participant.arena, table, participant, now=now))


class ArenaNextApi(APIView):
    @extend_schema(
        operation_id="arenas_next",
        request=None,
        responses={200: ArenaNextSerializer, **refusals(403, 404, 409)},
        description="Your next game, on the next deal, once the current one is finished (it is also pushed on the "
        "arena socket). 409 `game_in_play` while it is not, `not_started` before the start, `arena_finished` "
        "after the end; 403 `not_participant` if you have not joined.",
    )
    def post(self, request: Request, code: str) -> Response:
        player = request_player(request)
        now = timezone.now()
        game = services.arena_next(code=code, player=player, now=now)
        return Response(ArenaNextSerializer({"game": game}, context={"now": now}).data)


class ArenaResultsApi(APIView):
    @extend_schema(
        operation_id="arenas_results",
        responses={200: ArenaResultsSerializer, **refusals(404)},
        description="Every participant, best first, with every game they played (each replayable at `replay`).",
    )
    def get(self, request: Request, code: str) -> Response:
        now = timezone.now()
        arena = selectors.arena_get(code=code)
        return Response(arena_results_payload(arena, selectors.arena_results(arena=arena), now=now))


class PlayerArenasApi(APIView):
    @extend_schema(
        operation_id="players_arenas",
        responses={200: PlayerArenaSerializer(many=True), **refusals(404)},
        description="The arenas a player took part in, newest first (at most 100), each with their rank, points, "
        "games and wins.",
    )
    def get(self, request: Request, nickname: str) -> Response:
        player = player_by_nickname(nickname=nickname)
        if player is None:
            raise PlayerNotFound(_("there is no player %(nickname)r") % {"nickname": nickname})
        now = timezone.now()
        return Response(player_arenas_payload(selectors.player_arenas(player=player), now=now))
