"""REST endpoints for leaderboards: parse, call one selector, answer through the output serializer."""

from __future__ import annotations

import datetime

from django.core.paginator import EmptyPage
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accordion_site.api_errors import ErrorSerializer

from .selectors import daily_leaderboard_page
from .serializers import LeaderboardPageSerializer, LeaderboardQuerySerializer

PAGE_SIZE = 50


class DailyLeaderboardApi(APIView):
    @extend_schema(
        operation_id="leaderboards_daily",
        parameters=[LeaderboardQuerySerializer],
        responses={200: LeaderboardPageSerializer, 400: ErrorSerializer, 404: ErrorSerializer},
        description="The ranked, finished games of a date's daily deal, best first. 400 for a malformed date or "
        "page, 404 for a page past the end.",
    )
    def get(self, request: Request, date: str) -> Response:
        try:
            day = datetime.date.fromisoformat(date)
        except ValueError as error:
            raise ValidationError({"date": f"{date!r} is not a date such as 2026-11-30"}) from error
        query = LeaderboardQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        number = query.validated_data["page"]
        try:
            page = daily_leaderboard_page(date=day, page=number, page_size=PAGE_SIZE)
        except EmptyPage as error:
            raise NotFound(f"page {number} is past the last page") from error
        board = {
            "date": day,
            "page": page.number,
            "pages": page.paginator.num_pages,
            "count": page.paginator.count,
            "entries": page.object_list,
        }
        return Response(LeaderboardPageSerializer(board).data)
