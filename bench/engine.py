"""How fast the referee is, on one core.

    .venv/bin/python bench/engine.py [--iterations N]

Prints two plain numbers with labels:
- full-game verifications per second: replay(deal, moves) of the 51-move winning line in
  tests/vectors/winning_game.json, deal validation included (what POST /api/games/<id>/finish costs);
- legal-move generations per second: legal_moves(position) over the 52 positions along that line,
  each a fresh Position (so its tops are computed, not cached).

The target is at least 20,000 full-game verifications per second. Each figure is the best of five
timed rounds, to keep other work on the machine from lowering it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.engine import Position, apply_move, legal_moves, replay  # noqa: E402

ROUNDS = 5


def best_rate(work, iterations: int, per_iteration: int = 1) -> float:  # type: ignore[no-untyped-def]
    """Operations per second of the fastest of ROUNDS rounds of `iterations` calls of `work`."""
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        work(iterations)
        best = min(best, time.perf_counter() - start)
    return iterations * per_iteration / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=5000)
    iterations = parser.parse_args().iterations

    game = json.loads((ROOT / "tests" / "vectors" / "winning_game.json").read_text(encoding="utf-8"))
    deal, moves = game["deal"], game["moves"]
    if len(moves) != 51 or not replay(deal, moves).won:
        raise SystemExit("tests/vectors/winning_game.json is not a 51-move win")

    positions = [Position.from_deal(deal)]
    for move in moves:
        positions.append(apply_move(positions[-1], move))
    rows = [position.piles_cards for position in positions]

    def verify(count: int) -> None:
        for _ in range(count):
            replay(deal, moves)

    def generate(count: int) -> None:
        for _ in range(count):
            for piles in rows:
                legal_moves(Position(piles))

    verifications = best_rate(verify, iterations)
    generations = best_rate(generate, max(1, iterations // len(rows)), per_iteration=len(rows))
    print(f"full-game verifications/s (51-move win): {verifications:.0f}")
    print(f"legal-move generations/s: {generations:.0f}")


if __name__ == "__main__":
    main()
