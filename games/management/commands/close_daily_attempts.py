"""Close the ranked daily attempts still in play whose day is over, where they stand: the day's seed
and winning lines are published from then on, so none of them may be finished with those. Run it just
after midnight UTC (docs/deploy.md); an attempt it has not reached yet is closed when next used."""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management.base import BaseCommand

from games import selectors, services


class Command(BaseCommand):
    help = "Close the ranked daily attempts of past days (UTC) that are still in play, where they stand."

    def handle(self, *args: Any, **options: Any) -> None:
        now = datetime.datetime.now(datetime.UTC)
        closed = sum(
            services.game_close_if_day_over(game_id=game_id, now=now)
            for game_id in selectors.attempts_to_close(today=now.date())
        )
        self.stdout.write(self.style.SUCCESS(f"Closed {closed} ranked attempts of days before {now.date()}."))
