"""Assess every finished ranked result whose solver verdicts have not been weighed yet: those the
background assessment after a finish missed (a process that ended, a busy solver pool). Run it every few
minutes (docs/deploy.md); a result is assessed once, so running it again costs a query."""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management.base import BaseCommand

from games import selectors, services
from games.errors import SolverBusy


class Command(BaseCommand):
    help = "Assess the finished ranked results not assessed with the solver yet."

    def handle(self, *args: Any, **options: Any) -> None:
        assessed = held = waiting = 0
        for game_id in selectors.results_to_assess():
            try:
                game = services.game_assess(game_id=game_id, now=datetime.datetime.now(datetime.UTC))
            except SolverBusy:
                waiting += 1
                continue
            if game is not None:
                assessed += 1
                held += game.review == game.Review.PENDING
        self.stdout.write(
            self.style.SUCCESS(f"Assessed {assessed} results ({held} held for review); {waiting} wait for the solver.")
        )
