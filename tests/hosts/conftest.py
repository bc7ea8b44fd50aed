"""The rehearsal of several hosts (`pytest -m hosts`), laid out as docs/deploy.md's "Several hosts" section
sets a site up: two web hosts, each with its own nginx (the shipped deploy/nginx.conf) in front of two
production Daphne processes; one PostgreSQL behind PgBouncer in transaction mode; one Redis for the cache
and presence, and the channel layer sharded over two more; and a load-balancing nginx in front of both
hosts. Tests talk to it only as browsers do, over HTTPS and secure WebSockets, through the balancer or
one host's nginx.

Each host is a network namespace of its own (`ip netns`, joined to this machine by a veth pair), where
the machine allows it (as root); elsewhere a loopback address of its own (127.0.1.1, 127.0.2.1). Its
processes reach PgBouncer and Redis over that link, as a host reaches the database server.

One rehearsal serves the tests of a module (starting it takes some tens of seconds). Every process it
started is stopped, its database dropped and each namespace removed when they are done, on a failure
too. A test that kills a host leaves it dead for the rest of the module: it runs last in its file.

Under CI a missing pgbouncer, nginx, openssl or redis-server fails these tests; elsewhere they are skipped."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from channels_redis.utils import _consistent_hash
from websockets.asyncio.client import ClientConnection, connect

from bench.cluster import (
    ClusterError,
    Daphne,
    PreparedSite,
    daphne_process,
    free_port,
    fresh_database,
    production_env,
)
from bench.race import Visitor
from tests.conftest import need_service
from tests.faults.processes import RedisServer
from tests.faults.test_behind_nginx import HOST, site_config, tls
from tests.production import postgres_server_url

START_TIMEOUT_S = 10
HTTP_TIMEOUT_S = 20
SITE_ORIGIN = f"https://{HOST}"


@dataclass
class Host:
    """One web host: where its nginx listens (the balancer reaches it there), where it reaches PgBouncer
    and Redis, how a command runs on it, and, once started, its processes."""

    name: str
    address: str
    services_address: str
    command_prefix: list[str]
    https_port: int = field(default_factory=free_port)
    http_port: int = field(default_factory=free_port)
    daphnes: list[Daphne] = field(default_factory=list)
    nginx: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> tuple[str, int]:
        return self.address, self.https_port

    def kill(self) -> None:
        """The whole host goes down at once: nginx (its master and workers, one process group) and both
        Daphne processes are killed (SIGKILL), and the kernel resets their connections."""
        assert self.nginx is not None
        os.killpg(self.nginx.pid, signal.SIGKILL)
        for daphne in self.daphnes:
            os.kill(daphne.pid, signal.SIGKILL)


@dataclass
class Rehearsal:
    hosts: list[Host]
    balancer: tuple[str, int]
    channel_shards: list[RedisServer]
    channels_prefix: str

    def host_at(self, upstream: str) -> Host:
        """The host whose nginx is at `upstream` (`address:port`, as the balancer names it)."""
        found = [host for host in self.hosts if upstream == f"{host.address}:{host.https_port}"]
        assert found, f"the balancer names {upstream!r}, which is no host's nginx"
        return found[0]


class Browser(Visitor):
    """A browser's session reaching the site through one nginx (the balancer's or a host's) over HTTPS,
    as the site's own page: its cookies, JSON with the CSRF header, sockets with the cookies. Tests move
    it to another `endpoint` as a page that reconnects elsewhere."""

    def __init__(self, endpoint: tuple[str, int]) -> None:
        self.endpoint = endpoint
        self.jar: SimpleCookie = SimpleCookie()
        status, _ = self.request("GET", "/")
        if status != 200 or "csrftoken" not in self.jar:
            raise ClusterError(f"GET / through {endpoint} answered {status} without a csrftoken cookie")

    def request(self, method: str, path: str, body: object = None) -> tuple[int, Any]:
        address, port = self.endpoint
        connection = http.client.HTTPSConnection(address, port, timeout=HTTP_TIMEOUT_S, context=tls())
        headers = {
            "Host": HOST,
            "Cookie": self.cookie(),
            "Content-Type": "application/json",
            "Origin": SITE_ORIGIN,
            "Referer": f"{SITE_ORIGIN}/",
        }
        if "csrftoken" in self.jar:
            headers["X-CSRFToken"] = self.jar["csrftoken"].value
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
            response = connection.getresponse()
            content = response.read()
        finally:
            connection.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            self.jar.load(header)
        is_json = response.headers.get("Content-Type", "").startswith("application/json")
        return response.status, json.loads(content) if is_json else None

    async def socket(self, path: str, *, on: Daphne | None = None) -> ClientConnection:
        """A socket with this session's cookies, through this browser's nginx (never straight to a Daphne
        process: `on` must be None)."""
        assert on is None, "a browser reaches the Daphne processes only through nginx"
        address, port = self.endpoint
        return await connect(
            f"wss://{HOST}:{port}{path}",
            host=address,
            port=port,
            ssl=tls(),
            server_hostname=HOST,
            origin=SITE_ORIGIN,  # type: ignore[arg-type]
            additional_headers={"Cookie": self.cookie()},
            compression=None,
            open_timeout=HTTP_TIMEOUT_S,
        )


def served_by(socket: ClientConnection) -> str:
    """The host nginx (`address:port`) the balancer passed this socket to, from its handshake's answer:
    the last it tried (nginx lists each, `a:443, b:443`, when the first did not answer)."""
    assert socket.response is not None
    return socket.response.headers["X-Served-By"].split(",")[-1].strip()


def _ip(*arguments: str) -> None:
    subprocess.run(["ip", *arguments], check=True, capture_output=True, timeout=START_TIMEOUT_S)


def _namespaced_host(stack: ExitStack, index: int) -> Host:
    """Host `index` in a network namespace of its own, joined to this machine by a veth pair: the host is
    10.228.N.2 inside, and reaches this machine (PgBouncer, Redis) at 10.228.N.1."""
    pid = os.getpid()
    namespace, outside, inside = f"accordion-{pid}-{index}", f"ah{pid}o{index}", f"ah{pid}i{index}"
    subnet = f"10.228.{(pid % 120) * 2 + index}"
    _ip("netns", "add", namespace)
    # Removing the namespace removes its end of the veth pair, and with it the other end.
    stack.callback(_ip, "netns", "delete", namespace)
    _ip("link", "add", outside, "type", "veth", "peer", "name", inside, "netns", namespace)
    _ip("addr", "add", f"{subnet}.1/24", "dev", outside)
    _ip("link", "set", outside, "up")
    _ip("-n", namespace, "addr", "add", f"{subnet}.2/24", "dev", inside)
    _ip("-n", namespace, "link", "set", inside, "up")
    _ip("-n", namespace, "link", "set", "lo", "up")
    return Host(
        name=f"host {index}",
        address=f"{subnet}.2",
        services_address=f"{subnet}.1",
        command_prefix=["ip", "netns", "exec", namespace],
    )


def hosts_on_this_machine(stack: ExitStack) -> list[Host]:
    """Two hosts, in network namespaces where this process may make them, else on loopback addresses."""
    if os.geteuid() == 0 and shutil.which("ip") is not None:
        try:
            return [_namespaced_host(stack, index) for index in (1, 2)]
        except subprocess.CalledProcessError:
            pass  # a container without the right to make namespaces: loopback addresses do
    return [
        Host(name=f"host {index}", address=f"127.0.{index}.1", services_address="127.0.0.1", command_prefix=[])
        for index in (1, 2)
    ]


def _wait_until_listening(process: subprocess.Popen[bytes], address: str, port: int, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            with socket.create_connection((address, port), timeout=0.5):
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{process.args} did not listen on {address}:{port}: {log.read_text(errors='replace')}")
            time.sleep(0.05)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=START_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _terminate_web_processes(hosts: Sequence[Host]) -> None:
    for host in hosts:
        for pid in [daphne.pid for daphne in host.daphnes] + ([host.nginx.pid] if host.nginx else []):
            with contextlib.suppress(ProcessLookupError):  # a killed host's, already gone
                os.kill(pid, signal.SIGTERM)


@contextmanager
def pgbouncer(workdir: Path, *, database_url: str, addresses: Sequence[str]) -> Iterator[int]:
    """PgBouncer in transaction mode in front of the database `database_url` names, listening on
    `addresses` at a free port (yielded) under the database's own name. Few server connections for
    many clients: that is what it is for."""
    executable = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    if not Path(executable).exists():
        need_service("pgbouncer is not installed (make test installs it)")
    parts = urlsplit(database_url)
    name, user, port = parts.path.lstrip("/"), parts.username or "postgres", free_port()
    server = f"host={parts.hostname or '127.0.0.1'} port={parts.port or 5432} dbname={name} user={user}"
    if parts.password:
        server += f" password={parts.password}"
    config = workdir / "pgbouncer.ini"
    config.write_text(
        f"[databases]\n{name} = {server}\n\n[pgbouncer]\n"
        f"listen_addr = {', '.join(addresses)}\nlisten_port = {port}\nunix_socket_dir =\n"
        "auth_type = any\npool_mode = transaction\ndefault_pool_size = 10\nmax_client_conn = 1000\n"
        "log_connections = 0\nlog_disconnections = 0\n"
    )
    log = workdir / "pgbouncer.log"
    # PgBouncer refuses to run as root; it reads its configuration, then becomes `nobody`.
    as_user = ["-u", "nobody"] if os.geteuid() == 0 else []
    process = subprocess.Popen(
        [executable, *as_user, str(config)], stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with psycopg.connect(f"postgres://{user}@127.0.0.1:{port}/{name}", connect_timeout=2) as connection:
                    connection.execute("SELECT 1")
                break
            except psycopg.OperationalError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"PgBouncer did not start: {log.read_text(errors='replace')}")
                time.sleep(0.1)
        yield port
    finally:
        _stop(process)


def _nginx_executable() -> str:
    executable = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(executable).exists():
        need_service("nginx is not installed (make test installs it)")
    return executable


@contextmanager
def nginx(
    workdir: Path, site: str, *, listening: tuple[str, int], command_prefix: Sequence[str] = (), http_extra: str = ""
) -> Iterator[subprocess.Popen[bytes]]:
    """nginx serving `site` (server and upstream blocks) with a prefix of its own in `workdir`, run through
    `command_prefix`; yields the master process once it listens at `listening`. Its workers share the
    master's process group, so a host's kill ends them too."""
    workdir.mkdir()
    (workdir / "site.conf").write_text(site)
    temp = " ".join(
        f"{kind}_temp_path {workdir / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (workdir / "nginx.conf").write_text(
        f"pid {workdir / 'nginx.pid'};\nerror_log {workdir / 'error.log'};\nevents {{}}\n"
        f"http {{ access_log off; {temp} {http_extra} include {workdir / 'site.conf'}; }}\n"
    )
    log = workdir / "start.log"
    process = subprocess.Popen(
        [*command_prefix, _nginx_executable(), "-p", str(workdir), "-c", str(workdir / "nginx.conf")]
        + ["-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
        start_new_session=True,
    )
    try:
        _wait_until_listening(process, *listening, log)
        yield process
    finally:
        _stop(process)


def balancer_config(*, workdir: Path, port: int, hosts: Sequence[Host]) -> str:
    """The load balancer: TLS for the site's name, each request and socket passed to the next host's nginx
    in turn, and to the other when one does not answer. It names the host it chose in `X-Served-By`, for
    the tests."""
    servers = "\n".join(f"    server {host.address}:{host.https_port} max_fails=1 fail_timeout=30s;" for host in hosts)
    return f"""
