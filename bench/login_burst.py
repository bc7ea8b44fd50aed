"""A burst of wrong-password logins against a bystander playing over the socket.

    .venv/bin/python bench/login_burst.py [--logins 60] [--bursts 3] [--daphnes 2]

Needs PostgreSQL and Redis on loopback (see docs/performance.md). The script starts its own cluster
(bench/cluster.py: a fresh database, --daphnes Daphne processes with production settings, the real
password hasher) and stops it at the end. A bystander starts a game on the last process and plays a
random legal move every 100 ms over its socket, waiting for each ack. Meanwhile, from one address,
--logins wrong-password logins are sent all at once, spread over the processes and over as many
nicknames (so the address's allowance, not one account's, is what counts; a nickname with no account
costs a hash all the same), --bursts times, a few seconds apart: all within one window of the
address's allowance, so the first burst gets it and the later ones are refused before any hashing.
Prints the bystander's move-ack round trip alone and during each burst, and how many passwords were
checked (400) against the allowance and how many refused before any hashing (429); asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from redis import Redis

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.cluster import ClusterError, Daphne, add_cluster_options, bench_cluster, bounded, run_bench  # noqa: E402
from bench.load import spread_ms  # noqa: E402
from bench.race import Visitor  # noqa: E402
from games.engine import Position, apply_move, legal_moves  # noqa: E402

MOVE_INTERVAL_S = 0.1
QUIET_S = 5.0  # bystander alone, before the first burst
BURST_GAP_S = 5.0
clock = time.perf_counter


class Bystander:
    """A player on one process: one move at a time, each ack's round trip noted with when it was sent."""

    def __init__(self, daphne: Daphne) -> None:
        self.visitor = Visitor(daphne)
        status, game = self.visitor.request("POST", "/api/games", {"mode": "new"})
        if status != 201:
            raise ClusterError(f"POST /api/games answered {status}: {game}")
        self.game = game
        self.acks: list[tuple[float, float]] = []  # (sent at, round trip)
        self.refused: Counter[str] = Counter()

    async def play(self, until: float) -> None:
        socket = await self.visitor.socket(f"/ws/games/{self.game['id']}/?v={self.game['version']}")
        rng = random.Random(7)
        line = [Position.from_deal(self.game["deal"])]
        n = 0
        async with socket:
            while clock() < until:
                moves = legal_moves(line[-1])
                if line[-1].won or (not moves and len(line) == 1):
                    break
                if moves:
                    move = rng.choice(moves)
                    line.append(apply_move(line[-1], move))
                    message: dict[str, Any] = {"t": "move", "move": list(move), "n": n + 1}
                else:
                    line.pop()
                    message = {"t": "undo", "n": n + 1}
                n += 1
                sent = clock()
                await socket.send(json.dumps(message))
                while True:
                    answer = json.loads(await socket.recv())
                    if answer.get("n") == n and answer["t"] in ("ack", "reject"):
                        break
                if answer["t"] == "ack":
                    self.acks.append((sent, clock() - sent))
                else:
                    self.refused[str(answer.get("code"))] += 1
                await asyncio.sleep(max(0.0, sent + MOVE_INTERVAL_S - clock()))


def burst(visitors: list[Visitor], count: int, first: int) -> tuple[Counter[int], float]:
    """`count` wrong logins at once, each for its own nickname; their answers by status, and how long the last
    took."""
    started = clock()

    def login(index: int) -> int:
        visitor = visitors[index % len(visitors)]
        body = {"nickname": f"Victim{first + index}", "password": "wrong guess"}
        return visitor.request("POST", "/api/accounts/login", body)[0]

    with ThreadPoolExecutor(max_workers=count) as threads:
        answers = Counter(threads.map(login, range(count)))
    return answers, clock() - started


async def run(args: argparse.Namespace, daphnes: list[Daphne]) -> None:
    bystander = Bystander(daphnes[-1])
    attackers = [Visitor(daphne) for daphne in daphnes]
    start = clock()
    windows: list[tuple[float, float]] = []
    statuses: Counter[int] = Counter()
    loop = asyncio.get_running_loop()
    # The bursts come from a process of their own: 60 client threads beside the bystander's event loop
    # would delay its own reading of the acks, and the bench would time itself, not the server.
    attacker = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    playing = asyncio.create_task(bystander.play(until=start + QUIET_S + args.bursts * (BURST_GAP_S + 10)))
    await asyncio.sleep(QUIET_S)
    for index in range(args.bursts):
        began = clock()
        answers, took = await loop.run_in_executor(attacker, burst, attackers, args.logins, index * args.logins)
        windows.append((began, began + took))
        statuses += answers
        print(f"burst {index + 1}: {dict(sorted(answers.items()))} in {took:.1f} s", flush=True)
        await asyncio.sleep(BURST_GAP_S)
    playing.cancel()
    attacker.shutdown()
    quiet = [trip for sent, trip in bystander.acks if sent < start + QUIET_S]
    print()
    print(f"bystander's move ack, alone:           {spread_ms(quiet)}")

    def during(low: float, high: float) -> list[float]:
        """The acks in flight at some moment of [low, high]: sent before its end, answered after its start."""
        return [trip for sent, trip in bystander.acks if sent <= high and sent + trip >= low]

    for index, (low, high) in enumerate(windows):
        print(f"bystander's move ack, during burst {index + 1}: {spread_ms(during(low, high))}")
    if len(windows) > 1:
        # The later bursts are short (all refused): their few acks are read together.
        later = [trip for low, high in windows[1:] for trip in during(low, high)]
        print(f"bystander's move ack, during bursts 2-{len(windows)}: {spread_ms(later)}")
    if bystander.refused:
        print(f"bystander's moves refused: {dict(bystander.refused)}")
    print(f"allowance of one address: {args.allowance}")
    print(
        f"logins: {args.bursts} bursts of {args.logins} wrong passwords: {statuses[400]} passwords checked, "
        f"{statuses[429]} refused before hashing (429), {statuses[503]} answered 503, "
        f"other: {dict((s, c) for s, c in statuses.items() if s not in (400, 429, 503))}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logins", type=bounded(int, 1, 200), default=60, help="wrong logins in one burst")
    parser.add_argument("--bursts", type=bounded(int, 1, 10), default=3)
    parser.add_argument("--allowance", default="20/minute", help="ACCOUNTS_ADDRESS_RATE for the cluster")
    add_cluster_options(parser, database="accordion_login_burst", redis="redis://127.0.0.1:6379/14")
    args = parser.parse_args()
    # A run a minute ago left this address's count in Redis: start from none.
    redis = Redis.from_url(args.redis)
    stale = list(redis.scan_iter("*throttle_accounts_*"))
    if stale:
        redis.delete(*stale)
    with bench_cluster(args, name="login-burst", extra_env={"ACCOUNTS_ADDRESS_RATE": args.allowance}) as daphnes:
        asyncio.run(run(args, daphnes))


if __name__ == "__main__":
    run_bench(main)
