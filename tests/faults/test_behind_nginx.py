"""The shipped deploy/nginx.conf in front of two production Daphne processes, as docs/deploy.md sets it
up: pages, the API, /healthz and the sockets answer through it over TLS, plain HTTP is sent to HTTPS,
a body over its limit gets the API's JSON refusal, a page on another port of the site's host cannot
open a player's socket, and a client cannot name its own address in X-Forwarded-For. The config is the
repository's own file with only its certificate paths, listening ports and upstream ports changed.

Under CI a missing nginx or openssl fails this test; elsewhere it is skipped."""

from __future__ import annotations

import contextlib
import http.client
import json
import shutil
import ssl
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from bench.cluster import Daphne, PreparedSite, free_port
from tests.conftest import need_service
from tests.faults.conftest import production_cluster

pytestmark = pytest.mark.services

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf"
HOST = "accordion.example"  # the config's server_name
START_TIMEOUT_S = 10


def site_config(
    *, workdir: Path, https_port: int, http_port: int, daphnes: list[Daphne], address: str = "127.0.0.1"
) -> str:
    """deploy/nginx.conf with this machine's certificate, address, ports and Daphne processes in it."""
    text = CONFIG.read_text()
    replacements = {
        f"/etc/letsencrypt/live/{HOST}/fullchain.pem": str(workdir / "cert.pem"),
        f"/etc/letsencrypt/live/{HOST}/privkey.pem": str(workdir / "key.pem"),
        "listen 443 ssl http2;": f"listen {address}:{https_port} ssl http2;",
        "listen 80;": f"listen {address}:{http_port};",
        "server 127.0.0.1:8001;": f"server {daphnes[0].host}:{daphnes[0].port};",
        "server 127.0.0.1:8002;": f"server {daphnes[1].host}:{daphnes[1].port};",
    }
    for shipped, local in replacements.items():
        assert shipped in text, f"deploy/nginx.conf no longer has {shipped!r}: update this test with it"
        text = text.replace(shipped, local)
    return text


