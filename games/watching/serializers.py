"""The JSON shapes of the watching API (docs/api.md, "Watching"; the same entries go over /ws/live/)."""

from __future__ import annotations

from rest_framework import serializers

from accordion_site.serializers import ClosedInputSerializer, StrictBooleanField
from games.models import Game

from .selectors import LiveGame


class LiveGameSerializer(serializers.Serializer):
    """One game of the live list; the server's clock comes in the context (`now`)."""

    id = serializers.IntegerField()
    player = serializers.CharField(help_text="The player's nickname.")
    mode = serializers.ChoiceField(choices=Game.Mode.choices)
    piles = serializers.IntegerField()
    seconds = serializers.SerializerMethodField(help_text="Time played so far, by the server's clock.")
    started_at = serializers.DateTimeField()
    watchers = serializers.IntegerField(help_text="Sockets watching the game, over every server process.")
    race = serializers.CharField(allow_null=True, help_text="The race room's code for a race game, else null.")
    daily_date = serializers.DateField(allow_null=True, help_text="The date of a daily deal, else null.")
    withheld = serializers.BooleanField(
        help_text="On a daily deal whose day (UTC) is not over: its moves reach nobody but its player till then, "
        "so its watch socket refuses everyone else (`spoiler`)."
    )
    ws = serializers.CharField(help_text="The watch socket's path.")

    def get_seconds(self, game: LiveGame) -> int:
        return game.seconds(self.context["now"])


class LiveListSerializer(serializers.Serializer):
    games = LiveGameSerializer(many=True, help_text="Most interesting first: most watched, then fewest piles.")
    server_now = serializers.DateTimeField(help_text="The server's clock when it answered, to run the timers.")


class WatchSettingSerializer(ClosedInputSerializer):
    watchable = StrictBooleanField(help_text="Others may watch your games live and find them in the live list.")
