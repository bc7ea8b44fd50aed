"""The JSON shapes of race rooms (docs/api.md, "Races", and /api/schema/): the REST answers and the
room socket's `room` and `standings` messages alike."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accordion_site.serializers import ClosedInputSerializer, StrictCharField

from .models import MAX_TIME_LIMIT, MIN_TIME_LIMIT, Room

_GAME_ID_MAX = 2**63 - 1


class RaceCreateInputSerializer(ClosedInputSerializer):
    code = StrictCharField(
        required=False, allow_blank=True, max_length=32, help_text="A deal code to race; a fresh deal otherwise."
    )
    time_limit = serializers.IntegerField(
        required=False, min_value=MIN_TIME_LIMIT, max_value=MAX_TIME_LIMIT, help_text="Seconds (default 600)."
    )
    ghost = serializers.IntegerField(
        required=False, min_value=1, max_value=_GAME_ID_MAX, help_text="A finished game to race as a ghost."
    )


class SeatSerializer(serializers.Serializer):
    """Who holds a seat, and where their game stands: what the room's racers and standings both show."""

    racer = serializers.IntegerField(help_text="The seat's id: progress and standings name racers by it.")
    player = serializers.IntegerField(help_text="The player (for a ghost: who played its line).")
    nickname = serializers.CharField()
    ghost = serializers.BooleanField()
    left = serializers.BooleanField(help_text="Left after the start; still in the standings.")
    piles = serializers.IntegerField()
    score = serializers.IntegerField()


class RacerSerializer(SeatSerializer):
    ready = serializers.BooleanField()
    connected = serializers.BooleanField()
    game = serializers.IntegerField(allow_null=True, help_text="The racer's game; null until the start.")
    status = serializers.ChoiceField(choices=["waiting", "playing", "finished"])
    finished = serializers.BooleanField()
    v = serializers.IntegerField(help_text="The version of the racer's game shown here (0 before the start).")
    line = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        allow_null=True,
        help_text="The racer's move line; null until the start.",
    )
    moves = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True, help_text="Stored when the race ends.")
    rematch = serializers.BooleanField(help_text="Asked for, or agreed to, a rematch after the race.")


class StandingSerializer(SeatSerializer):
    place = serializers.IntegerField(help_text="Equal results share a place (1, 2, 2, 4).")
    won = serializers.BooleanField(help_text="One pile left within the time limit.")
    seconds = serializers.IntegerField()
    game = serializers.IntegerField(allow_null=True, help_text="The racer's game, to watch as a replay.")


class RoomSerializer(serializers.Serializer):
    """A race room; nothing in it names the deal before the start signal."""

    code = serializers.CharField()
    state = serializers.ChoiceField(choices=Room.State.choices)
    round = serializers.IntegerField(help_text="1, then one more for each rematch.")
    version = serializers.IntegerField(help_text="Grows with every change: keep the newest room you hear.")
    host = serializers.IntegerField(allow_null=True)
    time_limit = serializers.IntegerField(help_text="Seconds from the start signal.")
    starts_at = serializers.DateTimeField(allow_null=True)
    ends_at = serializers.DateTimeField(allow_null=True)
    server_now = serializers.DateTimeField(help_text="The server's clock when it answered.")
    url = serializers.CharField(help_text="The invite link.")
    ws = serializers.CharField(help_text="The room socket's path.")
    deal = serializers.ListField(child=serializers.CharField(), allow_null=True, help_text="null until the start.")
    deal_code = serializers.CharField(allow_null=True, help_text="null until the start.")
    deal_picked = serializers.BooleanField(help_text="The host picked a deal code (secret until the start).")
    racers = RacerSerializer(many=True)
    waiting = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="In the lobby, the racers present who are not ready yet (the start waits for them).",
    )
    standings = StandingSerializer(
        many=True, allow_null=True, help_text="From the start: the racers done so far, best first; null before."
    )


def room_payload(view: dict[str, Any]) -> dict[str, Any]:
    """The room JSON of a `selectors.room_view`."""
    return RoomSerializer(view).data  # type: ignore[no-any-return]
