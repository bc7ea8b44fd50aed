"""Garbage collection tuned for a long-running server process.

CPython's defaults suit short scripts: the youngest generation is collected after every 700 new
container objects, and each full collection walks every object the process holds, most of them made
at start-up (Django, the URL configuration, the models, the rules engine: some 140,000 objects in a
Daphne process). At 400 players a Daphne process ran about 900 young and 7 full collections in a run
of about 70 s, the full ones holding its event loop for about 0.25 s of wall-clock time each, while
every socket of the process waited; near the machine's capacity those pauses piled up into seconds of
ack latency (docs/performance.md, "Daphne's floor, and garbage collection").

So once the application is built, everything made so far is frozen (`gc.freeze`: never scanned
again, and shared untouched with forked children), and the generations are collected less often
(`GC_THRESHOLDS`). Reference counting still frees almost everything at once; the collector only finds
cycles, and a few MB of them may now wait a little longer.
"""

from __future__ import annotations

import gc

from django.conf import settings


def tune_for_serving() -> None:
    """Freeze the objects made so far and collect at the thresholds of GC_THRESHOLDS (settings)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*settings.GC_THRESHOLDS)
