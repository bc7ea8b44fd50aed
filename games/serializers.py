"""The JSON shapes of the games API (documented in docs/api.md and at /api/schema/)."""

from __future__ import annotations

import datetime
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from . import engine
from .models import Game
from .selectors import game_daily_rank


class GameStartInputSerializer(serializers.Serializer):
    # Race games are started by their race room, never by this endpoint.
    mode = serializers.ChoiceField(choices=[Game.Mode.DAILY, Game.Mode.NEW, Game.Mode.CODE])
    code = serializers.CharField(required=False, max_length=32, help_text="A deal code, for mode 'code'.")


class GameFinishInputSerializer(serializers.Serializer):
    moves = serializers.ListField(
        child=serializers.JSONField(),
        max_length=51,
        help_text="The whole move line from the deal, [[from, to], ...]; the server replays it.",
    )


class EventResultSerializer(serializers.Serializer):
    """The verified result of a finished game, as its finish event carries it to every listener."""

    score = serializers.IntegerField()
    piles = serializers.IntegerField()
    won = serializers.BooleanField()
    seconds = serializers.IntegerField()
    good_game = serializers.SerializerMethodField(help_text="Ended with five piles or fewer.")

    def get_good_game(self, game: Game) -> bool:
        return game.piles <= engine.GOOD_GAME_PILES


class ResultSerializer(EventResultSerializer):
    """The verified result of a finished game, with its place on the day's board."""

    # The daily rank comes in the context: see game_result.
    rank = serializers.SerializerMethodField(help_text="Place on the daily leaderboard if ranked.")

    def get_rank(self, game: Game) -> int | None:
        return self.context["rank"]  # type: ignore[no-any-return]


class ServerNowField(serializers.DateTimeField):
    """The server's clock when it answered (the serializer context's `now`), so a client can run a timer."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, value: Any) -> Any:
        return super().to_representation(self.context["now"])


class GameSerializer(serializers.Serializer):
    """A game: its deal, its move line and, once it is finished, its verified result."""

    # The server's clock comes in the context: see game_payload.
    id = serializers.IntegerField()
    mode = serializers.ChoiceField(choices=Game.Mode.choices)
    deal = serializers.ListField(source="deal.cards", child=serializers.CharField())
    deal_code = serializers.CharField(source="deal.code", allow_null=True)
    daily_date = serializers.DateField(source="deal.daily_date", allow_null=True)
    ranked = serializers.BooleanField()
    started_at = serializers.DateTimeField()
    server_now = ServerNowField(help_text="The server's clock when it answered, to run a timer.")
    moves = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    piles = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    version = serializers.IntegerField()
    hints = serializers.IntegerField(help_text="Hints taken; a hinted game is unranked.")
    ws = serializers.CharField(source="ws_path", help_text="The player's socket path.")
    result = serializers.SerializerMethodField()


    @extend_schema_field(ResultSerializer(allow_null=True))
    def get_result(self, game: Game) -> dict[str, Any] | None:
        return game_result(game, rank=game_daily_rank(game=game))


def game_result(game: Game, *, rank: int | None) -> dict[str, Any] | None:
    """The result JSON of a finished game (None while it is played)."""
    if game.status != Game.Status.FINISHED:
        return None
    return ResultSerializer(game, context={"rank": rank}).data  # type: ignore[no-any-return]


def game_payload(game: Game, *, now: datetime.datetime) -> dict[str, Any]:
    """The game as the API and the sockets describe it, with `now` as the server's clock."""
    return GameSerializer(game, context={"now": now}).data  # type: ignore[no-any-return]


class HintInputSerializer(serializers.Serializer):
    accept_unranked = serializers.BooleanField(
        default=False, help_text="Needed for a ranked game: a hint makes it unranked for good."
    )


class HintSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=["move", "undo", "won", "lost", "unknown"],
        help_text="move: play `move`; undo: undo `undo` moves to get back to a winnable position; "
        "lost: the deal cannot be won; unknown: no answer within the time limit (the hint was not counted).",
    )
    move = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    undo = serializers.IntegerField(allow_null=True)
    ranked = serializers.BooleanField()
    hints = serializers.IntegerField()
    version = serializers.IntegerField(help_text="The game version the advice is about.")


class WinnableSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["win", "lost", "unknown"])
    version = serializers.IntegerField(help_text="The game version the answer is about.")


class AnalysisSerializer(serializers.Serializer):
    deal_winnable = serializers.BooleanField(allow_null=True, help_text="null when the solver could not decide.")
    deal_line = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        allow_null=True,
        help_text="A winning line from the deal; null for a daily deal until its date is over.",
    )
    first_losing_move = serializers.IntegerField(
        allow_null=True, help_text="Index of the move after which the game could no longer be won."
    )
    line_from_there = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        allow_null=True,
        help_text="A winning line from the position before that move; withheld like deal_line.",
    )
    withheld = serializers.BooleanField(help_text="Winning lines are withheld until the daily deal's date is over.")
