"""Garbage collection tuned for a long-running server process.

CPython's defaults suit short scripts: each full collection walks every object the process holds,
most of them made at start-up (Django, the URL configuration, the models, the rules engine), and holds
the event loop, and so every socket of the process, while it does (docs/performance.md, "Daphne's
floor, and garbage collection"). So once the application is built, everything made so far is frozen
(`gc.freeze`: never scanned again, and shared untouched with forked children), and the generations are
collected less often (GC_THRESHOLDS). Reference counting still frees almost everything at once; the
collector only finds cycles, and a few MB of them may wait a little longer.
"""

from __future__ import annotations

import gc

from django.conf import settings


def tune_for_serving() -> None:
    """Freeze the objects made so far and collect at the thresholds of GC_THRESHOLDS (settings)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*settings.GC_THRESHOLDS)
