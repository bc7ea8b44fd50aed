"""Runs solver work away from web workers and the event loop: a small process pool with a bounded
number of jobs in flight. Past the bound, callers get SolverBusy at once instead of a growing queue."""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from django.conf import settings
from django.utils.translation import gettext as _

from .errors import SolverBusy

logger = logging.getLogger(__name__)
Result = TypeVar("Result")

# A job is given its own time limit; this is how much longer the caller waits for its answer.
_GRACE_SECONDS = 2.0

_pool_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_slots: threading.BoundedSemaphore | None = None


def _executor() -> tuple[ProcessPoolExecutor, threading.BoundedSemaphore]:
    global _pool, _slots
    with _pool_lock:
        if _pool is None or _slots is None:
            # spawn, not fork: the web process has threads (Daphne, asgiref) that fork would copy mid-flight.
            _pool = ProcessPoolExecutor(
                max_workers=settings.SOLVER_WORKERS,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_prepare_worker,
                initargs=(settings.SOLVER_NICENESS,),
            )
            _slots = threading.BoundedSemaphore(settings.SOLVER_MAX_JOBS)
        return _pool, _slots


def _prepare_worker(niceness: int) -> None:
    """Run the worker's searches at a lower CPU priority than the web processes, PostgreSQL and Redis:
    a search takes a core for up to its time limit, and at full priority the still-winnable badges of
    watched games held up sockets' acks (docs/performance.md, "The solver at a lower priority").
    And end the worker with its web process, however that one ends."""
    os.nice(niceness)
    threading.Thread(target=_exit_with_the_web_process, name="exit-with-web-process", daemon=True).start()


def _exit_with_the_web_process() -> None:
    """A web process killed with SIGKILL cannot shut its pool down, and an idle worker waits for its next
    job forever: the pipe it reads stays open at its own end. The parent's sentinel closes when the
    parent dies, whoever supervises it."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)


def _discard_broken_pool(pool: ProcessPoolExecutor) -> None:
    global _pool, _slots
    with _pool_lock:
        if _pool is pool:
            _pool, _slots = None, None
    pool.shutdown(wait=False, cancel_futures=True)


def solver_run(function: Callable[..., Result], *args: Any, time_limit: float) -> Result:
    """Run `function(*args)` (a pure engine function that honours `time_limit`) in the pool and return
    its result; raise SolverBusy when the pool is full or the answer does not come back in time."""
    pool, slots = _executor()
    if not slots.acquire(blocking=False):
        logger.warning("solver busy: %s refused", function.__name__)
        raise SolverBusy(_("the solver is busy right now: try again in a moment"))
    try:
        future: Future[Result] = pool.submit(function, *args)
    except (BrokenProcessPool, RuntimeError) as error:
        slots.release()
        _discard_broken_pool(pool)
        raise SolverBusy(_("the solver is restarting: try again in a moment")) from error
    future.add_done_callback(lambda _: slots.release())
    try:
        return future.result(timeout=time_limit + _GRACE_SECONDS)
    except FutureTimeout as error:
        raise SolverBusy(_("the solver took too long: try again in a moment")) from error
    except BrokenProcessPool as error:
        _discard_broken_pool(pool)
        raise SolverBusy(_("the solver is restarting: try again in a moment")) from error
