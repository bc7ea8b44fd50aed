"""Fold the events of finished games into one record each and remove their rows (games.history): a
finished game, once a daily's day (UTC) is over, keeps two rows, the game and its record. Run it every
few minutes (docs/deploy.md); each batch is one transaction, so it is safe while the site serves, to
stop at any point and to run again."""

from __future__ import annotations

import argparse
import datetime
import time
from typing import Any

from django.core.management.base import BaseCommand

from games import history
from games.management.arguments import positive


class Command(BaseCommand):
    help = "Fold the events of finished games (dailies once their day is over) into one record each."

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--batch", type=positive, default=500, help="games a transaction (default 500)")
        parser.add_argument("--limit", type=positive, default=None, help="stop after this many games (default: all)")

    def handle(self, *args: Any, batch: int, limit: int | None, **options: Any) -> None:
        started = time.perf_counter()
        today = datetime.datetime.now(datetime.UTC).date()
        games, rows = history.compact_games(today=today, batch=batch, limit=limit)
        seconds = time.perf_counter() - started
        self.stdout.write(
            self.style.SUCCESS(
                f"Compacted {games} games ({rows} event rows removed) in {seconds:.1f} s "
                f"({games / max(seconds, 0.001):.0f} games a second)."
            )
        )
