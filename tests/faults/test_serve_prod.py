"""`make serve-prod`, the one command that runs the site as several processes: each Daphne serves the
site with production settings on PostgreSQL and Redis, and Ctrl-C stops every one of them."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from bench.cluster import PreparedSite, free_port, fresh_database
from tests.production import postgres_server_url

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]
# migrate (a no-op here), compilemessages, collectstatic, certify_daily_deals, schedule_arenas
STARTED_WITHIN_S = 120.0
STOPPED_WITHIN_S = 30.0


def get(port: int, path: str) -> tuple[int, dict[str, str], bytes] | None:
    """The answer to GET `path`, or None while nothing listens on `port`."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    except OSError:
        return None
    finally:
        connection.close()


def daphnes_serving(ports: list[int]) -> list[int]:
    """The pids of the Daphne processes listening on `ports`, from /proc (their command lines name them)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(arg.endswith(b"daphne") for arg in command[:2]) and any(
                str(port).encode() in command for port in ports
            ):
                found.append(int(entry.name))
    return found


def test_make_serve_prod_runs_n_processes_on_postgresql_and_redis_and_ctrl_c_stops_them_all(
    tmp_path: Path, redis_url: str, production_site: PreparedSite
):
    port = free_port(2)
    ports = [port, port + 1]
    name = f"serve_prod_{os.getpid()}"
    with fresh_database(postgres_server_url(), name, template=production_site.database) as database_url:
        env = {key: value for key, value in os.environ.items() if key not in {"DJANGO_SETTINGS_MODULE", "DEBUG"}}
        env |= {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "PROCESSES": "2",
            "PORT": str(port),
            "SERVE_PROD_SECRETS": str(tmp_path / "secrets.env"),
            "STATIC_ROOT": str(production_site.static_root),
        }
        with (tmp_path / "serve-prod.log").open("wb") as log:
            # A session of its own, as a terminal's foreground job: Ctrl-C is SIGINT to its whole group.
            server = subprocess.Popen(
                ["make", "-s", "serve-prod"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
            try:
                deadline = time.monotonic() + STARTED_WITHIN_S
                while not all(get(each, "/healthz") for each in ports) and time.monotonic() < deadline:
                    assert server.poll() is None, (tmp_path / "serve-prod.log").read_text()
                    time.sleep(0.5)
                for each in ports:
                    answer = get(each, "/healthz")
                    assert answer is not None, f"nothing on port {each}: {(tmp_path / 'serve-prod.log').read_text()}"
                    status, _, body = answer
                    checks = json.loads(body)["checks"]
                    assert status == 200 and checks["database"]["ok"] and checks["redis"]["ok"]
                    status, headers, page = get(each, "/nowhere") or (0, {}, b"")
                    assert status == 404 and b"Traceback" not in page and b"DEBUG" not in page  # DEBUG is off
                    assert "Content-Security-Policy" in headers
                status, _, body = get(port, "/api/arenas") or (0, {}, b"{}")
                listed = json.loads(body)
                site_arenas = [arena for arena in listed["upcoming"] + listed["live"] if arena["kind"] != "players"]
                assert status == 200 and len(site_arenas) >= 24  # the site's hourly arenas of the next day, at least
                pids = daphnes_serving(ports)
                assert len(pids) == 2
            finally:
                os.killpg(server.pid, signal.SIGINT)
                server.wait(timeout=STOPPED_WITHIN_S)

    deadline = time.monotonic() + STOPPED_WITHIN_S
    while daphnes_serving(ports) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not daphnes_serving(ports)
    assert not any(get(each, "/healthz") for each in ports)
