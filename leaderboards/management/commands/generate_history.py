"""Fill the database with realistic finished games, fast: `--games N` of them over the `--days` UTC days
before today (or `--before` a date), by `--players` new players (a fifteenth of the games unless given).
Each day has its certified daily deal, a ranked attempt by most players (about one in twelve plays the
deal's winning line), practice games after some of them, and games on a pool of new deals. Every line is
played by the rules engine (random legal moves with an undo now and then, given up at a random point),
each event timed a few seconds after the one before, so every version, pile count, time and score is one
the server could have stored; the boards' rows, counts and records are written with them.

Rows are written in bulk, a batch of games a statement per table. `--compacted` writes each game's
history as the record `manage.py compact_games` would leave (games.history) instead of its event rows.
For benches (bench/history.py) and trying the site on volume; never on a production database. PostgreSQL
only: the rows go in by COPY, their ids taken from the tables' sequences.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import random
import secrets
import time
from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.db.models import Model

from accounts.models import Player
from accounts.nicknames import nickname_key
from games import engine, history, services
from games.engine.deals import CODE_ALPHABET, CODE_LENGTH, format_deal_code
from games.management.arguments import positive
from games.models import Deal, Game, GameEvent
from games.profiles import daily_streaks
from leaderboards.models import DailyEntry, DailyRecord
from leaderboards.services import score_counts_recount

BATCH = 5_000
PLAYOUTS_PER_DEAL = 60
NEW_DEALS = 100
PLAYOUTS_PER_NEW_DEAL = 4
RANKED_SHARE = 0.45  # of a day's games: ranked attempts (at most one a player)
PRACTICE_SHARE = 0.08  # practice games on the daily deal, after the player's ranked attempt
WINNING_LINE_SHARE = 1 / 12  # ranked attempts that play the deal's winning line
UNDO_CHANCE = 0.06


@dataclasses.dataclass(frozen=True, slots=True)
class Playout:
    """A played line: its steps after the start (kind, move, piles after it), the last one the finish,
    with what every game of this line stores alike: its move line as JSON and its entries' fixed part."""

    steps: tuple[tuple[str, list[int] | None, int], ...]
    line: list[list[int]]
    piles: int
    moves_json: str


def playout(cards: Sequence[str], rng: random.Random, *, line: Sequence[Sequence[int]] | None = None) -> Playout:
    """`line` played move by move, or random legal moves (an undo now and then) until none is left or
    the player gives up; the winning move is the finish, otherwise a finish follows the last move."""
    positions = [engine.Position.from_deal(cards)]
    played: list[list[int]] = []
    steps: list[tuple[str, list[int] | None, int]] = []
    planned = [list(move) for move in line] if line is not None else None
    give_up_at = rng.randint(5, 51)
    while len(steps) < 120:
        if planned is not None:
            if len(played) == len(planned):
                break
            move = planned[len(played)]
        else:
            moves = engine.legal_moves(positions[-1])
            if not moves or len(played) >= give_up_at:
                break
            if played and rng.random() < UNDO_CHANCE:
                positions.pop()
                steps.append((GameEvent.Kind.UNDO, played.pop(), positions[-1].piles))
                continue
            move = list(rng.choice(moves))
        positions.append(engine.apply_move(positions[-1], move))
        played.append(move)
        steps.append((GameEvent.Kind.MOVE, move, positions[-1].piles))
    piles = positions[-1].piles
    if piles == 1:
        steps[-1] = (GameEvent.Kind.FINISH, steps[-1][1], 1)
    else:
        steps.append((GameEvent.Kind.FINISH, None, piles))
    return Playout(steps=tuple(steps), line=played, piles=piles, moves_json=json.dumps(played))


@dataclasses.dataclass(slots=True)
class Planned:
    """A game to write: who, on what, how it went and when it started."""

    player: int
    deal: Deal
    mode: str
    ranked: bool
    play: Playout
    started_at: datetime.datetime

    def events(self, rng: random.Random) -> list[history.EventValues]:
        """The game's events, each a few seconds after the one before."""
        at = self.started_at
        events: list[history.EventValues] = [(1, GameEvent.Kind.START, None, None, 52, at)]
        for v, (kind, move, piles) in enumerate(self.play.steps, start=2):
            at += datetime.timedelta(microseconds=int(1_000_000 * (0.4 + rng.expovariate(1 / 3))))
            events.append((v, kind, move, None, piles, at))
        return events


