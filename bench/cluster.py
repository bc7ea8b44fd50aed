"""A small production-like cluster for benchmarks: a fresh PostgreSQL database, migrated, and N Daphne
processes on free loopback ports sharing it and a Redis channel layer. Everything it starts is stopped
(and the database dropped) when the context ends, on an error or a Ctrl-C too.

Also the two process figures the benchmarks report: CPU seconds and resident memory, from /proc.
"""

from __future__ import annotations

import argparse
import os
import resource
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / ".venv" / "bin"
START_TIMEOUT_S = 30
STOP_TIMEOUT_S = 10
CLOCK_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


class ClusterError(RuntimeError):
    """The cluster could not be set up; the message says which step failed and how."""


@dataclass(frozen=True, slots=True)
class Daphne:
    port: int
    pid: int
    log: Path
    host: str = "127.0.0.1"

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"


LOWEST_PORT = 10000


def _bindable(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port(count: int = 1) -> int:
    """A free port on 127.0.0.1 (the first of `count` in a row), below the kernel's ephemeral range: a
    port from that range can be taken by any process's outgoing connection between this probe and the
    server's bind, which parallel test workers make likely."""
    try:
        ephemeral_low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        ephemeral_low = 32768
    chooser = secrets.SystemRandom()
    for _ in range(1000):
        port = chooser.randrange(LOWEST_PORT, ephemeral_low - count)
        if all(_bindable(each) for each in range(port, port + count)):
            return port
    raise ClusterError(f"no {count} free port(s) in a row below {ephemeral_low}")


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used so far."""
    # The command name (field 2) may hold spaces, so count fields from after its closing parenthesis.
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    utime, stime = int(fields[11]), int(fields[12])
    return (utime + stime) / CLOCK_TICKS_PER_SECOND


def database_cpu_seconds() -> float:
    """User plus system CPU time of this machine's PostgreSQL processes (the server and its backends,
    the run's and any other's) so far; a backend that has exited no longer counts."""
    total = 0.0
    for comm in Path("/proc").glob("[0-9]*/comm"):
        try:
            if comm.read_text().strip() == "postgres":
                total += process_cpu_seconds(int(comm.parent.name))
        except (FileNotFoundError, ProcessLookupError):
            continue  # the process exited while being read
    return total


def machine_busy_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, all cores (from /proc/stat)."""
    fields = [int(value) for value in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields) - idle) / CLOCK_TICKS_PER_SECOND, sum(fields) / CLOCK_TICKS_PER_SECOND


DATABASE_WRITE_COUNTERS = ("xact_commit", "tup_inserted", "tup_updated", "tup_deleted")


def database_writes(server_url: str, name: str) -> dict[str, int]:
    """PostgreSQL's running counts of committed transactions and rows inserted, updated and deleted in
    the database `name` (pg_stat_database). Backends report them at most once a second, so a difference
    over a window of tens of seconds is exact to within a second's worth at each end."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True, connect_timeout=5) as connection:
        row = connection.execute(
            f"SELECT {', '.join(DATABASE_WRITE_COUNTERS)} FROM pg_stat_database WHERE datname = %s", [name]
        ).fetchone()
    if row is None:
        raise ClusterError(f"pg_stat_database has no row for the database {name}")
    return dict(zip(DATABASE_WRITE_COUNTERS, row, strict=True))


def process_rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise ClusterError(f"process {pid} reports no VmRSS")


def log_problems(daphne: Daphne) -> list[str]:
    """The lines of the process's output that report a warning, an error or a traceback."""
    markers = (" WARNING ", " ERROR ", " CRITICAL ", "Traceback")
    return [line for line in daphne.log.read_text(errors="replace").splitlines() if any(m in line for m in markers)]


def database_url(server_url: str, name: str) -> str:
    """The URL of the database `name` on the PostgreSQL server `server_url` names."""
    return urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))


