from __future__ import annotations

from django.db import models
from django.db.models import Q

from accounts.models import Player
from games.models import Deal, Game

# Up to this many racers (ghosts included) share a room; anyone else watches.
MAX_RACERS = 8
# A race lasts this long from its start signal, in seconds, unless the host sets it within these bounds.
DEFAULT_TIME_LIMIT = 600
MIN_TIME_LIMIT = 60
MAX_TIME_LIMIT = 3600


class Room(models.Model):
    """A race room: a code to share, a host, and its rounds (a rematch is the next). A round's deal is
    stored only at its start, so nothing before the start signal can reveal it."""

    class State(models.TextChoices):
        LOBBY = "lobby"
        COUNTDOWN = "countdown"
        RACING = "racing"
        FINISHED = "finished"

    code = models.CharField(max_length=12, unique=True, help_text="Short code of unambiguous symbols.")
    host = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="hosted_rooms")
    state = models.CharField(max_length=9, choices=State.choices, default=State.LOBBY)
    round = models.PositiveSmallIntegerField(default=1)
    version = models.PositiveIntegerField(default=1)
    time_limit = models.PositiveIntegerField(help_text="Seconds from the start signal to the end of the race.")
    deal_code = models.CharField(
        max_length=9, blank=True, default="", help_text="The deal the host picked (never shown before the start)."
    )
    deal = models.ForeignKey(
        Deal, null=True, blank=True, on_delete=models.PROTECT, related_name="+", help_text="Set at the start."
    )
    starts_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True, help_text="starts_at + time_limit.")
    finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"room {self.code} ({self.state}, round {self.round})"


class Racer(models.Model):
    """A seat in one round of a room: a player, or a ghost (a finished game replayed at its own pace)."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="racers")
    round = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE, related_name="race_seats")
    ghost = models.ForeignKey(Game, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    joined_at = models.DateTimeField()
    ready = models.BooleanField(default=False)
    connected = models.BooleanField(
        default=False, help_text="A room socket of the racer's is present (realtime/presence.py), as last stored."
    )
    away_since = models.DateTimeField(
        null=True, blank=True, help_text="When the racer's last room socket left; cleared when one comes."
    )
    kicked = models.BooleanField(default=False, help_text="Kicked by the host: watches this round.")
    left_at = models.DateTimeField(null=True, blank=True, help_text="Left after the start; kept for the standings.")
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="This round's game."
    )
    place = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Set when the race ends.")
    rematch = models.BooleanField(default=False, help_text="Asked for, or agreed to, a rematch after the race.")
    winner = models.BooleanField(default=False, help_text="First place in a race of two or more.")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(player__isnull=False, ghost__isnull=True) | Q(player__isnull=True, ghost__isnull=False),
                name="racer_is_player_or_ghost",
            ),
            models.UniqueConstraint(
                fields=["room", "round", "player"], condition=Q(player__isnull=False), name="one_seat_per_player"
            ),
        ]
        indexes = [models.Index(fields=["player", "place"], name="racer_player_place_idx")]

    def __str__(self) -> str:
        who = f"player {self.player_id}" if self.player_id else f"ghost of game {self.ghost_id}"
        return f"{who} in {self.room_id} round {self.round}"

    @property
    def is_ghost(self) -> bool:
        return self.ghost_id is not None
