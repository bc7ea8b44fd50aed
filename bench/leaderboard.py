"""How long the server takes to answer the leaderboard's reads on a big day.

    .venv/bin/python bench/leaderboard.py [--players 100000] [--other-days 2] [--repeat 200] [--explain]

Creates a fresh PostgreSQL database (on the server POSTGRES_URL names, default
postgres://postgres@127.0.0.1:5432/postgres), migrates it, and fills it with `--players` verified ranked
attempts at one date's daily deal, plus as many on each of `--other-days` other dates: every line is
played by the rules engine from the day's certified deal (random legal play, and the deal's winning
line for about one player in twelve), so each score, pile count and time is one the server could have
verified; the rows are written in bulk, and the day's counts by score recounted from them. Then,
through Django's test client (the whole server stack, without the network), it times page 1, a middle
page, "my rank" for a mid-table player, the day's summary, and a ranked game's own answer (its rank in
the result), and prints the median and 95th percentile of each. The database is
dropped at the end.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import secrets
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cluster import fresh_database  # noqa: E402

BATCH = 5_000
LINES_PER_DAY = 3_000  # distinct random playouts a day, shared out among its players


def configure(database_url: str) -> None:
    """Production settings, in this process, on the bench database."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "accordion_site.settings",
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(48),
            "DAILY_SECRET": secrets.token_hex(32),
            "ALLOWED_HOSTS": "testserver",
            "SECURE_SSL_REDIRECT": "0",
            "DATABASE_URL": database_url,
            "LOG_LEVEL": "WARNING",
            # One client asks hundreds of times a minute: the per-visitor API limit is not what is measured.
            "API_VISITOR_RATE": "1000000/minute",
        }
    )
    import django

    django.setup()


def random_line(deal: list[str], rng: random.Random) -> list[list[int]]:
    """Random legal moves until none is left, or a random earlier stop: a player who gave up."""
    from games import engine as rules

    position = rules.Position.from_deal(deal)
    line: list[list[int]] = []
    stop_at = rng.randint(0, 51)
    while len(line) < stop_at and (moves := rules.legal_moves(position)):
        move = rng.choice(moves)
        line.append(list(move))
        position = rules.apply_move(position, move)
    return line


def fill_day(date: datetime.date, players: int, rng: random.Random, first_nickname: int) -> None:
    """`players` ranked attempts at `date`'s deal, finished and verified, with their board rows."""
    from accounts.models import Player
    from accounts.nicknames import nickname_key
    from games import engine
    from games.models import Game
    from games.services import deal_for_date
    from leaderboards.models import DailyEntry
    from leaderboards.services import score_counts_recount

    deal = deal_for_date(date=date)
    playouts = []
    for _ in range(LINES_PER_DAY):
        line = random_line(deal.cards, rng)
        playouts.append((line, engine.replay(deal.cards, line).piles))
    solution = [list(move) for move in deal.solution]
    opening = datetime.datetime.combine(date, datetime.time(0), tzinfo=datetime.UTC)
    for first in range(0, players, BATCH):
        count = min(BATCH, players - first)
        nicknames = [f"Bench {first_nickname + first + index}" for index in range(count)]
        # bulk_create skips Player.save, which keeps the nickname's key: set it here.
        created = Player.objects.bulk_create(
            [Player(nickname=nickname, nickname_key=nickname_key(nickname)) for nickname in nicknames]
        )
        games = []
        for player in created:
            won = rng.random() < 1 / 12
            line, piles = (solution, 1) if won else rng.choice(playouts)
            seconds = rng.randint(40, 1200) if won else rng.randint(20, 1800)
            started = opening + datetime.timedelta(seconds=rng.randint(0, 80_000))
            games.append(
                Game(
                    player=player,
                    deal=deal,
                    mode=Game.Mode.DAILY,
                    ranked=True,
                    status=Game.Status.FINISHED,
                    started_at=started,
                    finished_at=started + datetime.timedelta(seconds=seconds),
                    moves=line,
                    piles=piles,
                    version=2,
                    seconds=seconds,
                    score=engine.score(piles, seconds),
                )
            )
        Game.objects.bulk_create(games)
        DailyEntry.objects.bulk_create(
            DailyEntry(
                game=game,
                date=date,
                player_id=game.player_id,
                score=game.score,
                seconds=game.seconds,
                piles=game.piles,
                finished_at=game.finished_at,
                on_board=True,
            )
            for game in games
        )
    score_counts_recount(date=date)


