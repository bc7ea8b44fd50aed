"""The solver asked about one game position after position, as the watchers' still-winnable badge and
the hints ask it: each position alone (a fresh dead table) against with the rows the process remembers
from the questions before (games.engine.analysis, REMEMBERED_DEAD_ROWS).

    .venv/bin/python bench/positions.py [--games 30] [--moves 60] [--time-limit 1.0]

Game i plays random legal moves (random.Random(i)) on shuffled_deck(f"bench:{i}") for up to --moves
moves; every position on the way is asked both ways, with the same time limit. Prints, for positions
still winnable, the first lost one of each game and the ones after it: how many, the positions examined
(the same on every machine but for the searches near the time limit, which a slower moment turns
"unknown") and the wall time, p50, p90, max and in all, and how many took over 20 ms.
Checks that both ways give the same answer wherever both decided. Asserts nothing else.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import sys
import time
from collections import defaultdict

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from bench.solver import percentile
from games.engine import apply_move, legal_moves, replay
from games.engine.analysis import REMEMBERED_DEAD_ROWS
from games.engine.deals import shuffled_deck
from games.engine.solver import DEFAULT_DEAD_TABLE_CAP, SolveResult, solve

# A wall time past this misses the watchers' frame (games/watching/runtime.py waits 25 ms for a
# badge, and the rest of its way takes a few).
SLOW_MS = 20.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--time-limit", type=float, default=1.0)
    args = parser.parse_args()

    remembered: set[bytes] = set()
    # (kind, way) -> [(positions, milliseconds)]
    asked: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for game in range(args.games):
        rng = random.Random(game)
        position = replay(shuffled_deck(f"bench:{game}"), [])
        lost_before = False
        for _ in range(args.moves + 1):
            answers: dict[str, tuple[SolveResult, float]] = {}
            for way, rows in (("alone", None), ("remembering", remembered)):
                started = time.perf_counter()
                cap = DEFAULT_DEAD_TABLE_CAP if rows is None else REMEMBERED_DEAD_ROWS  # as each is asked
                answer = solve(position, time_limit=args.time_limit, dead_rows=rows, dead_table_cap=cap)
                answers[way] = answer, 1000 * (time.perf_counter() - started)
            status = answers["alone"][0].status
            kind = "after the first lost" if lost_before else "first lost" if status == "lost" else status
            for way, (answer, elapsed) in answers.items():
                asked[(kind, way)].append((answer.positions, elapsed))
            statuses = {answer.status for answer, _ in answers.values()}
            if len(statuses - {"unknown"}) > 1:
                print(f"game {game}: the two ways disagree: {statuses}")
                return 1
            lost_before = lost_before or "lost" in statuses
            moves = legal_moves(position)
            if not moves:
                break
            position = apply_move(position, rng.choice(moves))

    print(f"{args.games} games, up to {args.moves} random moves each, time limit {args.time_limit:g} s a position")
    for kind in ("win", "first lost", "after the first lost", "unknown"):
        for way in ("alone", "remembering"):
            found = asked.get((kind, way))
            if not found:
                continue
            positions = sorted(count for count, _ in found)
            times = sorted(ms for _, ms in found)
            print(
                f"{kind:>20} {way:>11}: {len(found):4} asked; positions p50 {percentile(positions, 0.5):,} "
                f"p90 {percentile(positions, 0.9):,} in all {sum(positions):,}; "
                f"ms p50 {percentile(times, 0.5):.1f} p90 {percentile(times, 0.9):.1f} max {times[-1]:.1f} "
                f"in all {sum(times):,.0f}; over {SLOW_MS:g} ms: {sum(ms > SLOW_MS for ms in times)}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