def random_code(rng: random.Random) -> str:
    return "".join(rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Plans:
    """The games of the days, planned from a few hundred playouts a deal (played once, shared out)."""

    def __init__(self, *, rng: random.Random, players: list[int], days: list[datetime.date]) -> None:
        self.rng = rng
        self.players = players
        self.dailies = {day: services.deal_for_date(date=day) for day in days}
        self.daily_playouts = {day: self._playouts(deal, PLAYOUTS_PER_DEAL) for day, deal in self.dailies.items()}
        self.winning = {
            day: playout(deal.cards, rng, line=deal.solution) for day, deal in self.dailies.items() if deal.solution
        }
        codes = sorted({format_deal_code(random_code(rng)) for _ in range(NEW_DEALS)})
        # Found again when a seed is given again.
        known = {deal.code: deal for deal in Deal.objects.filter(code__in=codes)}
        known |= {
            deal.code: deal
            for deal in Deal.objects.bulk_create(
                Deal(code=code, cards=engine.deal_from_code(code)) for code in codes if code not in known
            )
        }
        new_deals = [known[code] for code in codes]
        self.new_playouts = [(deal, play) for deal in new_deals for play in self._playouts(deal, PLAYOUTS_PER_NEW_DEAL)]

    def _playouts(self, deal: Deal, count: int) -> list[Playout]:
        return [playout(deal.cards, self.rng) for _ in range(count)]

    def day(self, day: datetime.date, games: int) -> Iterator[Planned]:
        """A day's games: ranked attempts, practice after some of them, and new deals."""
        rng = self.rng
        opening = datetime.datetime.combine(day, datetime.time(0), tzinfo=datetime.UTC)
        ranked = rng.sample(self.players, min(len(self.players), round(RANKED_SHARE * games)))
        practice = rng.sample(ranked, min(len(ranked), round(PRACTICE_SHARE * games)))
        deal = self.dailies[day]
        for player in ranked:
            winning = day in self.winning and rng.random() < WINNING_LINE_SHARE
            play = self.winning[day] if winning else rng.choice(self.daily_playouts[day])
            started = opening + datetime.timedelta(seconds=rng.randint(0, 20 * 3600))
            yield Planned(player, deal, Game.Mode.DAILY, True, play, started)
        for player in practice:
            # After the ranked attempt, which starts by 20:00 and lasts minutes.
            started = opening + datetime.timedelta(seconds=rng.randint(21 * 3600, 23 * 3600))
            yield Planned(player, deal, Game.Mode.DAILY, False, rng.choice(self.daily_playouts[day]), started)
        for _ in range(games - len(ranked) - len(practice)):
            new_deal, play = rng.choice(self.new_playouts)
            started = opening + datetime.timedelta(seconds=rng.randint(0, 23 * 3600))
            yield Planned(rng.choice(self.players), new_deal, Game.Mode.NEW, False, play, started)


def _copy(table: str, columns: str, rows: Iterable[Sequence[object]]) -> None:
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _ids(model: type[Model], count: int) -> list[int]:
    """`count` ids from the table's identity sequence, for rows written by COPY."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [model._meta.db_table, count],
        )
        return [row[0] for row in cursor.fetchall()]


def write(planned: list[Planned], rng: random.Random, *, compacted: bool) -> None:
    """One batch of games, with their events or records, ranked slots and board rows, by COPY."""
    game_ids = _ids(Game, len(planned))
    games: list[tuple[object, ...]] = []
    events: list[tuple[object, ...]] = []
    records: list[tuple[object, ...]] = []
    slots: list[tuple[object, ...]] = []
    entries: list[tuple[object, ...]] = []
    for game_id, plan in zip(game_ids, planned, strict=True):
        timed = plan.events(rng)
        started, finished = plan.started_at, timed[-1][5]
        seconds = int((finished - started).total_seconds())
        piles = plan.play.piles
        score = engine.score(piles, seconds)
        practice = Game.PracticeReason.REPEAT if plan.mode == Game.Mode.DAILY and not plan.ranked else ""
        # A ranked result is weighed as the server weighs one nobody flagged: nothing left for assess_games.
        risk, assessed = (0, finished) if plan.ranked else (None, None)
        games.append(
            (game_id, plan.player, plan.deal.pk, plan.mode, plan.ranked, Game.Status.FINISHED, started, finished)
            + (plan.play.moves_json, piles, len(timed), 0, "", score, seconds, practice, risk, "[]", "[]")
            + (assessed, "", "")
        )
        if compacted:
            packed, line = history.encode(timed, started_at=started)
            records.append((game_id, packed, _json(line)))
        else:
            events.extend((game_id, v, kind, _json(move), None, piles_, at) for v, kind, move, _, piles_, at in timed)
        if plan.ranked:
            slots.append((plan.deal.pk, "", plan.player, game_id, True, started))
            entries.append((game_id, plan.deal.daily_date, plan.player, score, seconds, piles, finished, True))
    _copy(
        "games_game",
        "id, player_id, deal_id, mode, ranked, status, started_at, finished_at, moves, piles, version, hints, "
        "race_code, score, seconds, practice_reason, risk, risk_reasons, verdicts, assessed_at, review, review_reason",
        games,
    )
    if compacted:
        _copy("games_gamerecord", "game_id, events, line", records)
    else:
        _copy("games_gameevent", "game_id, v, kind, move, line, piles, at", events)
    _copy("games_rankedslot", "deal_id, address_key, player_id, game_id, own_slot, taken_at", slots)
    _copy("leaderboards_dailyentry", "game_id, date, player_id, score, seconds, piles, finished_at, on_board", entries)


def _json(value: object) -> str | None:
    return None if value is None else json.dumps(value)


def records_write(player_ids: list[int]) -> None:
    """The players' all-time records, from their board rows (leaderboards.services.records_refresh, for
    many players at once)."""
    rows = (
        DailyEntry.objects.filter(player_id__in=player_ids, on_board=True)
        .order_by("player_id", "date")
        .values_list("player_id", "date", "piles")
    )
    records = []
    for player_id, days in groupby(rows.iterator(chunk_size=BATCH), key=lambda row: row[0]):
        found = [(date, piles) for _, date, piles in days]
        dates = [date for date, _ in found]
        current, longest = daily_streaks(dates, today=dates[-1])
        records.append(
            DailyRecord(
                player_id=player_id,
                days=len(found),
                wins=sum(1 for _, piles in found if piles == 1),
                longest_streak=longest,
                current_streak=current,
                last_date=dates[-1],
            )
        )
    DailyRecord.objects.bulk_create(records, batch_size=BATCH)


class Command(BaseCommand):
    help = "Write N realistic finished games (daily and not, won and lost) over the past days, in bulk."

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--games", type=positive, required=True, help="how many finished games")
        parser.add_argument("--days", type=positive, default=7, help="the UTC days before today (default 7)")
        parser.add_argument("--players", type=positive, default=None, help="new players (default: games / 15)")
        parser.add_argument("--seed", type=int, default=None, help="for the same games again (default: random)")
        parser.add_argument(
            "--before",
            type=datetime.date.fromisoformat,
            default=None,
            help="the day after the last one, YYYY-MM-DD (default today): with --seed, the same games any day",
        )
        parser.add_argument("--compacted", action="store_true", help="write records instead of event rows")

    def handle(
        self,
        *args: Any,
        games: int,
        days: int,
        players: int | None,
        seed: int | None,
        before: datetime.date | None,
        compacted: bool,
        **options: Any,
    ) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("generate_history writes by COPY: DATABASE_URL must name a PostgreSQL database")
        started = time.perf_counter()
        rng = random.Random(seed if seed is not None else secrets.randbits(64))
        end = before or datetime.datetime.now(datetime.UTC).date()
        dates = [end - datetime.timedelta(days=offset) for offset in range(days, 0, -1)]
        run = secrets.token_hex(3)
        names = [f"h{run}-{index}" for index in range(players or max(4, games // 15))]
        player_ids = [
            player.pk
            for player in Player.objects.bulk_create(
                (Player(nickname=name, nickname_key=nickname_key(name), nickname_chosen=True) for name in names),
                batch_size=BATCH,
            )
        ]
        made = Plans(rng=rng, players=player_ids, days=dates)
        batch: list[Planned] = []
        for index, day in enumerate(dates):
            for game in made.day(day, games // days + (index < games % days)):
                batch.append(game)
                if len(batch) == BATCH:
                    with transaction.atomic():
                        write(batch, rng, compacted=compacted)
                    batch = []
        with transaction.atomic():
            write(batch, rng, compacted=compacted)
            for day in dates:
                score_counts_recount(date=day)
            records_write(player_ids)
        seconds = time.perf_counter() - started
        form = "records" if compacted else "event rows"
        self.stdout.write(
            self.style.SUCCESS(
                f"Wrote {games} finished games ({form}) by {len(player_ids)} players over {days} days "
                f"in {seconds:.1f} s ({games / seconds:.0f} games a second)."
            )
        )
