"""Password hashing on a few threads of its own, with no database connection held.

A password hash is slow on purpose (PBKDF2, Django's default work factor). Done inside a login's
transaction, each login would hold a pooled database connection that long: a burst of wrong logins
would empty the pool, and other players' moves would wait for a connection or be told to try again.
Callers here have handed their connection back (`connection_released`) before they wait; the hashing
runs on PASSWORD_HASH_THREADS threads per process at a lower CPU priority (PASSWORD_HASH_NICENESS), so
a burst queues for its turn while sockets keep the CPU they need. The attempts allowed to reach the
queue are counted before (accounts/throttles.py).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.contrib.auth.hashers import make_password, verify_password
from django.db import connection

_executor_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None


def _lower_priority() -> None:
    # A Linux thread is a task of its own: this makes only the hashing thread nicer.
    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), settings.PASSWORD_HASH_NICENESS)


def _threads() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(
                max_workers=settings.PASSWORD_HASH_THREADS,
                thread_name_prefix="password",
                initializer=_lower_priority if hasattr(os, "setpriority") else None,
            )
        return _executor


def connection_released() -> None:
    """Give this thread's database connection back (to the pool, on PostgreSQL) before a slow wait.
    The next query takes one again."""
    if not connection.in_atomic_block:
        connection.close()


def password_verify(*, password: str, encoded: str | None) -> tuple[bool, bool]:
    """Whether `password` matches the stored hash `encoded`, and whether the hash should be remade with
    today's work factor. No hash (no such account) costs a hash all the same, so that the time taken
    does not tell which nicknames have an account."""
    connection_released()
    return _threads().submit(verify_password, password, encoded or "").result()  # "": no hasher, a dummy hash


def password_hash(*, password: str) -> str:
    """The hash to store for a new password."""
    connection_released()
    return _threads().submit(make_password, password).result()
