"""Benchmark the solver on fixed deals, one after another on one core.

    .venv/bin/python bench/solver.py              # the 1,000 deals of docs/solver.md
    .venv/bin/python bench/solver.py --deals 100  # a quick run
    .venv/bin/python bench/solver.py --time-limit none --max-positions 300000  # load-free counts

Deal i is games.engine.deals.shuffled_deck(f"bench:{i}"). Each deal gets `--time-limit` seconds
(default 1.0). Prints how many were proven winnable, lost or left unknown, the median, p90, p99 and
max wall time per deal, positions examined per second, and the positions each deal needed (these
counts do not depend on the machine or its load). Every winning line is replayed by the engine's
referee, so a wrong line fails the bench. Wall times move with the machine's load: run it more than
once and compare the figures.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time
from collections.abc import Sequence
from typing import TypeVar

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from games.engine import replay
from games.engine.deals import shuffled_deck
from games.engine.solver import solve

T = TypeVar("T")


def percentile(sorted_values: Sequence[T], fraction: float) -> T:
    """The value below which `fraction` of the values lie (nearest rank)."""
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000, help="how many deals (default 1000)")
    parser.add_argument("--first", type=int, default=0, help="index of the first deal (default 0)")
    parser.add_argument(
        "--time-limit",
        type=lambda text: None if text == "none" else float(text),
        default=1.0,
        help="seconds per deal, or none (default 1.0)",
    )
    parser.add_argument("--max-positions", type=int, default=None, help="positions per deal (default no limit)")
    parser.add_argument("--slowest", type=int, default=5, help="list this many slowest deals (default 5)")
    args = parser.parse_args()

    counts = {"win": 0, "lost": 0, "unknown": 0}
    seconds: list[float] = []
    cpu_seconds: list[float] = []
    positions = 0
    counts_per_deal: list[int] = []
    slow: list[tuple[float, int, str, int]] = []
    started = time.perf_counter()
    for index in range(args.first, args.first + args.deals):
        deal = shuffled_deck(f"bench:{index}")
        cpu_before = time.process_time()
        result = solve(deal, args.time_limit, max_positions=args.max_positions)
        cpu_seconds.append(time.process_time() - cpu_before)
        if result.status == "win":
            assert result.moves is not None and replay(deal, result.moves).won, f"deal {index}: bad line"
        counts[result.status] += 1
        seconds.append(result.seconds)
        positions += result.positions
        counts_per_deal.append(result.positions)
        slow.append((result.seconds, index, result.status, result.positions))
    total = time.perf_counter() - started

    seconds.sort()
    cpu_seconds.sort()
    n = len(seconds)
    print(f"deals {n} (bench:{args.first}..bench:{args.first + n - 1}), time limit {args.time_limit:g} s each")
    print(
        f"proven winnable {counts['win']} ({100 * counts['win'] / n:.1f}%), lost {counts['lost']}, "
        f"unknown {counts['unknown']}"
    )
    print(
        "wall per deal: median {:.1f} ms, p90 {:.1f} ms, p99 {:.1f} ms, max {:.1f} ms, mean {:.1f} ms".format(
            *(
                1000 * v
                for v in (
                    statistics.median(seconds),
                    percentile(seconds, 0.90),
                    percentile(seconds, 0.99),
                    seconds[-1],
                    statistics.fmean(seconds),
                )
            )
        )
    )
    print(
        f"cpu per deal:  median {1000 * statistics.median(cpu_seconds):.1f} ms, "
        f"p99 {1000 * percentile(cpu_seconds, 0.99):.1f} ms"
    )
    print(f"positions {positions:,} in {sum(seconds):.1f} s: {positions / sum(seconds):,.0f} positions/s")
    counts_per_deal.sort()
    median_count = int(statistics.median(counts_per_deal))
    p90, p99, p995 = (percentile(counts_per_deal, f) for f in (0.90, 0.99, 0.995))
    print(
        f"positions per deal: median {median_count:,}, p90 {p90:,}, p99 {p99:,}, p99.5 {p995:,}, "
        f"max {counts_per_deal[-1]:,}, mean {statistics.fmean(counts_per_deal):,.0f}"
    )
    print(f"bench wall time {total:.1f} s")
    if args.slowest:
        print(
            "slowest:",
            ", ".join(f"bench:{i} {s * 1000:.0f} ms {st} {p:,}" for s, i, st, p in sorted(slow)[-args.slowest :]),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
