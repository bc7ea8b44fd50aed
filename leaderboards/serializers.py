"""The JSON shapes of the leaderboards API (documented in docs/api.md and at /api/schema/)."""

from __future__ import annotations

from rest_framework import serializers

# Page numbers and dates in ASCII digits only: int() and fromisoformat would take other scripts' digits
# or other ISO forms (2026W481), which the API does not promise.
PAGE_PATTERN = r"\A[1-9][0-9]{0,5}\Z"
DATE_PATTERN = r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}\Z"


class LeaderboardQuerySerializer(serializers.Serializer):
    # Not trimmed: "?page=+2" (a space) is refused, not read as 2. An empty "?page=" counts as absent.
    page = serializers.RegexField(
        PAGE_PATTERN,
        required=False,
        default="1",
        trim_whitespace=False,
        help_text="1-based page of 50 entries (digits 0-9).",
    )


class LeaderboardEntrySerializer(serializers.Serializer):
    """One player's ranked attempt on a day's board (leaderboards.selectors.BoardRow)."""

    rank = serializers.IntegerField(help_text="Equal score and seconds share a rank (1, 2, 2, 4).")
    player = serializers.CharField(help_text="The player's nickname.")
    score = serializers.IntegerField()
    piles = serializers.IntegerField()
    seconds = serializers.IntegerField()
    won = serializers.BooleanField()
    game = serializers.IntegerField(help_text="The game's id: its replay once the day is over.")
    provisional = serializers.BooleanField(
        help_text="The place may still change: the result is not assessed yet, or it is among the day's first "
        "places and neither reviewed nor past its waiting time (docs/fair-play.md)."
    )


class LeaderboardPageSerializer(serializers.Serializer):
    date = serializers.DateField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    count = serializers.IntegerField(help_text="Players on the day's board.")
    day_over = serializers.BooleanField(help_text="The day is over (UTC): its games can be replayed by anyone.")
    entries = LeaderboardEntrySerializer(many=True, source="rows")


class MyStandingSerializer(serializers.Serializer):
    date = serializers.DateField()
    status = serializers.ChoiceField(
        choices=["on_board", "under_review", "off_board", "none"],
        help_text="on_board; under_review: waiting for a quick review, off the board until staff decide; "
        "off_board: reviewed and kept off the board; none: no finished ranked attempt that day.",
    )
    entry = LeaderboardEntrySerializer(allow_null=True, source="row")
    page = serializers.IntegerField(allow_null=True, help_text="The board page holding the entry.")
    around = LeaderboardEntrySerializer(
        many=True,
        help_text="The board around the entry: up to 2 rows on each side of it, with it; empty off the board.",
    )


class PilesCountSerializer(serializers.Serializer):
    piles = serializers.IntegerField()
    players = serializers.IntegerField()


class DaySummarySerializer(serializers.Serializer):
    date = serializers.DateField()
    players = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="Attempts that ended with one pile.")
    win_rate = serializers.FloatField(allow_null=True)
    median_score = serializers.FloatField(allow_null=True)
    piles = PilesCountSerializer(many=True, help_text="Players by final pile count, 1 to 52.")


class DailySeedSerializer(serializers.Serializer):
    date = serializers.DateField()
    commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256 of the day's seed (hex), published before the day begins."
    )
    seed = serializers.CharField(allow_null=True, help_text="The day's seed, published once the day is over.")
    attempt = serializers.IntegerField(allow_null=True, help_text="The seed's first attempt certified winnable.")


class AllTimeRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    value = serializers.FloatField(help_text="Wins, the longest streak in days, or the average score.")
    days = serializers.IntegerField(help_text="Days on the daily boards (for the average: in its window).")


class AllTimeSerializer(serializers.Serializer):
    wins = AllTimeRowSerializer(many=True, help_text="Most ranked daily attempts won.")
    streaks = AllTimeRowSerializer(many=True, help_text="Longest runs of consecutive days on the board.")
    average = AllTimeRowSerializer(
        many=True, help_text="Best average score over the window, among players on the board 10 days of it or more."
    )
    average_from = serializers.DateField()
    average_to = serializers.DateField()
