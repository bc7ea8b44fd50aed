"""How long a player waits for a hint, through the whole web stack except the network.

    .venv/bin/python bench/hints.py [--games N]

Starts N new games on a throwaway SQLite database and asks POST /api/games/<id>/hint once in each,
through Django's test client: view, rate limit, solver process pool, database write. Prints the first
answer's time (it starts the pool's worker process) and the median and max of the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    games = parser.parse_args().games

    database = Path(tempfile.mkdtemp(prefix="accordion-bench-")) / "bench.sqlite3"
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "accordion_site.settings")
    os.environ["LOG_LEVEL"] = "WARNING"
    os.environ["ALLOWED_HOSTS"] = "testserver"  # the test client's host name
    os.environ["SOLVER_REQUESTS_PER_MINUTE"] = str(10 * games)
    os.environ["GAME_START_RATE"] = f"{10 * games}/minute"

    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    client = Client()
    seconds = []
    for _ in range(games):
        game = client.post("/api/games", data=json.dumps({"mode": "new"}), content_type="application/json").json()
        started = time.perf_counter()
        answer = client.post(f"/api/games/{game['id']}/hint", data="{}", content_type="application/json")
        seconds.append(time.perf_counter() - started)
        if answer.status_code != 200:
            sys.exit(f"hint refused: {answer.status_code} {answer.content!r}")
    rest = [1000 * s for s in seconds[1:]]
    print(f"games {games}")
    print(f"first hint (starts the solver pool): {1000 * seconds[0]:.0f} ms")
    print(f"other hints: median {statistics.median(rest):.1f} ms, max {max(rest):.1f} ms")


if __name__ == "__main__":
    main()
