"""A game's stored history: its events as rows (games.events appends them) or, once it is over, folded
into one GameRecord; the one reader of either form (`game_events`), the record's encoding, and the
service that folds them (`manage.py compact_games`).

A game's events are folded once nothing can add to them: it is finished and, for a game on a daily deal
(the daily itself, or a race against a ghost of it), the deal's day (UTC) is over, so its board, its
reviews and its withheld lines are settled. Each batch of games is folded in one transaction with the
games' rows locked: the record is written and the event rows deleted together, so a reader (who reads
the rows first, then the record: `game_events`) sees one form or the other, never half.

The encoding is fixed-width bytes, not JSON: an entry is 12 bytes where a JSON array such as
`[1,50,3,2,48213000]` takes twice that (and more as jsonb); a game of 80 events (960 bytes) stays under
PostgreSQL's 2 kB TOAST threshold, so its record is read with the row, uncompressed, and decoded by one
`struct.iter_unpack` call.
"""

from __future__ import annotations

import datetime
import logging
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from django.db import transaction
from django.db.models import Q

from .models import Game, GameEvent, GameRecord

logger = logging.getLogger(__name__)

# kind, piles after the event, the move's source and target pile (NO_PILE for none), and the event's
# time in microseconds after the game's start (signed: a race's clock starts at its signal).
ENTRY = struct.Struct("<BBBBq")
NO_PILE = 255
KINDS: tuple[str, ...] = tuple(GameEvent.Kind.values)
_KIND_CODES = {kind: code for code, kind in enumerate(KINDS)}
_MICROSECOND = datetime.timedelta(microseconds=1)

# An event's stored values, in the order of the `values_list` that reads them.
EventValues = tuple[int, str, Any, Any, int, datetime.datetime]  # v, kind, move, line, piles, at
_EVENT_VALUES = ("v", "kind", "move", "line", "piles", "at")


class NotCompactable(ValueError):
    """The stored events are not a game's whole history as the record holds one (v 1 on, no gap, at
    most one line, a finish's)."""


def encode(events: Sequence[EventValues], *, started_at: datetime.datetime) -> tuple[bytes, list[list[int]] | None]:
    """The record of a game's whole history: its entries and the line its finish brought."""
    line = None
    entries = bytearray()
    for expected, (v, kind, move, brought, piles, at) in enumerate(events, start=1):
        if v != expected:
            raise NotCompactable(f"v {v} where {expected} was due")
        if brought is not None:
            if kind != GameEvent.Kind.FINISH or line is not None:
                raise NotCompactable(f"v {v}: a line on a {kind} event")
            line = brought
        source, target = move if move is not None else (NO_PILE, NO_PILE)
        entries += ENTRY.pack(_KIND_CODES[kind], piles, source, target, (at - started_at) // _MICROSECOND)
    return bytes(entries), line


def decode(record: GameRecord, *, started_at: datetime.datetime, since: int = 0) -> Iterator[GameEvent]:
    """The events a record holds after version `since`, as the (unsaved) rows they were."""
    entries = memoryview(record.events)[since * ENTRY.size :]
    for v, (code, piles, source, target, offset) in enumerate(ENTRY.iter_unpack(entries), start=since + 1):
        kind = KINDS[code]
        yield GameEvent(
            game_id=record.game_id,
            v=v,
            kind=kind,
            move=[source, target] if source != NO_PILE else None,
            line=record.line if kind == GameEvent.Kind.FINISH else None,
            piles=piles,
            at=started_at + datetime.timedelta(microseconds=offset),
        )


def rows_hold_all(game: Game, *, since: int, first: int) -> bool:
    """Whether the event rows of `game` from version `first` on are all its events after `since`: only a
    finished game's older events are folded into its record (compact_games)."""
    return first == since + 1 or game.status != Game.Status.FINISHED


def game_events(game: Game, *, since: int = 0, until: int | None = None) -> list[GameEvent]:
    """The events of `game` with since < v <= until (no bound for None), in order, from its rows and
    its record: how every reader (replays, ghosts, resuming, the fair-play review) reads a history.
    The rows are read first: a compaction that commits between the two reads has written the record
    by then."""
    if until is not None and until <= since:
        return []  # nothing lies between (a client that has every version): no read
    rows = GameEvent.objects.filter(game=game, v__gt=since).order_by("v")
    found = list(rows if until is None else rows.filter(v__lte=until))
    first = found[0].v if found else (until if until is not None else game.version) + 1
    if rows_hold_all(game, since=since, first=first):
        return found
    record = GameRecord.objects.filter(game=game).first()
    if record is None:
        return found
    folded = [event for event in decode(record, started_at=game.started_at, since=since) if event.v < first]
    return folded + found


@dataclass(frozen=True, slots=True)
class Batch:
    """What one batch did: the games it folded, the event rows it removed, and the last game id it
    looked at (the next batch starts after it)."""

    games: int
    rows: int
    last_id: int | None


def compact_batch(*, today: datetime.date, after: int, size: int) -> Batch:
    """Fold the events of up to `size` compactable games with ids above `after`, in one transaction.
    A game locked by someone else is left for the next run; one whose rows are not a whole history is
    logged and left as it is."""
    candidates = list(
        GameEvent.objects.filter(kind=GameEvent.Kind.FINISH, game_id__gt=after, game__status=Game.Status.FINISHED)
        .filter(Q(game__deal__daily_date__isnull=True) | Q(game__deal__daily_date__lt=today))
        .order_by("game_id")
        .values_list("game_id", flat=True)[:size]
    )
    if not candidates:
        return Batch(games=0, rows=0, last_id=None)
    with transaction.atomic():
        # NO KEY: rows that refer to the game (a ghost's racer) may still be written meanwhile.
        games = {
            game.pk: game
            for game in Game.objects.select_for_update(skip_locked=True, no_key=True)
            .filter(pk__in=candidates, status=Game.Status.FINISHED)
            .only("pk", "started_at", "status", "version")
        }
        rows = (
            GameEvent.objects.filter(game_id__in=games).order_by("game_id", "v").values_list("game_id", *_EVENT_VALUES)
        )
        records = []
        for game_id, history in groupby(rows.iterator(chunk_size=10_000), key=lambda row: row[0]):
            game = games[game_id]
            events = [row[1:] for row in history]
            try:
                if len(events) != game.version:
                    raise NotCompactable(f"{len(events)} events for version {game.version}")
                entries, line = encode(events, started_at=game.started_at)
            except NotCompactable as error:
                logger.warning("game %s: its events are not compacted: %s", game_id, error)
                continue
            records.append(GameRecord(game_id=game_id, events=entries, line=line))
        GameRecord.objects.bulk_create(records)
        removed, _ = GameEvent.objects.filter(game_id__in=[record.game_id for record in records]).delete()
    return Batch(games=len(records), rows=removed, last_id=candidates[-1])


def compact_games(*, today: datetime.date, batch: int, limit: int | None) -> tuple[int, int]:
    """Fold every compactable game (up to `limit` of them), `batch` a transaction; return the games
    folded and the event rows removed. Safe to stop at any point and to run again."""
    after, games, rows = 0, 0, 0
    while limit is None or games < limit:
        size = batch if limit is None else min(batch, limit - games)
        done = compact_batch(today=today, after=after, size=size)
        if done.last_id is None:
            break
        after, games, rows = done.last_id, games + done.games, rows + done.rows
    return games, rows
