"""Certify the coming days' daily deals ahead of time, so that no player's first daily start of a day
waits for the solver. Run it daily (docs/deploy.md); running it twice is harmless."""

from __future__ import annotations

import argparse
import datetime
from typing import Any

from django.core.management.base import BaseCommand

from games import selectors, services
from games.management.arguments import positive


class Command(BaseCommand):
    help = "Derive, certify and store the daily deals of today and the coming days (UTC dates)."

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--days", type=positive, default=7, help="how many dates, today included (default 7)")

    def handle(self, *args: Any, days: int, **options: Any) -> None:
        today = datetime.datetime.now(datetime.UTC).date()
        dates = [today + datetime.timedelta(days=offset) for offset in range(days)]
        for date in dates:
            if selectors.daily_deal_exists(date=date):
                self.stdout.write(f"{date}: already certified")
                continue
            services.deal_for_date(date=date)
            self.stdout.write(f"{date}: certified and stored")
        self.stdout.write(self.style.SUCCESS(f"Daily deals are ready from {dates[0]} through {dates[-1]}."))
