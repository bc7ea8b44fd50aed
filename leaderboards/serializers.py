"""The JSON shapes of the leaderboards API (documented in docs/api.md and at /api/schema/)."""

from __future__ import annotations

from rest_framework import serializers


class LeaderboardQuerySerializer(serializers.Serializer):
    page = serializers.IntegerField(min_value=1, default=1, help_text="1-based page of 50 entries.")


class LeaderboardEntrySerializer(serializers.Serializer):
    """One ranked game on the board."""

    # Reads a Game annotated with its `rank` by leaderboards.selectors.
    rank = serializers.IntegerField()
    player = serializers.CharField(source="player.nickname")
    score = serializers.IntegerField()
    piles = serializers.IntegerField()
    seconds = serializers.IntegerField()
    won = serializers.BooleanField()
    game = serializers.IntegerField(source="pk")


class LeaderboardPageSerializer(serializers.Serializer):
    date = serializers.DateField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    count = serializers.IntegerField()
    entries = LeaderboardEntrySerializer(many=True)
