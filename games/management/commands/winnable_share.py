"""What share of deals can be won, as the solver finds it on a stated sample of random deals: the figure
How to play shows (frontend/odds.py) comes from this command."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand

from games.engine.deals import CERTIFY_POSITIONS, shuffled_deck
from games.engine.solver import solve
from games.management.arguments import positive

# The sample's deals: shuffled_deck(f"{SAMPLE_SEED}:{i}") for i = 0, 1, …, as docs/rules.md derives any deal.
SAMPLE_SEED = "odds"


class Command(BaseCommand):
    help = "Solve a sample of random deals and print how many the solver wins, proves lost or leaves open."

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--deals", type=positive, default=10_000, help="how many deals (default 10,000)")
        parser.add_argument(
            "--max-positions",
            type=positive,
            default=CERTIFY_POSITIONS,
            help=f"the solver's budget per deal, in positions, so the answer is the same on every machine "
            f"(default {CERTIFY_POSITIONS:,}, the daily deals' certification budget)",
        )

    def handle(self, *args: Any, deals: int, max_positions: int, **options: Any) -> None:
        verdicts: Counter[str] = Counter()
        for index in range(deals):
            result = solve(shuffled_deck(f"{SAMPLE_SEED}:{index}"), time_limit=None, max_positions=max_positions)
            verdicts[result.status] += 1
        share = 100 * verdicts["win"] / deals
        self.stdout.write(
            f"deals {deals:,} (shuffled_deck('{SAMPLE_SEED}:0' … '{SAMPLE_SEED}:{deals - 1}')), "
            f"at most {max_positions:,} positions each\n"
            f"won {verdicts['win']:,} ({share:.2f}%), lost {verdicts['lost']:,}, unknown {verdicts['unknown']:,}"
        )
