"""The solver's worker processes, as an operator sees them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A web process that has run one solver job, then waits: its workers are started and idle.
WEB_PROCESS = """
import os, time
import django
django.setup()
from games import solver_pool
print(solver_pool.solver_run(os.getpid, time_limit=1), flush=True)
time.sleep(120)
"""


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.update(int(child) for child in (task / "children").read_text().split())
    return found


def running(pid: int) -> bool:
    """Whether `pid` is a process that still runs (a zombie waiting for its parent to reap it is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def test_a_web_process_killed_with_sigkill_takes_its_solver_workers_with_it():
    """`kill -9` of a Daphne gives it no chance to stop its pool; its workers must not go on holding memory
    and a share of the CPU for minutes, whatever supervises the Daphne (systemd, supervisord, a shell)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "accordion_site.settings", "DEBUG": "1"}
    web = subprocess.Popen([sys.executable, "-c", WEB_PROCESS], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert web.stdout is not None
        worker = int(web.stdout.readline())
        workers = children(web.pid)
        assert worker in workers
    finally:
        web.send_signal(signal.SIGKILL)
        web.wait()

    deadline = time.monotonic() + 10
    while any(running(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if running(pid)]
