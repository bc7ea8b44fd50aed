"""REST endpoints for leaderboards: parse, call one selector, answer through an output serializer."""

from __future__ import annotations

import datetime
import re
from dataclasses import fields
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accordion_site.api_errors import refusals
from accordion_site.throttles import request_player
from games.selectors import daily_seed_published

from . import selectors
from .serializers import (
    DATE_PATTERN,
    AllTimeSerializer,
    DailySeedSerializer,
    DaySummarySerializer,
    LeaderboardPageSerializer,
    LeaderboardQuerySerializer,
    MyStandingSerializer,
)

PAGE_SIZE = 50


def _date(text: str, *, today: datetime.date, future: bool = False) -> datetime.date:
    """The date of a URL, strictly YYYY-MM-DD in ASCII digits; a 400 for anything else, and for a
    date that has not begun (UTC) unless `future`."""
    try:
        if not re.fullmatch(DATE_PATTERN, text):
            raise ValueError(text)
        day = datetime.date.fromisoformat(text)
    except ValueError as error:
        raise ValidationError({"date": _("%(text)r is not a date such as 2026-11-30") % {"text": text[:40]}}) from error
    if day > today and not future:
        raise ValidationError({"date": _("%(date)s has not begun yet (UTC): its board opens that day") % {"date": day}})
    return day


def _shallow(answer: Any) -> dict[str, Any]:
    """A selector's dataclass as a dict of its fields, the rows in it left as they are: the serializers
    read their attributes, so `dataclasses.asdict` would copy every row only to be read once."""
    return {field.name: getattr(answer, field.name) for field in fields(answer)}


def _today() -> datetime.date:
    return timezone.now().date()


class DailyLeaderboardApi(APIView):
    @extend_schema(
        operation_id="leaderboards_daily",
        parameters=[LeaderboardQuerySerializer],
        responses={200: LeaderboardPageSerializer, **refusals(400, 404)},
        description="A day's board: each player's ranked attempt, finished and verified, not held for review; "
        "best first (score, then seconds, then finish time), 50 a page, each row saying whether its place is "
        "still provisional. 400 for a malformed date or page or a day not begun, 404 for a page past the end.",
    )
    def get(self, request: Request, date: str) -> Response:
        today = _today()
        day = _date(date, today=today)
        query = LeaderboardQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        number = int(query.validated_data["page"])
        try:
            page = selectors.daily_board_page(date=day, page=number, page_size=PAGE_SIZE, now=timezone.now())
        except selectors.PastLastPage as error:
            raise NotFound(str(error)) from error
        return Response(LeaderboardPageSerializer({**_shallow(page), "day_over": day < today}).data)


class DailyMineApi(APIView):
    @extend_schema(
        operation_id="leaderboards_daily_me",
        responses={200: MyStandingSerializer, **refusals(400)},
        description="Your own entry on a day's board, its rank and the page it is on; `status` says when it is "
        "held for review or there is none.",
    )
    def get(self, request: Request, date: str) -> Response:
        day = _date(date, today=_today())
        # The player the throttles looked up for this request.
        mine = selectors.daily_board_mine(
            date=day, player=request_player(request), page_size=PAGE_SIZE, now=timezone.now()
        )
        return Response(MyStandingSerializer({**_shallow(mine), "date": day}).data)


class DailySummaryApi(APIView):
    @extend_schema(
        operation_id="leaderboards_daily_summary",
        responses={200: DaySummarySerializer, **refusals(400)},
        description="A day's board in numbers: players, wins, win rate, median score, final pile counts.",
    )
    def get(self, request: Request, date: str) -> Response:
        summary = selectors.daily_summary(date=_date(date, today=_today()))
        piles = [{"piles": piles, "players": players} for piles, players in summary.piles.items()]
        return Response(DaySummarySerializer({**_shallow(summary), "piles": piles}).data)


class DailySeedApi(APIView):
    @extend_schema(
        operation_id="leaderboards_daily_seed",
        responses={200: DailySeedSerializer, **refusals(400)},
        description="A day's deal seed: its commitment (SHA-256) from before the day begins, the seed itself once "
        "the day is over, so that anyone can reproduce and check the deal (docs/rules.md). Dates not yet "
        "certified have neither.",
    )
    def get(self, request: Request, date: str) -> Response:
        today = _today()
        published = daily_seed_published(date=_date(date, today=today, future=True), today=today)
        return Response(DailySeedSerializer(published).data)


class AllTimeApi(APIView):
    @extend_schema(
        operation_id="leaderboards_all_time",
        responses={200: AllTimeSerializer},
        description="Most daily wins, longest daily streaks, and the best average score over the last 30 days "
        "(20 players each; equal values share a rank).",
    )
    def get(self, request: Request) -> Response:
        return Response(AllTimeSerializer(selectors.all_time_boards(today=_today())).data)
