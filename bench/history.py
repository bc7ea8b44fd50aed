"""How the reads that grow with history answer with N finished games, and how many rows a game leaves.

    .venv/bin/python bench/history.py [--games 1000000] [--days 7] [--requests 200] [--fresh]
                                      [--server postgres://postgres@127.0.0.1:5432]

Fills the database `accordion_bench_history_<games>` on that PostgreSQL server with `--games` finished
games (`manage.py generate_history`: dailies and new deals, wins and losses, over the `--days` days
before today, a player for every fifteen games): all but a slice written compacted, the slice written
as event rows and folded by `manage.py compact_games` (each command prints its games a second). A
database filled before is reused if it holds that many games (a fill of a million took 16 minutes on
a shared 2-core machine), after `migrate` adds any index made since; `--fresh` fills it again. Its
days are the days before the fill: the next day, fill it again. It is kept afterwards: drop it with
`dropdb accordion_bench_history_<games>`.

Then, through Django's test client with production settings (everything but the network and Daphne),
warm, it times yesterday's daily board's first page, a mid-table player's rank on it, that player's
profile, a replay of their game (its events, from its record) and, as the floor, an empty day's
board, and prints the median and 99th percentile of each, this process's CPU a request (Django's side,
which the machine's load does not lengthen) and the queries one runs, and the rows and bytes a
finished game leaves. Target: p99 under 50 ms each, and a
finished game left as two rows, the game and its record.
"""

from __future__ import annotations

import argparse
import datetime
import logging
import os
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

WARMUP_REQUESTS = 10
ROWS_SLICE = 0.01  # of the games, written as event rows and compacted by the command (at least 1,000)


def database(server: str, name: str, *, fresh: bool) -> tuple[str, bool]:
    """The bench database's URL, and whether it must be filled (it is new)."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(server)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None
        if exists and fresh:
            connection.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
        if fresh or not exists:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return urlunsplit(parts._replace(path=f"/{name}")), fresh or not exists


def configure(database_url: str) -> None:
    os.environ.update(
        {
            "DATABASE_URL": database_url,
            "DJANGO_SETTINGS_MODULE": "accordion_site.settings",
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(60),
            # The daily deals stored in a reused database stay as they were certified.
            "DAILY_SECRET": "bench-history-" + "0" * 32,
            "ALLOWED_HOSTS": "testserver",  # the test client's host name
            "SECURE_SSL_REDIRECT": "0",
            "LOG_LEVEL": "WARNING",
            # One client asks thousands of times a minute: the per-visitor API limit is not what is measured.
            "API_VISITOR_RATE": "1000000/minute",
            "API_PLAYER_RATE": "1000000/minute",
        }
    )
    import django

    django.setup()
    # The access log writes a line a request at INFO, whatever LOG_LEVEL says.
    logging.getLogger("accordion_site.access").setLevel(logging.WARNING)


def fill(games: int, days: int) -> None:
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    as_rows = min(games, max(1_000, int(games * ROWS_SLICE)))
    if games > as_rows:
        call_command("generate_history", games=games - as_rows, days=days, compacted=True)
    call_command("generate_history", games=as_rows, days=days)
    call_command("compact_games", batch=500)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def timed(call: Callable[[], object], *, times: int) -> tuple[list[float], float]:
    """Each call's wall-clock milliseconds, and this process's CPU milliseconds a call (Django's side of
    the request, which a loaded machine's queue does not lengthen)."""
    for _ in range(WARMUP_REQUESTS):
        call()
    milliseconds = []
    cpu = time.process_time()
    for _ in range(times):
        started = time.perf_counter()
        call()
        milliseconds.append(1000 * (time.perf_counter() - started))
    return milliseconds, 1000 * (time.process_time() - cpu) / times


def counted(queries: list[str]) -> Callable[..., object]:
    """A query wrapper that notes each statement in `queries`."""

    def wrapper(execute: Callable[..., object], sql: str, *args: object) -> object:
        queries.append(sql)
        return execute(sql, *args)

    return wrapper


def rows_left() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT count(*) FROM games_game WHERE status = 'finished'), "
            "(SELECT count(*) FROM games_gamerecord), "
            "(SELECT count(*) FROM games_gameevent e JOIN games_game g ON g.id = e.game_id "
            "WHERE g.status = 'finished'), "
            "pg_total_relation_size('games_gamerecord'), pg_total_relation_size('games_gameevent'), "
            "(SELECT avg(length(events)) FROM games_gamerecord)"
        )
        finished, records, event_rows, record_bytes, event_bytes, entry_bytes = cursor.fetchone()
    print(
        f"rows per finished game: 1 game + {records / finished:.2f} record + {event_rows / finished:.2f} event rows "
        f"({finished:,} finished games); records {record_bytes / finished:.0f} bytes a game with their index "
        f"(events {entry_bytes:.0f} bytes), event table {event_bytes / 2**20:.0f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--fresh", action="store_true", help="fill the database again even if it exists")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432", help="a PostgreSQL server URL")
    options = parser.parse_args()

    database_url, empty = database(options.server, f"accordion_bench_history_{options.games}", fresh=options.fresh)
    configure(database_url)
    from django.core.management import call_command
    from django.db import connection, connections
    from django.test import Client
    from django.utils import timezone

    from accounts.selectors import SESSION_PLAYER_KEY
    from games.models import Game
    from leaderboards.models import DailyEntry

    try:
        if empty:
            started = time.perf_counter()
            fill(options.games, options.days)
            print(f"filled in {time.perf_counter() - started:.0f} s")
        elif Game.objects.count() != options.games:
            sys.exit(f"the database holds {Game.objects.count():,} games, not {options.games:,}: run with --fresh")
        else:
            call_command("migrate", verbosity=0)  # indexes added since the fill
        rows_left()
        yesterday = timezone.now().date() - datetime.timedelta(days=1)
        board = DailyEntry.objects.filter(date=yesterday, on_board=True).order_by(
            "-score", "seconds", "finished_at", "game_id"
        )
        on_board = board.count()
        middle = board.select_related("player")[on_board // 2]
        visitor, player = Client(), Client()
        session = player.session
        session[SESSION_PLAYER_KEY] = middle.player_id
        session.save()
        base = f"/api/leaderboards/daily/{yesterday.isoformat()}"
        reads = {
            f"daily board, page 1 ({on_board:,} on it)": (visitor, f"{base}?page=1"),
            "my rank (mid-table)": (player, f"{base}/me"),
            "a profile": (visitor, f"/api/players/{middle.player.nickname}"),
            "a replay (a compacted game's events)": (visitor, f"/api/games/{middle.game_id}/events"),
            "an empty day's board (the stack alone)": (visitor, "/api/leaderboards/daily/2020-01-01?page=1"),
        }
        print(f"{options.requests} requests each, warm, server time in ms (Django's test client):")
        for name, (client, path) in reads.items():
            answer = client.get(path)
            if answer.status_code != 200:
                sys.exit(f"GET {path}: {answer.status_code} {answer.content[:300]!r}")
            queries: list[str] = []
            with connection.execute_wrapper(counted(queries)):
                client.get(path)
            times, cpu = timed(lambda client=client, path=path: client.get(path), times=options.requests)
            p99 = statistics.quantiles(times, n=100)[98]
            print(
                f"  {name:<44} p50 {statistics.median(times):6.2f}   p99 {p99:6.2f}   "
                f"Django CPU {cpu:5.2f}   ({len(queries)} queries)"
            )
    finally:
        connections.close_all()


if __name__ == "__main__":
    main()
