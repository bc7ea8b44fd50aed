"""Fair play for ranked daily attempts: the per-address allowance, and timing flags computed from the
stored events' server times. A flagged result is held off the public board until staff clear it.

Thresholds come from settings (FAIR_PLAY_*); `timing_flags` itself is pure, so it is tested on
made-up times.
"""

from __future__ import annotations

import datetime
import itertools
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from django.conf import settings
from django.db import connection
from django.utils.crypto import salted_hmac

from accounts.models import Player

from .models import Game, GameEvent, RankedSlot


@dataclass(frozen=True, slots=True)
class Flag:
    """Why a result is held for review: `code` for programs, `detail` for the staff who review it."""

    code: str
    detail: str

    def as_json(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class TimingRules:
    min_win_seconds: int
    min_median_move_ms: int
    min_timed_moves: int
    max_unseen_moves: int

    @classmethod
    def from_settings(cls) -> TimingRules:
        return cls(
            min_win_seconds=settings.FAIR_PLAY_MIN_WIN_SECONDS,
            min_median_move_ms=settings.FAIR_PLAY_MIN_MEDIAN_MOVE_MS,
            min_timed_moves=settings.FAIR_PLAY_MIN_TIMED_MOVES,
            max_unseen_moves=settings.FAIR_PLAY_MAX_UNSEEN_MOVES,
        )


def timing_flags(
    *, won: bool, seconds: int, move_times: Sequence[datetime.datetime], unseen_moves: int, rules: TimingRules
) -> list[Flag]:
    """The reasons a result's timing is not humanly plausible (none: it is).

    `move_times` are the server's times of the moves and undos that arrived one by one, in order;
    `unseen_moves` counts the moves of the final line that reached the server only in a REST finish.
    """
    flags = []
    if won and seconds < rules.min_win_seconds:
        flags.append(Flag("fast_win", f"won in {seconds} s (under {rules.min_win_seconds} s)"))
    if len(move_times) >= rules.min_timed_moves:
        gaps = [(later - earlier).total_seconds() * 1000 for earlier, later in itertools.pairwise(move_times)]
        median = statistics.median(gaps)
        if median < rules.min_median_move_ms:
            flags.append(
                Flag(
                    "fast_moves",
                    f"median gap between {len(move_times)} moves {median:.0f} ms (under {rules.min_median_move_ms} ms)",
                )
            )
    if unseen_moves > rules.max_unseen_moves:
        flags.append(Flag("unseen_moves", f"{unseen_moves} moves arrived only in the finish, never one by one (REST)"))
    return flags


def finish_flags(
    *, game: Game, seconds: int, won: bool, last_move_at: datetime.datetime | None, unseen_moves: int
) -> list[Flag]:
    """The timing flags of a ranked game finishing now, from its stored events; `last_move_at` is the
    time of the finishing move when the finish is itself a move (its event is not stored yet)."""
    move_times = list(
        GameEvent.objects.filter(game=game, kind__in=[GameEvent.Kind.MOVE, GameEvent.Kind.UNDO])
        .order_by("v")
        .values_list("at", flat=True)
    )
    if last_move_at is not None:
        move_times.append(last_move_at)
    return timing_flags(
        won=won, seconds=seconds, move_times=move_times, unseen_moves=unseen_moves, rules=TimingRules.from_settings()
    )


def unseen_move_count(*, stored: Sequence[Sequence[int]], finished: Sequence[Sequence[int]]) -> int:
    """How many moves of the `finished` line come after the part it shares with the `stored` line (the
    moves that arrived one by one): those reached the server only in the finish."""
    shared = 0
    for stored_move, finished_move in zip(stored, finished, strict=False):
        if list(stored_move) != list(finished_move):
            break
        shared += 1
    return len(finished) - shared


def address_key(address: str) -> str:
    """A keyed hash of a client address: enough to count an address's ranked attempts, without storing
    the address itself."""
    return salted_hmac("games.fair_play.address", address, algorithm="sha256").hexdigest()


def address_attempts(*, deal_id: int, key: str) -> int:
    """Ranked attempts at a deal taken from the address with this key and counted in its allowance (an
    established account's own attempt is not). The ledger keeps them when games and players go."""
    return RankedSlot.objects.filter(deal_id=deal_id, address_key=key, own_slot=False).count()


def address_lock(*, deal_id: int, key: str) -> None:
    """Hold, until the transaction ends, a lock on the address's ranked attempts at the deal, so that
    simultaneous first starts from one address are counted one after the other and none slips past
    the allowance. A PostgreSQL advisory lock: it names no row, so other addresses never wait (two that
    share the key's first 32 bits only queue a moment). SQLite writes one transaction at a time anyway."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [deal_id % 2**31, int(key[:8], 16) - 2**31])


def holds_own_slot(*, player: Player, now: datetime.datetime) -> bool:
    """Whether the player is an established account, whose ranked attempt is its own whatever its
    address: an account at least ACCOUNT_OWN_SLOT_AFTER_HOURS old. With the default 24 hours, an account
    made once a daily deal is out never has an attempt of its own at that deal."""
    user = player.user
    return user is not None and now - user.date_joined >= datetime.timedelta(
        hours=settings.ACCOUNT_OWN_SLOT_AFTER_HOURS
    )