def timed(client: object, path: str, repeat: int) -> tuple[list[float], int]:
    """Milliseconds each GET of `path` took (after a few warm-up requests), and the queries one ran."""
    from django.db import connection

    for _ in range(5):
        assert client.get(path).status_code == 200, client.get(path).content  # type: ignore[attr-defined]
    queries: list[str] = []

    def count(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        client.get(path)  # type: ignore[attr-defined]
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        client.get(path)  # type: ignore[attr-defined]
        times.append(1000 * (time.perf_counter() - started))
    return times, len(queries)


def explain(date: datetime.date, mid_score: int, mid_seconds: int, first_score: int, skip: int) -> None:
    from django.db import connection

    statements = {
        "the day's counts by score": (
            "SELECT score, piles, players FROM leaderboards_dailyscorecount WHERE date = %s AND players > 0 "
            "ORDER BY score DESC",
            [date],
        ),
        "a middle page's keys, from the score it starts in": (
            "SELECT game_id FROM leaderboards_dailyentry WHERE date = %s AND on_board AND score <= %s "
            "ORDER BY score DESC, seconds, finished_at, game_id LIMIT 50 OFFSET %s",
            [date, first_score, skip],
        ),
        "the same score in fewer seconds (a rank)": (
            "SELECT count(*) FROM leaderboards_dailyentry WHERE date = %s AND on_board AND score = %s AND seconds < %s",
            [date, mid_score, mid_seconds],
        ),
    }
    with connection.cursor() as cursor:
        for name, (sql, params) in statements.items():
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
            print(f"\n-- {name}")
            for (line,) in cursor.fetchall():
                print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--other-days", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--explain", action="store_true", help="print PostgreSQL's plans of the main queries")
    args = parser.parse_args()
    server = os.environ.get("POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")

    with fresh_database(server, f"accordion_bench_board_{os.getpid()}") as database_url:
        configure(database_url)
        from django.core.management import call_command
        from django.db import connection
        from django.test import Client

        from accounts.selectors import SESSION_PLAYER_KEY
        from leaderboards import api
        from leaderboards.models import DailyEntry

        call_command("migrate", verbosity=0)
        rng = random.Random(20261130)
        day = datetime.date(2026, 6, 15)
        started = time.perf_counter()
        fill_day(day, args.players, rng, first_nickname=0)
        for offset in range(1, args.other_days + 1):
            fill_day(day - datetime.timedelta(days=offset), args.players, rng, first_nickname=offset * args.players)
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        print(
            f"filled {args.players * (1 + args.other_days):,} verified games in {time.perf_counter() - started:.0f} s"
        )

        board = DailyEntry.objects.filter(date=day, on_board=True).order_by(
            "-score", "seconds", "finished_at", "game_id"
        )
        middle = board[args.players // 2]
        visitor = Client()
        mid_player = Client()
        session = mid_player.session
        session[SESSION_PLAYER_KEY] = middle.player_id
        session.save()
        pages = -(-args.players // api.PAGE_SIZE)
        base = f"/api/leaderboards/daily/{day.isoformat()}"
        reads = {
            "page 1": (visitor, f"{base}?page=1"),
            f"page {pages // 2} of {pages}": (visitor, f"{base}?page={pages // 2}"),
            "my rank (mid-table)": (mid_player, f"{base}/me"),
            "summary": (visitor, f"{base}/summary"),
            "an empty day's page 1 (the stack alone)": (visitor, "/api/leaderboards/daily/2026-01-01?page=1"),
            "a ranked game's result (its rank)": (mid_player, f"/api/games/{middle.game_id}"),
        }
        print(f"{args.players:,} players on {day}, {args.repeat} requests each, server time in ms:")
        for name, (client, path) in reads.items():
            times, queries = timed(client, path, args.repeat)
            p95 = statistics.quantiles(times, n=20)[-1]
            print(f"  {name:<36} median {statistics.median(times):6.2f}   p95 {p95:6.2f}   ({queries} queries)")
        if args.explain:
            from leaderboards.selectors import _Scores

            first_score, skip = _Scores(day).bucket_at((pages // 2 - 1) * api.PAGE_SIZE)
            explain(day, middle.score, middle.seconds, first_score, skip)
        connection.close()


if __name__ == "__main__":
    main()