@contextmanager
def nginx_in_front(workdir: Path, daphnes: list[Daphne]) -> Iterator[tuple[int, int]]:
    """nginx, run as this user with a prefix of its own, serving the shipped config; yields its HTTPS and
    HTTP ports."""
    nginx, openssl = shutil.which("nginx") or "/usr/sbin/nginx", shutil.which("openssl")
    if not Path(nginx).exists() or openssl is None:
        need_service("nginx and openssl are needed to run deploy/nginx.conf (make test installs them)")
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={HOST}"]
        + ["-keyout", str(workdir / "key.pem"), "-out", str(workdir / "cert.pem")],
        check=True,
        capture_output=True,
    )
    https_port, http_port = free_port(), free_port()
    (workdir / "site.conf").write_text(
        site_config(workdir=workdir, https_port=https_port, http_port=http_port, daphnes=daphnes)
    )
    temp = " ".join(
        f"{kind}_temp_path {workdir / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (workdir / "nginx.conf").write_text(
        f"pid {workdir / 'nginx.pid'};\nerror_log {workdir / 'nginx-error.log'};\nevents {{}}\n"
        f"http {{ access_log off; {temp} include {workdir / 'site.conf'}; }}\n"
    )
    server = subprocess.Popen(
        [nginx, "-p", str(workdir), "-c", str(workdir / "nginx.conf"), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=(workdir / "nginx-start.log").open("wb"),
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _listening(https_port):
            assert server.poll() is None, (workdir / "nginx-start.log").read_text()
            assert time.monotonic() < deadline, "nginx did not start"
            time.sleep(0.05)
        yield https_port, http_port
    finally:
        server.terminate()
        server.wait(timeout=START_TIMEOUT_S)


def _listening(port: int) -> bool:
    try:
        http.client.HTTPConnection("127.0.0.1", port, timeout=1).connect()
    except OSError:
        return False
    return True


def tls() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the test's own certificate
    return context


def wss(port: int, path: str, headers: dict[str, str], *, origin: str = f"https://{HOST}") -> Any:
    """A WebSocket to `path` through nginx, as a browser on a page at `origin` (the site's own) opens it,
    with these extra headers."""
    return connect(
        f"wss://{HOST}:{port}{path}",
        host="127.0.0.1",
        port=port,
        ssl=tls(),
        server_hostname=HOST,
        origin=origin,  # type: ignore[arg-type]
        additional_headers=headers,
    )


FLOOD = 45


def attempt(port: int, body: bytes) -> tuple[int, Any]:
    """A login through nginx: its status and JSON answer."""
    answer = ask(port, "POST", "/api/accounts/login", body=body)
    return answer.status, json.loads(answer.read())


def ask(port: int, method: str, path: str, body: bytes | None = None) -> http.client.HTTPResponse:
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=tls())
    headers = {"Host": HOST, "Content-Type": "application/json", "Origin": f"https://{HOST}"}
    connection.request(method, path, body=body, headers=headers)
    return connection.getresponse()


async def test_the_shipped_nginx_config_serves_pages_the_api_and_sockets_over_tls(
    tmp_path: Path, redis_url: str, production_site: PreparedSite
):
    # As deploy/accordion-daphne@.service runs them: the client's address from the proxy's header.
    settings = {"ALLOWED_HOSTS": HOST, "SECURE_SSL_REDIRECT": "1", "NUM_PROXIES": "1", "SOCKETS_PER_ADDRESS": "1"}
    # The site's own allowance of account attempts out of reach: every 429 below is nginx's.
    settings["ACCOUNTS_ADDRESS_RATE"] = "1000/minute"
    with (
        production_cluster(
            tmp_path,
            site=production_site,
            redis_url=redis_url,
            extra_env=settings,
            daphne_options=["--proxy-headers"],
        ) as daphnes,
        nginx_in_front(tmp_path, daphnes) as (https_port, http_port),
    ):
        health = ask(https_port, "GET", "/healthz")
        assert health.status == 200 and json.loads(health.read())["status"] == "ok"
        page = ask(https_port, "GET", "/")
        assert page.status == 200 and "Strict-Transport-Security" in page.headers
        cookie = page.headers["Set-Cookie"].split(";")[0]

        plain = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
        plain.request("GET", "/daily", headers={"Host": HOST})
        assert plain.getresponse().getheader("Location") == f"https://{HOST}/daily"

        too_large = ask(https_port, "POST", "/api/games", body=b"{" + b" " * 100_000 + b"}")
        assert too_large.status == 413 and json.loads(too_large.read())["code"] == "too_large"

        # A game started through nginx (the CSRF cookie from the page), then its socket through nginx.
        connection = http.client.HTTPSConnection("127.0.0.1", https_port, timeout=10, context=tls())
        token = cookie.partition("=")[2] if cookie.startswith("csrftoken=") else ""
        connection.request(
            "POST",
            "/api/games",
            body=json.dumps({"mode": "new"}),
            headers={
                "Host": HOST,
                "Content-Type": "application/json",
                "Cookie": cookie,
                "X-CSRFToken": token,
                "Referer": f"https://{HOST}/",
            },
        )
        started = connection.getresponse()
        game = json.loads(started.read())
        assert started.status == 201, game
        session = "; ".join(header.split(";")[0] for header in started.headers.get_all("Set-Cookie") or [])
        async with wss(https_port, game["ws"], {"Cookie": f"{cookie}; {session}"}) as socket:
            first = json.loads(await socket.recv())
            assert first["t"] == "state" and first["game"]["id"] == game["id"]
        # nginx forwards the Host without a port: a page on another port of that host is refused.
        with pytest.raises(InvalidStatus) as refused:
            async with wss(https_port, game["ws"], {"Cookie": f"{cookie}; {session}"}, origin=f"https://{HOST}:8443"):
                pass
        assert refused.value.response.status_code == 403

        # A client that writes its own X-Forwarded-For is still counted by its real address: nginx
        # writes the header Daphne reads. One visitor socket an address a process: of three, spread over
        # the two processes in turn, the third is refused.
        async with contextlib.AsyncExitStack() as sockets:
            first_messages = []
            for forged in ("10.9.0.1", "10.9.0.2", "10.9.0.3"):
                visitor = await sockets.enter_async_context(wss(https_port, "/ws/live/", {"X-Forwarded-For": forged}))
                first_messages.append(json.loads(await visitor.recv()))
            assert [message.get("code") for message in first_messages] == [None, None, "too_many_sockets"]

        # A flood of login attempts from one address: nginx lets its burst through (30, and the one its
        # rate allows) and refuses the rest itself, in the API's shape, before they reach Daphne. The
        # rate (30 a minute) lets one more through for every 2 s the flood lasts on a busy machine.
        body = json.dumps({"nickname": "Victim", "password": "wrong guess"}).encode()
        flood_started = time.monotonic()
        with ThreadPoolExecutor(max_workers=FLOOD) as threads:
            answers = list(threads.map(lambda _: attempt(https_port, body), range(FLOOD)))
        refilled = int((time.monotonic() - flood_started) // 2)
        refused = [answer for status, answer in answers if status == 429]
        assert FLOOD - 32 - refilled <= len(refused) <= FLOOD - 31, [status for status, _ in answers]
        assert all(answer["code"] == "rate_limited" for answer in refused)
