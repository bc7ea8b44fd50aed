"""The JSON shapes of the games API (documented in docs/api.md and at /api/schema/)."""

from __future__ import annotations

import datetime
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accordion_site.serializers import ClosedInputSerializer, StrictBooleanField, StrictCharField

from . import engine
from .models import Game, GameEvent
from .profiles import PlayerProfile
from .selectors import DailyStanding, game_daily_standing, hints_open


class GameStartInputSerializer(ClosedInputSerializer):
    # Race games are started by their race room, never by this endpoint; a daily game is always today's.
    mode = serializers.ChoiceField(choices=[Game.Mode.DAILY, Game.Mode.NEW, Game.Mode.CODE])
    code = StrictCharField(required=False, max_length=32, help_text="A deal code, for mode 'code'.")


class GameFinishInputSerializer(ClosedInputSerializer):
    moves = serializers.ListField(
        child=serializers.JSONField(),
        max_length=51,
        help_text="The whole move line from the deal, [[from, to], ...]; the server replays it and measures "
        "the score and the time itself.",
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

    # The standing on the day's board comes in the context: see game_result.
    rank = serializers.SerializerMethodField(
        help_text="Place on the day's leaderboard for a ranked daily attempt (equal score and seconds share a "
        "place); null for other games and while the result is held for review."
    )
    of = serializers.SerializerMethodField(help_text="Players on the day's leaderboard, for a ranked daily attempt.")
    review = serializers.SerializerMethodField(
        help_text="A ranked result flagged for implausible timing: pending (off the board until staff decide), "
        "cleared (on the board) or confirmed (off it); null when never flagged."
    )

    def get_rank(self, game: Game) -> int | None:
        standing: DailyStanding | None = self.context["standing"]
        return standing.rank if standing is not None else None

    def get_of(self, game: Game) -> int | None:
        standing: DailyStanding | None = self.context["standing"]
        return standing.of if standing is not None else None

    @extend_schema_field(serializers.ChoiceField(choices=Game.Review.choices, allow_null=True))
    def get_review(self, game: Game) -> str | None:
        return game.review or None


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
    deal_code = serializers.CharField(
        source="deal.shared_code", allow_null=True, help_text="The deal's code with its check symbol, to share."
    )
    daily_date = serializers.DateField(source="deal.daily_date", allow_null=True)
    ranked = serializers.BooleanField()
    started_at = serializers.DateTimeField()
    server_now = ServerNowField(help_text="The server's clock when it answered, to run a timer.")
    moves = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    piles = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    version = serializers.IntegerField()
    hints = serializers.IntegerField(help_text="Hints taken; a hinted game is unranked.")
    hints_open = serializers.SerializerMethodField(
        help_text="Whether hints (and, for an unranked game, the still-winnable indicator) may be asked for now: "
        "false in a race and on a practice game of a daily deal whose day (UTC) is not over."
    )
    practice_reason = serializers.SerializerMethodField(
        help_text="Why a daily game is practice: repeat (the player's ranked attempt at the day was taken), "
        "address_limit (the day's ranked attempts from the player's network are used up; an account a day old or "
        "more keeps a ranked attempt of its own); else null."
    )
    ws = serializers.CharField(source="ws_path", help_text="The player's socket path.")
    result = serializers.SerializerMethodField()

    @extend_schema_field(serializers.ChoiceField(choices=Game.PracticeReason.choices, allow_null=True))
    def get_practice_reason(self, game: Game) -> str | None:
        return game.practice_reason or None

    @extend_schema_field(serializers.BooleanField())
    def get_hints_open(self, game: Game) -> bool:
        return hints_open(game=game, today=self.context["now"].date())

    @extend_schema_field(ResultSerializer(allow_null=True))
    def get_result(self, game: Game) -> dict[str, Any] | None:
        return game_result(game)


def game_result(game: Game) -> dict[str, Any] | None:
    """The result JSON of a finished game (None while it is played), with its standing on its day's
    board for a ranked daily attempt."""
    if game.status != Game.Status.FINISHED:
        return None
    standing = game_daily_standing(game=game)
    return ResultSerializer(game, context={"standing": standing}).data  # type: ignore[no-any-return]


def game_result_of(*, game_id: int) -> dict[str, Any] | None:
    """`game_result` of the stored game `game_id`."""
    return game_result(Game.objects.select_related("deal").get(pk=game_id))


def game_payload(game: Game, *, now: datetime.datetime) -> dict[str, Any]:
    """The game as the API and the sockets describe it, with `now` as the server's clock."""
    return GameSerializer(game, context={"now": now}).data  # type: ignore[no-any-return]


class HintInputSerializer(ClosedInputSerializer):
    accept_unranked = StrictBooleanField(
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
    deal_winnable = serializers.BooleanField(
        allow_null=True, help_text="null when the solver could not decide, or while the analysis is withheld."
    )
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
    withheld = serializers.BooleanField(
        help_text="The whole analysis (winnable, first losing move, lines) is withheld until the daily deal's date "
        "is over: every other field is null."
    )


class GameEventSerializer(serializers.Serializer):
    """One stored event, as the sockets send it (without "t" and "game")."""

    v = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=GameEvent.Kind.choices)
    move = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    piles = serializers.IntegerField()
    at = serializers.DateTimeField(help_text="The server's clock when it accepted the change.")
    line = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()), allow_null=True)
    result = serializers.SerializerMethodField()

    @extend_schema_field(EventResultSerializer(allow_null=True))
    def get_result(self, event: GameEvent) -> dict[str, Any] | None:
        # The game's own result, given in the context: only a finish event carries it.
        return self.context["result"] if event.kind == GameEvent.Kind.FINISH else None  # type: ignore[no-any-return]


