"""The boards' read model: tables shaped for the queries of the leaderboard pages, written in the same
transaction as the changes to games they follow (leaderboards/receivers.py). Games stay the truth."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from accounts.models import Player
from games.models import Game


class DailyEntry(models.Model):
    """One player's ranked attempt at a date's daily deal, finished and verified by the server."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="daily_entry")
    date = models.DateField()
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="daily_entries")
    score = models.PositiveIntegerField()
    seconds = models.PositiveIntegerField()
    piles = models.PositiveSmallIntegerField()
    finished_at = models.DateTimeField()
    on_board = models.BooleanField(help_text="False while held for review, or once staff confirmed the flags.")

    class Meta:
        verbose_name_plural = "daily entries"
        constraints = [models.UniqueConstraint(fields=["date", "player"], name="one_daily_entry_per_player")]
        indexes = [
            # Pages in board order, the entries ahead of a rank, the median: index-only range scans.
            models.Index(
                fields=["date", "-score", "seconds", "finished_at", "game"],
                condition=Q(on_board=True),
                name="daily_entry_board_idx",
            ),
            # The day's histogram of final piles.
            models.Index(fields=["date", "piles"], condition=Q(on_board=True), name="daily_entry_piles_idx"),
            # A player's days, for their all-time record.
            models.Index(fields=["player", "date"], name="daily_entry_player_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.date} {self.player_id}: {self.score}"

    @property
    def won(self) -> bool:
        return self.piles == 1


class DailyScoreCount(models.Model):
    """How many players of a date's board ended with each score (and so each pile count): a few hundred
    rows a day, from which the board's size, any rank, the page a row is on, the median and the
    histogram are read without counting the day's entries one by one."""

    date = models.DateField()
    score = models.PositiveIntegerField()
    piles = models.PositiveSmallIntegerField(help_text="The pile count that score comes with.")
    players = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["date", "score"], name="one_count_per_daily_score")]

    def __str__(self) -> str:
        return f"{self.date} {self.score}: {self.players}"


class DailyRecord(models.Model):
    """A player's all-time daily record, from their entries on the boards: kept up to date whenever those
    change, so the all-time boards read a few rows instead of every entry ever made."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, primary_key=True, related_name="daily_record")
    days = models.PositiveIntegerField(default=0, help_text="Days with an entry on the board.")
    wins = models.PositiveIntegerField(default=0, help_text="Ranked daily attempts won (one pile left).")
    longest_streak = models.PositiveIntegerField(default=0, help_text="Most consecutive days on the board.")
    current_streak = models.PositiveIntegerField(default=0, help_text="The run of days ending on last_date.")
    last_date = models.DateField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["-wins", "player"], condition=Q(wins__gt=0), name="daily_record_wins_idx"),
            models.Index(
                fields=["-longest_streak", "player"], condition=Q(longest_streak__gt=0), name="daily_record_streak_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id}: {self.wins} wins, longest streak {self.longest_streak}"
