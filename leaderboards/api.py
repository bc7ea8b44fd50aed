from __future__ import annotations

import datetime

from django.core.paginator import EmptyPage, Paginator
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .selectors import daily_ranked_games

PAGE_SIZE = 50


class LeaderboardEntrySerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    score = serializers.IntegerField()
    piles = serializers.IntegerField()
    seconds = serializers.IntegerField()
    won = serializers.BooleanField()
    game = serializers.IntegerField()


class LeaderboardPageSerializer(serializers.Serializer):
    date = serializers.DateField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    count = serializers.IntegerField()
    entries = LeaderboardEntrySerializer(many=True)


class DailyLeaderboardApi(APIView):
    @extend_schema(
        operation_id="leaderboards_daily",
        parameters=[OpenApiParameter("page", int, description="1-based page of 50 entries")],
        responses={200: LeaderboardPageSerializer},
    )
    def get(self, request: Request, date: str) -> Response:
        try:
            day = datetime.date.fromisoformat(date)
        except ValueError as error:
            raise ValidationError({"date": f"{date!r} is not a date such as 2026-11-30"}) from error
        page_text = request.query_params.get("page", "1")
        if not page_text.isdigit() or int(page_text) < 1:
            raise ValidationError({"page": "page is a whole number from 1"})
        paginator = Paginator(daily_ranked_games(date=day), PAGE_SIZE)
        try:
            page = paginator.page(int(page_text))
        except EmptyPage as error:
            raise NotFound(f"page {page_text} is past the last page ({paginator.num_pages})") from error
        first_rank = (page.number - 1) * PAGE_SIZE + 1
        entries = [
            {
                "rank": first_rank + offset,
                "player": game.player.nickname,
                "score": game.score,
                "piles": game.piles,
                "seconds": game.seconds,
                "won": game.won,
                "game": game.pk,
            }
            for offset, game in enumerate(page.object_list)
        ]
        return Response(
            {
                "date": day,
                "page": page.number,
                "pages": paginator.num_pages,
                "count": paginator.count,
                "entries": entries,
            }
        )
