"""What counting one request against an allowance costs on Redis: the one script the site runs there
(`window_count`, `ProcessRedisCache.count_in_window`) against the cache's own add, increment and get
(`count_with_cache_calls`, the in-process cache's way), alternating, on 50 keys.

    .venv/bin/python bench/allowance.py [--counts 5000] [--redis redis://127.0.0.1:6379/9]

Prints the wall time and this process's CPU per count for each. Every API request of a player counts
against one allowance or more (accordion_site/throttles.py); a finish, two. Empties the Redis database
it is given, before and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KEYS = 50
ROUNDS = 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, default=5000, help="counts per way and round")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/9")
    args = parser.parse_args()
    os.environ["REDIS_URL"] = args.redis
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "accordion_site.settings")
    os.environ.setdefault("DEBUG", "1")

    import django

    django.setup()
    from django.core.cache import cache

    from accordion_site.throttles import count_with_cache_calls, window_count

    ways: dict[str, Callable[..., tuple[int, float]]] = {
        "one script": window_count,
        "add, incr, get": count_with_cache_calls,
    }
    spent: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    cache.clear()
    try:
        for _ in range(ROUNDS):
            for way, (name, count) in enumerate(ways.items()):
                wall, cpu = time.perf_counter(), time.process_time()
                for index in range(args.counts):
                    count(f"bench:{way}:{index % KEYS}", period=60)
                spent[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    finally:
        cache.clear()
    for name, rounds in spent.items():
        walls = ", ".join(f"{1e6 * wall / args.counts:.0f}" for wall, _ in rounds)
        cpus = ", ".join(f"{1e6 * cpu / args.counts:.0f}" for _, cpu in rounds)
        print(f"{name:15} µs a count per round: wall {walls}; CPU {cpus}")


if __name__ == "__main__":
    main()
