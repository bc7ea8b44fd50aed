"""Garbage collection for a long-running server: once the application is built, what exists is frozen
(never scanned again) and the generations are collected less often (settings.GC_THRESHOLDS), since each
full collection walked every start-up object and held every socket of the process meanwhile."""

from __future__ import annotations

import gc

from django.conf import settings


def tune_for_serving() -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(*settings.GC_THRESHOLDS)
