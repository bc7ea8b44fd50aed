from __future__ import annotations

import datetime

from django.db import models
from django.db.models import Q

from accounts.models import Player
from games.models import Deal, Game

# An arena lasts this many minutes, and starts at most this many seconds after its creation.
MIN_MINUTES = 1
MAX_MINUTES = 120
MAX_STARTS_IN = 7 * 24 * 3600


class Arena(models.Model):
    """A tournament against one clock: everyone plays deal 1, then deal 2, … until `ends_at`.

    The deals come from `seed` (arenas/deals.py), secret until the arena is over; `commitment`, its
    SHA-256, is shown from the creation on, so the deals cannot have been chosen afterwards.
    """

    class Kind(models.TextChoices):
        PLAYERS = "players", "created by a player"
        HOURLY = "hourly", "the site's hourly arena"
        DAILY = "daily", "the site's daily arena"

    class State(models.TextChoices):
        UPCOMING = "upcoming"
        LIVE = "live"
        FINISHED = "finished"

    code = models.CharField(max_length=12, unique=True, help_text="Short code of unambiguous symbols.")
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.PLAYERS)
    minutes = models.PositiveSmallIntegerField()
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(help_text="starts_at + minutes.")
    seed = models.CharField(max_length=64, help_text="The deals' seed (arenas/deals.py): published once over.")
    commitment = models.CharField(max_length=64, help_text="SHA-256 of the seed, published from the creation.")
    created_by = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField()
    ended_at = models.DateTimeField(
        null=True, blank=True, help_text="When the games in play at the end were counted (services.arena_end)."
    )

    class Meta:
        constraints = [
            # The schedule makes each of the site's arenas once, however often it runs.
            models.UniqueConstraint(
                fields=["kind", "starts_at"], condition=~Q(kind="players"), name="one_scheduled_arena_per_start"
            ),
        ]
        indexes = [
            models.Index(fields=["ends_at"], name="arena_ends_idx"),
            models.Index(fields=["starts_at"], name="arena_starts_idx"),
        ]

    def __str__(self) -> str:
        return f"arena {self.code} ({self.minutes} min from {self.starts_at:%Y-%m-%d %H:%M})"

    def state(self, now: datetime.datetime) -> str:
        if now < self.starts_at:
            return self.State.UPCOMING
        if now < self.ends_at:
            return self.State.LIVE
        return self.State.FINISHED


class ArenaDeal(models.Model):
    """Deal `k` of an arena, derived and certified on first need (or ahead of it) and stored."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="deals")
    k = models.PositiveIntegerField()
    attempt = models.PositiveSmallIntegerField(help_text="The derivation's first attempt certified winnable.")
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["arena", "k"], name="one_deal_per_arena_place")]

    def __str__(self) -> str:
        return f"deal {self.k} of arena {self.arena_id}"


class Participant(models.Model):
    """A player in an arena, with their totals as last counted (services.participant_recount)."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="participants")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="arena_seats")
    joined_at = models.DateTimeField()
    points = models.PositiveIntegerField(default=0)
    games = models.PositiveIntegerField(default=0, help_text="Games counted: finished, and not held for review.")
    wins = models.PositiveIntegerField(default=0)
    fire = models.BooleanField(default=False, help_text="On fire: the last game counted was a win.")
    reached_at = models.DateTimeField(help_text="When the points total was reached: ties go to the earlier.")
    reached = models.PositiveIntegerField(default=0, help_text="The k of the participant's newest game (0: none yet).")
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="The newest game."
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["arena", "player"], name="one_seat_per_arena")]
        indexes = [models.Index(fields=["arena", "-points", "reached_at", "id"], name="arena_standings_idx")]

    def __str__(self) -> str:
        return f"player {self.player_id} in arena {self.arena_id}"


class ArenaGame(models.Model):
    """A participant's k-th game, on the arena's deal k, with what it counted for."""

    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="arena_games")
    k = models.PositiveIntegerField()
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="arena_game")
    points = models.PositiveIntegerField(null=True, blank=True, help_text="What it counted for; null: not counted.")
    fire = models.BooleanField(default=False, help_text="A win right after a win: its win bonus counted twice.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["participant", "k"], name="one_game_per_arena_deal")]

    def __str__(self) -> str:
        return f"game {self.game_id}: deal {self.k} of participant {self.participant_id}"
