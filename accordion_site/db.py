"""Database work from async code (the socket consumers), run concurrently on a bounded set of threads.

Channels' `database_sync_to_async` runs every call of a process on one shared thread by default
(`thread_sensitive=True`), so one socket's slow query or row lock holds up every other socket of the
process. These threads are shared by no one else; each call takes a connection when it starts and
gives it back when it ends (to psycopg's pool on PostgreSQL, see DATABASES in settings).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from channels.db import DatabaseSyncToAsync
from django.conf import settings

Params = ParamSpec("Params")
Result = TypeVar("Result")

_executor_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None


def _threads() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=settings.DATABASE_THREADS, thread_name_prefix="db")
        return _executor


def db_call(function: Callable[Params, Result]) -> Callable[Params, Coroutine[Any, Any, Result]]:
    """`function` as a coroutine that runs on the database threads, closing its connection after."""
    return DatabaseSyncToAsync(function, thread_sensitive=False, executor=_threads())  # type: ignore[return-value]
