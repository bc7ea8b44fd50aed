"""What an arena game's end costs a web process: the CPU and the queries of its finish and of the next game.

    .venv/bin/python bench/finish.py [--players 200] [--rounds 3] [--server postgres://postgres@127.0.0.1:5432]
                                     [--redis redis://127.0.0.1:6379/9]

Creates a database of its own on that PostgreSQL server (dropped at the end), with production settings
and the channel layer and cache on that Redis, and a live arena that --players players have joined. In
each round every player plays its current game to a dead end with random legal moves (stored through
games.services, not measured), then, measured one player at a time in this process:

- finish: `POST /api/games/<id>/finish` with the whole line through Django's test client (middleware, the
  throttles, DRF, the replay, the fair-play assessment, the arena's recount, the publish on commit);
- next: the next game as the arena socket hands it out (arenas.runtime: `services.arena_next` and the
  game's payload).

Prints, for each round, the process CPU (time.process_time) per finish and per next game, mean and 95th
percentile, and the queries of each. Everything but the network, Daphne and the game's new socket: the
cost `bench/arena.py` pays at every end of a game. As in a web process, an event loop on a thread of its
own runs the process's bus, so a finish hands its events over to it (realtime.bus.publish) instead of
sending them to Redis from the request's thread; its sending counts in the process CPU. The access log's
lines go to stderr, as in production. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cluster import django_in_this_process


def played_to_a_dead_end(game: Any, player: Any, rng: random.Random) -> list[list[int]]:
    """Random legal moves on `game` until none is left (or one more would win: a win ends the game on
    the socket, not by a finish), each stored through games.services; the line played."""
    from django.utils import timezone

    from games import services as game_services
    from games.engine import apply_move, legal_moves, replay

    position = replay(game.deal.cards, [])
    line: list[list[int]] = []
    while moves := legal_moves(position):
        move = rng.choice(moves)
        after = apply_move(position, move)
        if after.won:
            break
        position = after
        line.append(list(move))
        game_services.game_move(game_id=game.pk, player=player, move=move, now=timezone.now())
    return line


def bus_on_a_thread() -> None:
    """The process's bus on an event loop of its own, running on a daemon thread, as a web process has."""
    from realtime.bus import bus

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="bus", daemon=True).start()

    async def started() -> None:
        bus()

    asyncio.run_coroutine_threadsafe(started(), loop).result()


def report(label: str, milliseconds: list[float], queries: list[int]) -> str:
    p95 = statistics.quantiles(milliseconds, n=20)[-1]
    return f"{label} {statistics.mean(milliseconds):.1f} ms (p95 {p95:.1f}), {statistics.mean(queries):.1f} queries"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432", help="a PostgreSQL server URL")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/9")
    options = parser.parse_args()

    with django_in_this_process(
        options.server,
        f"accordion_bench_finish_{os.getpid()}",
        REDIS_URL=options.redis,
        CHANNELS_PREFIX=f"bench-finish-{os.getpid()}",  # the cache's too: no stale allowances
    ):
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext
        from django.utils import timezone

        from accounts.models import Player
        from accounts.selectors import SESSION_PLAYER_KEY
        from arenas import services as arena_services
        from arenas.models import Arena, Participant
        from arenas.runtime import next_game_payload

        bus_on_a_thread()
        creator = Player.objects.create(nickname="Host")
        arena = arena_services.arena_create(created_by=creator, minutes=120, starts_in=0, now=timezone.now())
        Arena.objects.filter(pk=arena.pk).update(starts_at=arena.starts_at - datetime.timedelta(seconds=1))
        players = [Player.objects.create(nickname=f"Player-{index}") for index in range(options.players)]
        browsers = []
        for player in players:
            arena_services.arena_join(code=arena.code, player=player, now=timezone.now())
            browser = Client()
            session = browser.session
            session[SESSION_PLAYER_KEY] = player.pk
            session.save()
            browsers.append(browser)
        rng = random.Random(7)
        print(f"{options.players} players in a live arena; in each round each finishes a game and gets the next")
        for round_number in range(1, options.rounds + 1):
            seats = Participant.objects.select_related("game__deal").filter(arena=arena).order_by("player_id")
            games = [seat.game for seat in seats if seat.game is not None]
            lines = [played_to_a_dead_end(game, player, rng) for game, player in zip(games, players, strict=True)]
            finish_ms, next_ms, finish_queries, next_queries = [], [], [], []
            for player, browser, game, line in zip(players, browsers, games, lines, strict=True):
                connection.queries_log.clear()  # it keeps 9,000 queries: a full one counts no more
                with CaptureQueriesContext(connection) as queries:
                    started = time.process_time()
                    answer = browser.post(f"/api/games/{game.pk}/finish", {"moves": line}, "application/json")
                    finish_ms.append(1000 * (time.process_time() - started))
                if answer.status_code != 200:
                    sys.exit(f"finish answered {answer.status_code}: {answer.content[:300]!r}")
                finish_queries.append(len(queries))
                connection.queries_log.clear()
                with CaptureQueriesContext(connection) as queries:
                    started = time.process_time()
                    if next_game_payload(code=arena.code, player_id=player.pk) is None:
                        sys.exit(f"no next game for player {player.pk}")
                    next_ms.append(1000 * (time.process_time() - started))
                next_queries.append(len(queries))
            print(
                f"round {round_number}: {report('finish', finish_ms, finish_queries)}; "
                f"{report('next game', next_ms, next_queries)}"
            )


if __name__ == "__main__":  # the solver pool's worker processes import this module again
    main()
