"""What a plain move's one statement costs the web process that sends it from its event loop.

    .venv/bin/python bench/loop_statement.py [--games 100] [--moves 3000] [--server postgres://postgres@127.0.0.1:5432]

Creates a database of its own on that PostgreSQL server (dropped at the end), with production settings,
and --games games in play. Then, on one event loop, stores --moves moves (each the next of a game's
random legal line, round robin over the games) two ways, alternating in blocks of 500:

- loop: `games.store.save_change_from_loop`, as a socket move does (realtime/loop_db.py: libpq driven
  directly, the statement prepared once per connection, its values sent as text);
- cursor: the same statement with the same values through a psycopg `AsyncCursor` on a connection of
  the same settings (psycopg adapts each value, converts the query, and registers the socket with the
  loop for each wait; it prepares the statement after its fifth run).

Prints the process CPU (time.process_time) and the wall time per statement for each: what the process
pays beyond PostgreSQL's own work. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cluster import django_in_this_process

BLOCK = 500


async def measure(games: list[Any], moves: int, rng: random.Random) -> dict[str, list[float]]:
    import psycopg
    from django.utils import timezone

    from games import store
    from games.engine import apply_move, legal_moves, replay
    from games.events import PlainChange
    from realtime.loop_db import loop_connections

    positions = {game.pk: replay(game.deal.cards, []) for game in games}
    lines: dict[int, list[list[int]]] = {game.pk: [] for game in games}
    versions = {game.pk: game.version for game in games}
    loop = loop_connections()
    params = loop.database.get_connection_params()
    params.pop("cursor_factory", None)
    connection = await psycopg.AsyncConnection.connect(**params, autocommit=True)

    async def through_cursor(statement: dict[str, Any]) -> None:
        sql, update_fields, insert_fields = store._change_statement(loop.database, tuple(statement["changes"]))
        values, condition, event_values = store.change_values(loop.database, update_fields, insert_fields, **statement)
        cursor = connection.cursor()
        await cursor.execute(sql, [*values, *condition, *event_values])
        await cursor.fetchone()

    async def through_loop(statement: dict[str, Any]) -> None:
        await store.save_change_from_loop(**statement)

    spent: dict[str, list[float]] = {"loop": [0.0, 0.0, 0], "cursor": [0.0, 0.0, 0]}
    ways = {"loop": through_loop, "cursor": through_cursor}
    for number in range(moves):
        game = games[number % len(games)]
        legal = legal_moves(positions[game.pk]) or [None]
        move = rng.choice(legal)
        if move is None or apply_move(positions[game.pk], move).won:  # a dead end or a win: start over
            positions[game.pk] = replay(game.deal.cards, [])
            lines[game.pk] = []
            move = rng.choice(legal_moves(positions[game.pk]))
        positions[game.pk] = apply_move(positions[game.pk], move)
        lines[game.pk] = [*lines[game.pk], list(move)]
        change = PlainChange(
            game_id=game.pk, player_id=game.player_id, version=versions[game.pk], kind="move", move=list(move),
            line=lines[game.pk], piles=positions[game.pk].piles, at=timezone.now(),
        )  # fmt: skip
        versions[game.pk] += 1
        way = "loop" if (number // BLOCK) % 2 == 0 else "cursor"
        cpu, wall = time.process_time(), time.perf_counter()
        await ways[way](change.statement())
        spent[way][0] += time.process_time() - cpu
        spent[way][1] += time.perf_counter() - wall
        spent[way][2] += 1
    await connection.close()
    await loop.close()
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432", help="a PostgreSQL server URL")
    options = parser.parse_args()

    with django_in_this_process(options.server, f"accordion_bench_statement_{os.getpid()}"):
        from django.utils import timezone

        from accounts.models import Player
        from games import services

        player = Player.objects.create(nickname="Bench")
        games = [services.game_start(player=player, mode="new", now=timezone.now())[0] for _ in range(options.games)]
        spent = asyncio.run(measure(games, options.moves, random.Random(7)))
        for way, (cpu, wall, count) in spent.items():
            each = f"{1000 * cpu / count:.3f} ms CPU, {1000 * wall / count:.3f} ms wall each"
            print(f"{way:7} {count} statements: {each}")


if __name__ == "__main__":
    main()