@contextmanager
def fresh_database(server_url: str, name: str, *, template: str | None = None) -> Iterator[str]:
    """Create the PostgreSQL database `name` (dropping a leftover one) on the server `server_url`
    names, as a copy of the database `template` if one is given; yield its URL; drop it afterwards."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(server_url)
    maintenance = urlunsplit(parts._replace(path="/postgres"))

    def execute(statement: str, *names: str) -> None:
        with psycopg.connect(maintenance, autocommit=True, connect_timeout=5) as connection:
            connection.execute(sql.SQL(statement).format(*map(sql.Identifier, names)))

    try:
        execute("DROP DATABASE IF EXISTS {} WITH (FORCE)", name)
        if template is None:
            execute("CREATE DATABASE {}", name)
        else:
            execute("CREATE DATABASE {} TEMPLATE {}", name, template)
    except psycopg.Error as error:
        raise ClusterError(f"cannot create database {name} on {parts.hostname}:{parts.port}: {error}") from error
    try:
        yield database_url(server_url, name)
    finally:
        execute("DROP DATABASE IF EXISTS {} WITH (FORCE)", name)


@contextmanager
def django_in_this_process(server_url: str, name: str, **env: str) -> Iterator[None]:
    """Django set up in this process with production settings (DEBUG off, the test client's host allowed)
    on the fresh PostgreSQL database `name` on `server_url`, migrated; `env`, more of the environment
    (REDIS_URL, say). For the benches that drive the site through Django's test client."""
    with fresh_database(server_url, name) as database_url:
        os.environ.update(
            {
                "DATABASE_URL": database_url,
                "DJANGO_SETTINGS_MODULE": "accordion_site.settings",
                "DEBUG": "0",
                "SECRET_KEY": secrets.token_urlsafe(60),
                "DAILY_SECRET": secrets.token_hex(32),
                "ALLOWED_HOSTS": "testserver",  # the test client's host name
                "SECURE_SSL_REDIRECT": "0",
                "LOG_LEVEL": "WARNING",
                **env,
            }
        )
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        try:
            call_command("migrate", verbosity=0)
            yield
        finally:
            connections.close_all()


def production_env(*, database_url: str, redis_url: str, channels_prefix: str, extra: dict[str, str]) -> dict[str, str]:
    """The environment of a production web process, on loopback without the TLS proxy."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "accordion_site.settings",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(48),  # 64 characters
        "DAILY_SECRET": secrets.token_hex(32),
        # Every simulated visitor comes from 127.0.0.1: the per-address allowances would stop the load.
        "RANKED_ATTEMPTS_PER_ADDRESS": "1000000",
        "API_VISITOR_RATE": "1000000/minute",
        "SOLVER_REQUESTS_PER_MINUTE_PER_ADDRESS": "1000000",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",  # no proxy in front terminates TLS here
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CHANNELS_PREFIX": channels_prefix,  # the cache's too: a fresh database reads no stale keys
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def _wait_until_listening(server: subprocess.Popen[bytes], host: str, port: int, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            output = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
            raise ClusterError(f"Daphne did not start on {host}:{port}; its output ends with:\n{output}")
        time.sleep(0.1)


def manage(env: dict[str, str], *command: str) -> None:
    """Run `manage.py command` in the environment `env`; raise ClusterError with its output if it fails."""
    done = subprocess.run(
        [BIN / "python", "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise ClusterError(f"manage.py {command[0]} failed:\n{done.stderr[-4000:]}")


@contextmanager
def daphne_process(
    env: dict[str, str],
    log: Path,
    *,
    application: str = "accordion_site.asgi:application",
    options: Sequence[str] = (),
    host: str = "127.0.0.1",
    command_prefix: Sequence[str] = (),
) -> Iterator[Daphne]:
    """A Daphne process serving `application` (the site) on a free port of `host` in the environment
    `env`, with Daphne's command-line `options`, its output in `log`; stopped when the context ends.
    `command_prefix` runs it through another command, such as `ip netns exec NAME` (which execs the
    server in place, so the process is still the server)."""
    port = free_port()
    with log.open("wb") as output:
        server = subprocess.Popen(
            [*command_prefix, BIN / "daphne", "-b", host, "-p", str(port), *options, application],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            # Its own session: a Ctrl-C reaches only the benchmark, which then stops the servers in order.
            start_new_session=True,
        )
    try:
        _wait_until_listening(server, host, port, log)
        yield Daphne(port=port, pid=server.pid, log=log, host=host)
    finally:
        server.terminate()
        try:
            server.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@dataclass(frozen=True)
class PreparedSite:
    """What every cluster of the same code starts from: a migrated database to copy (on the same
    PostgreSQL server) and a directory of collected static files."""

    database: str
    static_root: Path


@contextmanager
def prepared_site(*, postgres_url: str, name: str, redis_url: str, static_root: Path) -> Iterator[PreparedSite]:
    """Migrate the database `name` once, for clusters to copy and to serve the static files already
    collected in `static_root`; drop the database afterwards."""
    with fresh_database(postgres_url, name) as database_url:
        env = production_env(database_url=database_url, redis_url=redis_url, channels_prefix=name, extra={})
        manage(env, "migrate", "--noinput")
        yield PreparedSite(database=name, static_root=static_root)


@contextmanager
def cluster(
    *,
    daphnes: int,
    postgres_url: str,
    database: str,
    redis_url: str,
    workdir: Path,
    extra_env: dict[str, str],
    daphne_options: Sequence[str] = (),
    prepared: PreparedSite | None = None,
) -> Iterator[list[Daphne]]:
    """Start `daphnes` Daphne processes on a fresh, migrated database; yield them; stop everything. With
    `prepared`, the database is a copy of its migrated one and its static files are served, instead of
    migrating and collecting anew (a test suite starts many clusters of the same code)."""
    with ExitStack() as stack:
        template = prepared.database if prepared is not None else None
        database_url = stack.enter_context(fresh_database(postgres_url, database, template=template))
        env = production_env(
            database_url=database_url,
            redis_url=redis_url,
            channels_prefix=f"bench-{os.getpid()}-{secrets.token_hex(4)}",
            extra=extra_env,
        )
        if prepared is None:
            manage(env, "migrate", "--noinput")
            # Production settings serve static files by their hashed names, from collectstatic's manifest.
            env["STATIC_ROOT"] = str(workdir / "static")
            manage(env, "collectstatic", "--noinput", "-v0")
        else:
            env["STATIC_ROOT"] = str(prepared.static_root)
        yield [
            stack.enter_context(daphne_process(env, workdir / f"daphne-{index}.log", options=daphne_options))
            for index in range(daphnes)
        ]


@contextmanager
def bench_cluster(args: argparse.Namespace, *, name: str, extra_env: dict[str, str]) -> Iterator[list[Daphne]]:
    """The cluster a bench's command line asks for (`add_cluster_options`), in a work directory of its own:
    `extra_env` for its processes, then the `--server-env` assignments over it."""
    with (
        tempfile.TemporaryDirectory(prefix=f"accordion-{name}-") as workdir,
        cluster(
            daphnes=args.daphnes,
            postgres_url=args.postgres,
            database=args.database,
            redis_url=args.redis,
            workdir=Path(workdir),
            extra_env={**extra_env, **dict(args.server_env)},
        ) as daphnes,
    ):
        yield daphnes


def server_env(assignment: str) -> tuple[str, str]:
    """`NAME=VALUE` from the command line, as a pair."""
    name, equals, value = assignment.partition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {assignment!r}")
    return name, value


def bounded(kind: Callable[[str], float], low: float, high: float) -> Callable[[str], Any]:
    def parse(text: str) -> float:
        value = kind(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is outside {low:g}..{high:g}")
        return value

    return parse


def add_cluster_options(parser: argparse.ArgumentParser, *, database: str, redis: str) -> None:
    """The options every bench that starts a cluster takes: its processes, database and Redis."""
    parser.add_argument("--daphnes", type=bounded(int, 1, 16), default=2, help="Daphne processes")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres", help="server URL")
    parser.add_argument("--database", default=database, help="created for the run, dropped after it")
    parser.add_argument("--redis", default=redis)
    parser.add_argument(
        "--server-env",
        type=server_env,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an extra environment variable for the Daphne processes, e.g. DATABASE_THREADS=4",
    )


def allow_open_files(wanted: int) -> None:
    """Raise this process's limit on open files (sockets) to `wanted`, as far as the hard limit allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, wanted)), hard))


def run_bench(main: Callable[[], None]) -> None:
    """Run a benchmark's `main`, which starts a cluster: a setup failure or an interrupt ends the script with a
    message instead of a traceback, once the cluster is stopped."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop the cluster on `kill` as on Ctrl-C
    try:
        main()
    except ClusterError as error:
        sys.exit(str(error))
    except KeyboardInterrupt:
        print("interrupted: the cluster is stopped and its database dropped", file=sys.stderr)
        sys.exit(130)
