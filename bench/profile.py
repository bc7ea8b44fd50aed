"""How long a profile takes the server for a player with 10,000 finished games, on PostgreSQL.

    .venv/bin/python bench/profile.py [--games 10000] [--others 200] [--requests 200]
                                      [--server postgres://postgres@127.0.0.1:5432]

Creates a database of its own on that PostgreSQL server (dropped at the end), fills it with one player
who finished --games games over the last years (a ranked daily every day, the rest new deals) and
--others players with 50 games each, ANALYZEs it, then times:

- GET /api/players/<nickname> through Django's test client: URL routing, middleware, the view, every
  query, the serializer and the JSON rendering, with production settings (DEBUG off) — everything but
  the network and Daphne;
- the selector and serializer alone (games.profiles.player_profile + profile_payload).

Prints the median and 95th percentile of each, and the queries one profile runs. Target: under 50 ms.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cluster import django_in_this_process

NICKNAME = "Marathon"
DAYS = 2000
OTHER_GAMES_EACH = 50
WARMUP_REQUESTS = 10


def fill(*, games: int, others: int, today: datetime.date) -> None:
    """The long-time player and the others, written in bulk (as the server would have stored them)."""
    from accounts.models import Player
    from accounts.nicknames import nickname_key
    from games import engine
    from games.models import Deal, Game

    rng = random.Random(7)
    cards = list(engine.deal_from_code("2222-2222"))
    first_day = today - datetime.timedelta(days=DAYS - 1)
    dailies = Deal.objects.bulk_create(
        Deal(daily_date=first_day + datetime.timedelta(days=offset), cards=cards) for offset in range(DAYS)
    )
    players = Player.objects.bulk_create(
        Player(nickname=nickname, nickname_key=nickname_key(nickname), nickname_chosen=True)
        for nickname in [NICKNAME, *(f"Player-{index}" for index in range(others))]
    )

    def finished(player: Player, deal: Deal, *, ranked: bool, day: datetime.date) -> Game:
        piles = 1 if rng.random() < 0.3 else rng.randint(2, 20)
        seconds = rng.randint(40, 900)
        finished_at = datetime.datetime.combine(
            day, datetime.time(rng.randint(0, 23), rng.randint(0, 59)), datetime.UTC
        )
        return Game(
            player=player,
            deal=deal,
            mode=Game.Mode.DAILY if deal.daily_date else Game.Mode.NEW,
            ranked=ranked,
            status=Game.Status.FINISHED,
            started_at=finished_at - datetime.timedelta(seconds=seconds),
            finished_at=finished_at,
            moves=[],
            piles=piles,
            seconds=seconds,
            score=engine.score(piles, seconds),
            version=2,
        )

    def new_deals(count: int, prefix: str) -> list[Deal]:
        return Deal.objects.bulk_create(
            (Deal(code=f"{prefix}{index:06d}"[-9:], cards=cards) for index in range(count)), batch_size=5000
        )

    marathon, *the_others = players
    ranked_days = min(games, DAYS)
    rows = [finished(marathon, deal, ranked=True, day=deal.daily_date) for deal in dailies[DAYS - ranked_days :]]
    rows += [
        finished(marathon, deal, ranked=False, day=first_day + datetime.timedelta(days=rng.randrange(DAYS)))
        for deal in new_deals(games - ranked_days, "M")
    ]
    other_deals = new_deals(others * OTHER_GAMES_EACH, "O")
    for index, player in enumerate(the_others):
        mine = other_deals[index * OTHER_GAMES_EACH : (index + 1) * OTHER_GAMES_EACH]
        rows += [
            finished(player, deal, ranked=False, day=today - datetime.timedelta(days=rng.randrange(365)))
            for deal in mine
        ]
        rows += [finished(player, deal, ranked=True, day=deal.daily_date) for deal in rng.sample(dailies, 10)]
    Game.objects.bulk_create(rows, batch_size=5000)


def timed(call: Callable[[], object], *, times: int) -> list[float]:
    for _ in range(WARMUP_REQUESTS):
        call()
    milliseconds = []
    for _ in range(times):
        started = time.perf_counter()
        call()
        milliseconds.append(1000 * (time.perf_counter() - started))
    return milliseconds


def report(label: str, milliseconds: list[float]) -> None:
    p95 = statistics.quantiles(milliseconds, n=20)[-1]
    print(f"{label}: median {statistics.median(milliseconds):.1f} ms, p95 {p95:.1f} ms, max {max(milliseconds):.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--others", type=int, default=200)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432", help="a PostgreSQL server URL")
    options = parser.parse_args()

    with django_in_this_process(options.server, f"accordion_bench_profile_{os.getpid()}"):
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext
        from django.utils import timezone

        from accounts.selectors import player_by_nickname
        from games.profiles import player_profile
        from games.serializers import profile_payload

        today = timezone.now().date()
        started = time.perf_counter()
        fill(games=options.games, others=options.others, today=today)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        print(
            f"filled in {time.perf_counter() - started:.1f} s: {NICKNAME} has {options.games} finished games, "
            f"{options.others} other players {OTHER_GAMES_EACH + 10} each"
        )

        client = Client()
        path = f"/api/players/{NICKNAME}"
        answer = client.get(path)
        if answer.status_code != 200:
            sys.exit(f"GET {path}: {answer.status_code} {answer.content[:300]!r}")
        profile = answer.json()
        stats, calendar_days = profile["stats"], len(profile["calendar"]["days"])
        print(
            f"profile: {stats['games']} games, {stats['wins']} wins, streak {stats['current_streak']} "
            f"(longest {stats['longest_streak']}), {calendar_days} calendar days"
        )

        def selector_and_serializer() -> object:
            player = player_by_nickname(nickname=NICKNAME)
            assert player is not None
            return profile_payload(player_profile(player=player, today=today), today=today)

        with CaptureQueriesContext(connection) as queries:
            selector_and_serializer()
        print(f"queries per profile: {len(queries)}")
        report(f"GET {path} via Django's test client", timed(lambda: client.get(path), times=options.requests))
        report("selector + serializer alone", timed(selector_and_serializer, times=options.requests))


if __name__ == "__main__":
    main()
