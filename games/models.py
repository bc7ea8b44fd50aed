from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from accounts.models import Player

from .engine.deals import checked_deal_code


class Deal(models.Model):
    """A deal: 52 cards, named either by a UTC date (the daily deal) or by a deal code."""

    cards = models.JSONField(help_text="52 cards, position 0 first, e.g. 'TD'.")
    daily_date = models.DateField(null=True, blank=True, unique=True)
    code = models.CharField(max_length=9, null=True, blank=True, unique=True, help_text="Display form.")
    solution = models.JSONField(
        null=True, blank=True, help_text="A winning line found by the solver; never sent before the deal's day is over."
    )
    seed = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="A daily deal's seed (engine.daily_seed): secret until its day is over, then published.",
    )
    attempt = models.PositiveSmallIntegerField(default=0, help_text="The seed's first attempt certified winnable.")
    lines_secret_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="An arena's deal: no hint, still-winnable indicator or analysis on it before the arena's end.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(daily_date__isnull=False) | Q(code__isnull=False), name="deal_is_named")
        ]

    def __str__(self) -> str:
        return f"daily {self.daily_date}" if self.daily_date else f"code {self.code}"

    @property
    def shared_code(self) -> str | None:
        """The deal code as shown and shared, with its check symbol ('K7QD-M2XP-X'); `code` is the name it
        is stored under, without it. None for a daily deal."""
        return checked_deal_code(self.code) if self.code else None


class Game(models.Model):
    class Mode(models.TextChoices):
        DAILY = "daily"
        NEW = "new"
        CODE = "code"
        RACE = "race"
        ARENA = "arena"

    class Status(models.TextChoices):
        PLAYING = "playing"
        FINISHED = "finished"

    class PracticeReason(models.TextChoices):
        REPEAT = "repeat", "the player's ranked attempt at the day's deal was taken already"
        ADDRESS_LIMIT = "address_limit", "the day's ranked attempts from the player's address were used up"

    class Review(models.TextChoices):
        PENDING = "pending", "held for review, waiting for staff"
        CLEARED = "cleared", "cleared by staff: on the board"
        CONFIRMED = "confirmed", "confirmed by staff: off the board"

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="games")
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="games")
    mode = models.CharField(max_length=8, choices=Mode.choices)
    ranked = models.BooleanField(default=False)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PLAYING)
    started_at = models.DateTimeField(help_text="When the server handed the deal out; the clock starts here.")
    finished_at = models.DateTimeField(null=True, blank=True)
    moves = models.JSONField(default=list, help_text="The current move line, [[from, to], ...].")
    piles = models.PositiveSmallIntegerField(default=52)
    version = models.PositiveIntegerField(default=0, help_text="The v of the game's newest event (1 after the start).")
    hints = models.PositiveSmallIntegerField(default=0, help_text="Hints taken; any hint unranks the game.")
    race_code = models.CharField(
        max_length=12, blank=True, default="", help_text="The race room this game was played in (mode race)."
    )
    score = models.PositiveIntegerField(null=True, blank=True)
    seconds = models.PositiveIntegerField(null=True, blank=True)
    practice_reason = models.CharField(
        max_length=16, choices=PracticeReason.choices, blank=True, default="", help_text="Why a daily game is practice."
    )
    risk = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="A ranked result's fair-play risk, 0-100 (games.engine.risk)."
    )
    risk_reasons = models.JSONField(
        default=list, blank=True, help_text="The signals behind the risk: [{code, points, detail}, ...]."
    )
    verdicts = models.JSONField(
        default=list,
        blank=True,
        help_text="The solver on each move, undo and finish, in order: [{status, choices, losing, dead_end}, ...].",
    )
    assessed_at = models.DateTimeField(
        null=True, blank=True, help_text="When the solver's verdicts were weighed; null while only timing was."
    )
    review = models.CharField(max_length=9, choices=Review.choices, blank=True, default="")
    review_reason = models.TextField(blank=True, default="", help_text="Why staff cleared or confirmed it.")
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # A player has one ranked attempt per daily deal, whatever races happen between requests.
            models.UniqueConstraint(fields=["player", "deal"], condition=Q(ranked=True), name="one_ranked_per_deal"),
        ]
        indexes = [
            # A result's place on its day's board: an index-only count of the entries ahead of it.
            models.Index(
                fields=["deal", "-score", "seconds"],
                condition=Q(ranked=True, status="finished", review__in=["", "cleared"]),
                name="game_daily_board_idx",
            ),
            # Ranked attempts still in play: those of a day that is over get closed.
            models.Index(fields=["deal"], condition=Q(ranked=True, status="playing"), name="game_ranked_playing_idx"),
            models.Index(fields=["review"], condition=Q(review="pending"), name="game_review_pending_idx"),
            # Finished ranked results whose solver verdicts are still to be weighed (manage.py assess_games).
            models.Index(
                fields=["finished_at"],
                condition=Q(ranked=True, status="finished", assessed_at__isnull=True),
                name="game_unassessed_idx",
            ),
            models.Index(fields=["player", "deal", "status"], name="game_player_deal_idx"),
            # A profile's newest finished games (games.profiles.player_profile), read without sorting all.
            models.Index(fields=["player", "status", "-finished_at", "-id"], name="game_player_finished_idx"),
        ]

    def __str__(self) -> str:
        return f"game {self.pk} ({self.mode}, {self.status})"

    @property
    def won(self) -> bool:
        return self.status == self.Status.FINISHED and self.piles == 1

    @property
    def ws_path(self) -> str:
        """The player's socket for this game."""
        return f"/ws/games/{self.pk}/"