class GameEventsInputSerializer(serializers.Serializer):
    after = serializers.RegexField(
        r"\A[0-9]{1,9}\Z",
        required=False,
        default="0",
        trim_whitespace=False,  # "?after=+2" (a space) is refused, not read as 2
        help_text="Only the events after this version.",
    )


class GameEventsSerializer(serializers.Serializer):
    """A game's stored events, oldest first: enough to replay it at the speed it was played."""

    game = serializers.IntegerField()
    player = serializers.CharField(help_text="The nickname of the game's owner.")
    events = GameEventSerializer(many=True)
    more = serializers.BooleanField(help_text="More events follow: ask again with after = the last v.")


# A player's profile (games/profiles.py).


class StatsSerializer(serializers.Serializer):
    games = serializers.IntegerField(help_text="Finished games, ranked or not.")
    wins = serializers.IntegerField()
    win_rate = serializers.FloatField(allow_null=True, help_text="wins / games, from 0 to 1; null with no games.")
    best_score = serializers.IntegerField(allow_null=True)
    fastest_win = serializers.IntegerField(allow_null=True, help_text="Seconds.")
    average_win_seconds = serializers.FloatField(allow_null=True)
    average_piles = serializers.FloatField(allow_null=True, help_text="Piles left at the end, on average.")
    current_streak = serializers.IntegerField(help_text="Consecutive UTC dates with a ranked daily game finished.")
    longest_streak = serializers.IntegerField()


class FinishedResultSerializer(serializers.Serializer):
    """How a finished game ended: the fields every listing of finished games shows."""

    score = serializers.IntegerField()
    piles = serializers.IntegerField()
    won = serializers.BooleanField()


class ProfileGameSerializer(FinishedResultSerializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="The game's page: its replay.")
    mode = serializers.ChoiceField(choices=Game.Mode.choices)
    daily_date = serializers.DateField(allow_null=True)
    deal_code = serializers.CharField(allow_null=True)
    ranked = serializers.BooleanField()
    seconds = serializers.IntegerField()
    finished_at = serializers.DateTimeField()


class ScorePointSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    at = serializers.DateTimeField()
    score = serializers.IntegerField()
    won = serializers.BooleanField()


class DailyResultSerializer(FinishedResultSerializer):
    date = serializers.DateField()
    game = serializers.IntegerField()


class CalendarSerializer(serializers.Serializer):
    first_day = serializers.DateField()
    last_day = serializers.DateField(help_text="Today (UTC).")
    days = DailyResultSerializer(many=True, help_text="Dates with a finished ranked daily game, oldest first.")


class ProfileSerializer(serializers.Serializer):
    nickname = serializers.CharField()
    account = serializers.BooleanField()
    since = serializers.DateTimeField(help_text="When the player first played.")
    stats = StatsSerializer()
    recent = ProfileGameSerializer(many=True, help_text="The newest finished games, newest first.")
    scores = ScorePointSerializer(many=True, help_text="Score over time: the last 100 finished games, oldest first.")
    calendar = CalendarSerializer()


def _profile_game(game: Game) -> dict[str, Any]:
    return {
        "id": game.pk,
        "url": reverse("game", args=[game.pk]),
        "mode": game.mode,
        "daily_date": game.deal.daily_date,
        "deal_code": game.deal.shared_code,
        "ranked": game.ranked,
        "score": game.score,
        "piles": game.piles,
        "won": game.won,
        "seconds": game.seconds,
        "finished_at": game.finished_at,
    }


def profile_payload(profile: PlayerProfile, *, today: datetime.date) -> dict[str, Any]:
    player = profile.player
    return ProfileSerializer(
        {
            "nickname": player.nickname,
            "account": player.is_account,
            "since": player.created_at,
            "stats": profile.stats,
            "recent": [_profile_game(game) for game in profile.recent],
            "scores": [
                {"game": game.pk, "at": game.finished_at, "score": game.score, "won": game.won}
                for game in profile.scores
            ],
            "calendar": {"first_day": profile.calendar_from, "last_day": today, "days": profile.calendar},
        }
    ).data
