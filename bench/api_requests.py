"""What an API request costs a Daphne process: the site's one-hop handler against Django's own.

    .venv/bin/python bench/api_requests.py [--requests 400] [--rounds 3] [--postgres …] [--redis …]

Creates a database of its own on PostgreSQL (dropped at the end), migrated, with production settings,
and starts two Daphne processes on it: the site (`accordion_site.asgi:application`, whose HTTP runs its
middleware and view as one call on the request's thread, accordion_site/http_stack.py) and, as the
reference, the same settings behind Django's own ASGI handler (`bench.api_requests:application`, each
middleware step and the view a round trip between the event loop and the request's thread). One visitor
starts a game on each, then sends --requests requests of each kind, one at a time on one kept-alive
connection, to each process in turn, --rounds times:

- game: `GET /api/games/<id>`, the visitor's own game (the session, the player, the game);
- arenas: `GET /api/arenas`, the arenas' lists.

Prints, per kind and server, the Daphne process's CPU and the wall time per request (all rounds), and
the ratio of the two CPU figures. Asserts nothing.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# The reference server's application: Django's own handler for the site's HTTP, with the site's settings.
if __name__ != "__main__":
    from django.core.asgi import get_asgi_application

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "accordion_site.settings")
    application = get_asgi_application()

KINDS = ("game", "arenas")
SERVERS = ("site", "django")


class Visitor:
    """One browser's cookies on one kept-alive connection to a server."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.jar: SimpleCookie = SimpleCookie()

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        headers = {"Cookie": "; ".join(f"{name}={morsel.value}" for name, morsel in self.jar.items())}
        if method == "POST":
            headers |= {"Content-Type": "application/json", "X-CSRFToken": self.jar["csrftoken"].value}
        self.connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = self.connection.getresponse()
        raw = response.read()
        for header in response.headers.get_all("Set-Cookie") or []:
            self.jar.load(header)
        return response.status, json.loads(raw) if raw[:1] in b"{[" else raw


def main() -> None:
    from bench.cluster import (
        ClusterError,
        daphne_process,
        fresh_database,
        manage,
        process_cpu_seconds,
        production_env,
        run_bench,
    )

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="requests of each kind, per server and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres", help="server URL")
    parser.add_argument("--database", default="bench_api_requests", help="created for the run, dropped after it")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/4")
    args = parser.parse_args()

    def run() -> None:
        with ExitStack() as stack:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="accordion-api-requests-")))
            database_url = stack.enter_context(fresh_database(args.postgres, args.database))
            env = production_env(
                database_url=database_url,
                redis_url=args.redis,
                channels_prefix=f"bench-api-requests-{os.getpid()}",
                extra={"API_PLAYER_RATE": "1000000/minute", "STATIC_ROOT": str(workdir / "static")},
            )
            manage(env, "migrate", "--noinput")
            manage(env, "collectstatic", "--noinput", "-v0")
            servers = {
                "site": stack.enter_context(daphne_process(env, workdir / "site.log")),
                "django": stack.enter_context(
                    daphne_process(env, workdir / "django.log", application="bench.api_requests:application")
                ),
            }
            visitors, paths = {}, {}
            for name, daphne in servers.items():
                visitor = visitors[name] = Visitor(daphne.port)
                visitor.call("GET", "/")
                status, game = visitor.call("POST", "/api/games", {"mode": "new"})
                if status != 201:
                    raise ClusterError(f"POST /api/games on {name} answered {status}: {game}")
                paths[name] = {"game": f"/api/games/{game['id']}", "arenas": "/api/arenas"}
            spent = {(kind, name): [0.0, 0.0] for kind in KINDS for name in SERVERS}
            for _ in range(args.rounds):
                for kind in KINDS:
                    for name in SERVERS:
                        cpu, began = process_cpu_seconds(servers[name].pid), time.perf_counter()
                        for _ in range(args.requests):
                            status, _answer = visitors[name].call("GET", paths[name][kind])
                            if status != 200:
                                raise ClusterError(f"GET {paths[name][kind]} on {name} answered {status}")
                        spent[kind, name][0] += process_cpu_seconds(servers[name].pid) - cpu
                        spent[kind, name][1] += time.perf_counter() - began
            count = args.requests * args.rounds
            print(f"{args.rounds} rounds of {args.requests} requests of each kind, one at a time, per server")
            for kind in KINDS:
                for name in SERVERS:
                    cpu, wall = spent[kind, name]
                    cpu_ms, wall_ms = 1000 * cpu / count, 1000 * wall / count
                    print(f"{kind:7} {name:7} {cpu_ms:6.2f} ms of Daphne CPU a request, {wall_ms:6.2f} ms wall")
                ratio = spent[kind, "django"][0] / spent[kind, "site"][0]
                print(f"{kind:7} Django's own handler takes {ratio:.2f} times the site's CPU")

    run_bench(run)


if __name__ == "__main__":
    main()