class RankedSlot(models.Model):
    """One ranked attempt taken at a daily deal: the ledger the per-address allowance counts.

    A row outlives its game and its player (both are set to null when they are deleted), so deleting an
    account never frees the address's ranked attempts for the day.
    """

    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="ranked_slots")
    address_key = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="A keyed hash of the client address (games.fair_play.address_key); blank for internal starts.",
    )
    player = models.ForeignKey(Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    game = models.OneToOneField(Game, on_delete=models.SET_NULL, null=True, blank=True, related_name="ranked_slot")
    own_slot = models.BooleanField(
        default=False,
        help_text="Taken by an established account's own ranked attempt: not counted in the address's allowance.",
    )
    taken_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["deal", "address_key"], name="ranked_slot_address_idx")]

    def __str__(self) -> str:
        return f"ranked slot {self.pk} on deal {self.deal_id}"


class GameEvent(models.Model):
    """One change to a game, appended in the same transaction as the change: the game's history.

    `v` is the game's version after the event (1 for the start), unique per game and without gaps, so
    a client that missed events asks for the ones after the last `v` it has.
    """

    class Kind(models.TextChoices):
        START = "start"
        MOVE = "move"
        UNDO = "undo"
        HINT = "hint"
        FINISH = "finish"

    # No index of its own: the unique (game, v) below serves every lookup by game, and one index fewer
    # is one fewer to write with every move.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events", db_index=False)
    v = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    move = models.JSONField(null=True, blank=True, help_text="The move played, or taken back by an undo.")
    line = models.JSONField(
        null=True, blank=True, help_text="For a finish that replaced the stored line: the whole verified line."
    )
    piles = models.PositiveSmallIntegerField()
    at = models.DateTimeField(help_text="The server's clock when it accepted the change.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "v"], name="one_event_per_game_version")]
        indexes = [
            # The finished games whose events are still rows, for manage.py compact_games: one entry a
            # game, written by its finish alone (a move's row does not match the condition).
            models.Index(fields=["game"], condition=Q(kind="finish"), name="game_event_finish_idx"),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id} v{self.v} {self.kind}"


class GameRecord(models.Model):
    """A finished game's events folded into one row (games.history), once nothing can add to them:
    its event rows are removed in the same transaction. games.history.game_events reads either form.

    `events` holds the events in order, v 1 first, one fixed-width entry each (history.ENTRY): kind,
    piles after it, the move's two pile indexes (255: no move), and its time as microseconds after the
    game's `started_at`. The one line an event may bring (a finish's) is `line`."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="record")
    events = models.BinaryField(help_text="The events, one 12-byte entry each (games.history.ENTRY).")
    line = models.JSONField(null=True, blank=True, help_text="The whole line the game's finish brought, if it did.")

    def __str__(self) -> str:
        return f"record of game {self.game_id}"