upstream accordion_hosts {{
{servers}
}}
map $http_upgrade $connection_upgrade {{
    default upgrade;
    ''      close;
}}
server {{
    listen 127.0.0.1:{port} ssl;
    server_name {HOST};
    ssl_certificate {workdir / "cert.pem"};
    ssl_certificate_key {workdir / "key.pem"};
    location / {{
        proxy_pass https://accordion_hosts;
        proxy_http_version 1.1;
        proxy_ssl_server_name on;
        proxy_ssl_name {HOST};
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        proxy_connect_timeout 2s;
        proxy_read_timeout 75s;
        proxy_next_upstream error timeout http_502 http_503;
        add_header X-Served-By $upstream_addr always;
    }}
}}
"""


def _certificate(workdir: Path) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        need_service("openssl is needed for the site's TLS (make test installs it)")
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={HOST}"]
        + ["-keyout", str(workdir / "key.pem"), "-out", str(workdir / "cert.pem")],
        check=True,
        capture_output=True,
    )


def _redis(stack: ExitStack, workdir: Path, addresses: Sequence[str]) -> RedisServer:
    executable = shutil.which("redis-server")
    if executable is None:
        need_service("redis-server is not installed")
    server = RedisServer(executable, workdir, also_on=addresses)
    server.start()
    stack.callback(server.stop)
    return server


# Module-scoped: stopped once its tests are done, not left running (and holding database connections)
# through the rest of the suite.


def spread_prefix(base: str, *, shards: int) -> str:
    """A channel layer prefix under which the bus group every process follows (presence) and the group
    of the rehearsal's first game (game.1, on its fresh database) hash to different shards: the other
    names are random (each process's own channel), and could all land on one shard."""
    return next(
        prefix
        for prefix in (f"{base}-{n}" for n in range(1000))
        if _consistent_hash(f"{prefix}__group__presence", shards)
        != _consistent_hash(f"{prefix}__group__game.1", shards)
    )


@pytest.fixture(scope="module")
def rehearsal(tmp_path_factory: pytest.TempPathFactory, production_site: PreparedSite) -> Iterator[Rehearsal]:
    workdir = tmp_path_factory.mktemp("hosts")
    _nginx_executable()
    _certificate(workdir)
    with ExitStack() as stack:
        hosts = hosts_on_this_machine(stack)
        reached_at = sorted({"127.0.0.1", *(host.services_address for host in hosts)})
        remote = [address for address in reached_at if address != "127.0.0.1"]
        try:
            database_url = stack.enter_context(
                fresh_database(postgres_server_url(), f"hosts_{os.getpid()}", template=production_site.database)
            )
        except ClusterError as error:
            pytest.fail(str(error))
        bouncer_port = stack.enter_context(pgbouncer(workdir, database_url=database_url, addresses=reached_at))
        redis = _redis(stack, workdir, remote)
        shards = [_redis(stack, workdir, remote) for _ in range(2)]
        prefix = spread_prefix(f"hosts-{os.getpid()}", shards=len(shards))
        parts = urlsplit(database_url)
        # One environment for every host, as docs/deploy.md has it (the same SECRET_KEY and DAILY_SECRET: a
        # session or a day's deal made on one host holds on the other); only the addresses differ.
        shared = production_env(
            database_url=database_url,
            redis_url="",
            channels_prefix=prefix,
            extra={
                # As deploy/accordion-daphne@.service runs them behind nginx.
                "ALLOWED_HOSTS": HOST,
                "SECURE_SSL_REDIRECT": "1",
                "NUM_PROXIES": "1",
                "STATIC_ROOT": str(production_site.static_root),
                # PgBouncer in transaction mode (docs/deploy.md, "Several hosts").
                "DATABASE_PREPARED_STATEMENTS": "false",
                "DATABASE_SERVER_SIDE_CURSORS": "false",
            },
        )
        for host in hosts:
            services = host.services_address
            env = {
                **shared,
                "DATABASE_URL": f"postgres://{parts.username or 'postgres'}@{services}:{bouncer_port}{parts.path}",
                "REDIS_URL": f"redis://{services}:{redis.port}/0",
                "CHANNEL_LAYER_REDIS_URLS": ",".join(f"redis://{services}:{shard.port}/0" for shard in shards),
            }
            slug = host.name.replace(" ", "-")
            host.daphnes = [
                stack.enter_context(
                    daphne_process(
                        env,
                        workdir / f"{slug}-daphne-{index}.log",
                        options=["--proxy-headers"],
                        host=host.address,
                        command_prefix=host.command_prefix,
                    )
                )
                for index in (1, 2)
            ]
            site = site_config(
                workdir=workdir,
                https_port=host.https_port,
                http_port=host.http_port,
                daphnes=host.daphnes,
                address=host.address,
            )
            # The client's address comes from the balancer, as docs/deploy.md sets a host's nginx behind one.
            real_ip = f"set_real_ip_from {host.services_address}; real_ip_header X-Forwarded-For;"
            host.nginx = stack.enter_context(
                nginx(
                    workdir / f"{slug}-nginx",
                    site,
                    listening=host.endpoint,
                    command_prefix=host.command_prefix,
                    http_extra=real_ip,
                )
            )
        # Runs first when the stack unwinds: every web process is told to stop at once, so the contexts
        # above wait for them together instead of one after another.
        stack.callback(_terminate_web_processes, hosts)
        balancer_port = free_port()
        stack.enter_context(
            nginx(
                workdir / "balancer",
                balancer_config(workdir=workdir, port=balancer_port, hosts=hosts),
                listening=("127.0.0.1", balancer_port),
            )
        )
        yield Rehearsal(
            hosts=hosts,
            balancer=("127.0.0.1", balancer_port),
            channel_shards=shards,
            channels_prefix=prefix,
        )
