"""Create the site's own arenas ahead of time (an hourly 10-minute arena and a daily 30-minute one),
so that they are listed, and can be joined, before they start. Run it every few minutes with end_arenas
(docs/deploy.md; `make run` and `make serve-prod` run it as they start); running it twice is harmless."""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from arenas import services


def positive_hours(text: str) -> int:
    hours = int(text)
    if not 1 <= hours <= 24 * 7:
        raise argparse.ArgumentTypeError("--hours is 1 to 168")
    return hours


class Command(BaseCommand):
    help = "Create the site's hourly and daily arenas of the coming hours (UTC) that do not exist yet."

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--hours", type=positive_hours, default=24, help="how many hours ahead (default 24, at most 168)"
        )

    def handle(self, *args: Any, hours: int, **options: Any) -> None:
        created = services.arenas_schedule(now=timezone.now(), hours=hours)
        for arena in created:
            self.stdout.write(
                f"{arena.code}: {arena.kind}, {arena.minutes} minutes from {arena.starts_at:%Y-%m-%d %H:%M} UTC"
            )
        self.stdout.write(self.style.SUCCESS(f"{len(created)} arenas created for the next {hours} hours."))
