"""The JSON shapes of the games API (documented in docs/api.md and at /api/schema/)."""

from __future__ import annotations

import datetime
from typing import Any

from rest_framework import serializers

from leaderboards.selectors import daily_rank

from . import engine
from .models import Game


class GameStartInputSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=Game.Mode.choices)
    code = serializers.CharField(required=False, max_length=32, help_text="A deal code, for mode 'code'.")


class GameFinishInputSerializer(serializers.Serializer):
    moves = serializers.ListField(
        child=serializers.JSONField(),
        max_length=51,
        help_text="The whole move line from the deal, [[from, to], ...]; the server replays it.",
    )


class ResultSerializer(serializers.Serializer):
    score = serializers.IntegerField()
    piles = serializers.IntegerField()
    won = serializers.BooleanField()
    seconds = serializers.IntegerField()
    rank = serializers.IntegerField(allow_null=True, help_text="Place on the daily leaderboard if ranked.")
    good_game = serializers.BooleanField(help_text="Ended with five piles or fewer.")


class GameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    mode = serializers.ChoiceField(choices=Game.Mode.choices)
    deal = serializers.ListField(child=serializers.CharField())
    deal_code = serializers.CharField(allow_null=True)
    daily_date = serializers.DateField(allow_null=True)
    ranked = serializers.BooleanField()
    started_at = serializers.DateTimeField()
    server_now = serializers.DateTimeField(help_text="The server's clock when it answered, to run a timer.")
    moves = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    piles = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    version = serializers.IntegerField()
    hints = serializers.IntegerField(help_text="Hints taken; a hinted game is unranked.")
    ws = serializers.CharField(help_text="The player's socket path.")
    result = ResultSerializer(allow_null=True)


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField()
    code = serializers.CharField()
    index = serializers.IntegerField(required=False, help_text="For illegal_move: the first bad move's index.")


def game_result(game: Game, *, rank: int | None) -> dict[str, Any] | None:
    if game.status != Game.Status.FINISHED:
        return None
    return {
        "score": game.score,
        "piles": game.piles,
        "won": game.won,
        "seconds": game.seconds,
        "rank": rank,
        "good_game": game.piles <= engine.GOOD_GAME_PILES,
    }


def game_payload(game: Game, *, now: datetime.datetime) -> dict[str, Any]:
    """The game as the API and the socket describe it."""
    return {
        "id": game.pk,
        "mode": game.mode,
        "deal": game.deal.cards,
        "deal_code": game.deal.code,
        "daily_date": game.deal.daily_date,
        "ranked": game.ranked,
        "started_at": game.started_at,
        "server_now": now,
        "moves": game.moves,
        "piles": game.piles,
        "status": game.status,
        "version": game.version,
        "hints": game.hints,
        "ws": f"/ws/games/{game.pk}/",
        "result": game_result(game, rank=daily_rank(game=game)),
    }


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
