"""Close the arenas that are over: the games still in play are finished where they stood at the end and
counted so, and the seeds are published. An arena's own sockets close it at its end; this catches the
arenas nobody had open. Run it with schedule_arenas (docs/deploy.md); running it twice is harmless."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from arenas import services


class Command(BaseCommand):
    help = "Close the arenas that are over: count the games still in play, publish the seeds."

    def handle(self, *args: Any, **options: Any) -> None:
        closed = services.arenas_end(now=timezone.now())
        for code in closed:
            self.stdout.write(f"{code}: closed")
        self.stdout.write(self.style.SUCCESS(f"{len(closed)} arenas closed."))
