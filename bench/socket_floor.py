"""What a socket message costs the server before any game logic: an echo socket under Daphne.

    .venv/bin/python bench/socket_floor.py [--sockets 400] [--rate 1] [--listeners 0] [--duration 20]
                                           [--variants raw,consumer,...]

For each variant, starts one Daphne process on loopback serving an echo socket, opens --sockets
sockets, sends --rate small JSON frames a second on each (spread over the second) and waits for each
echo, then prints the server's CPU per echo and the p50/p99 round trip. No database, no Redis.

With --listeners K, each sending socket has K more sockets that only listen, and the server writes
every frame it receives to them too, as a move's event reaches the player's other tab (K=1,
bench/load.py) or a racer's progress reaches the room sockets of a race (K=4, bench/race.py): the
bare server's cost of a move's frames, before Channels, the database or Redis. Variants:

- raw: a bare ASGI application (Daphne, autobahn and Twisted alone);
- frames: the same with autobahn's per-frame costs cut as in the site's processes (realtime/frame_costs.py);
- consumer: a Channels AsyncWebsocketConsumer, dispatching as the site's sockets do (games/consumers.py);
- thread: the consumer, plus one hop to a database thread and back per message through
  accordion_site.db.db_call (Channels' DatabaseSyncToAsync on the site's own threads), on a function
  that does nothing: what a move's database call costs beyond its own work;
- executor: the same hop as bare `loop.run_in_executor` on such a thread pool, without asgiref's
  wrapper, Django's connection cleanup or a context (the hop's floor).

Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("raw", "frames", "consumer", "thread", "executor")
SETTLE_S = 2.0


# --- the server side (imported by Daphne as bench.socket_floor:application) --------------------------


# Listening sockets by the path they opened (`/<group>/listen`), for the raw variant's copies.
_listeners: dict[str, list[Any]] = {}


async def echo(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "websocket":
        return
    group, _, role = scope["path"].strip("/").partition("/")
    while True:
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
            if role == "listen":
                _listeners.setdefault(group, []).append(send)
        elif message["type"] == "websocket.receive":
            reply = {"type": "websocket.send", "text": message.get("text")}
            await send(reply)
            for listener in _listeners.get(group, ()):
                await listener(reply)
        else:
            return


def consumer_application(variant: str) -> Any:
    import django
    from django.conf import settings

    settings.configure(DATABASE_THREADS=8, CHANNEL_LAYERS={}, INSTALLED_APPS=[])
    django.setup()
    from concurrent.futures import ThreadPoolExecutor

    from channels.consumer import get_handler_name
    from channels.generic.websocket import AsyncWebsocketConsumer

    from accordion_site.db import db_call

    def nothing() -> None:
        return None

    executor = ThreadPoolExecutor(max_workers=8)

    async def bare_hop() -> None:
        await asyncio.get_running_loop().run_in_executor(executor, nothing)

    hops = {"consumer": None, "thread": db_call(nothing), "executor": bare_hop}
    hop = hops[variant]

    class Echo(AsyncWebsocketConsumer):
        async def dispatch(self, message: dict[str, Any]) -> None:
            await getattr(self, get_handler_name(message))(message)

        async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
            if hop is not None:
                await hop()
            await self.send(text_data=text_data)

    return Echo.as_asgi()


if __name__ != "__main__":
    _variant = os.environ.get("SOCKET_FLOOR_VARIANT", "raw")
    if _variant == "frames":
        from realtime import frame_costs

        frame_costs.install()
    application = echo if _variant in ("raw", "frames") else consumer_application(_variant)


# --- the client side ---------------------------------------------------------------------------------


async def measure(variant: str, *, sockets: int, rate: float, listeners: int, duration: float) -> str:
    from websockets.asyncio.client import connect

    from bench.cluster import daphne_process, process_cpu_seconds

    env = {**os.environ, "SOCKET_FLOOR_VARIANT": variant}
    log = Path(tempfile.mkdtemp(prefix="socket-floor-")) / "daphne.log"
    with daphne_process(env, log, application="bench.socket_floor:application") as server:
        url = f"ws://127.0.0.1:{server.port}"
        connections = [await connect(f"{url}/{index}/send") for index in range(sockets)]
        listening = [await connect(f"{url}/{index}/listen") for index in range(sockets) for _ in range(listeners)]
        round_trips: list[float] = []
        heard = 0
        frame = json.dumps({"t": "move", "n": 1, "move": [12, 11]})
        interval = 1.0 / rate

        async def play(connection: Any, index: int, until: float) -> None:
            await asyncio.sleep(interval * index / sockets)
            while (start := time.perf_counter()) < until:
                await connection.send(frame)
                await connection.recv()
                round_trips.append(time.perf_counter() - start)
                await asyncio.sleep(max(0.0, interval - (time.perf_counter() - start)))

        async def listen(connection: Any) -> None:
            nonlocal heard
            async for _ in connection:
                heard += 1

        listening_tasks = [asyncio.create_task(listen(connection)) for connection in listening]
        await asyncio.sleep(SETTLE_S)
        cpu_before = process_cpu_seconds(server.pid)
        heard_before = heard
        until = time.perf_counter() + duration
        await asyncio.gather(*(play(connection, index, until) for index, connection in enumerate(connections)))
        cpu = process_cpu_seconds(server.pid) - cpu_before
        copies = heard - heard_before
        for connection in [*connections, *listening]:
            await connection.close()
        await asyncio.gather(*listening_tasks)
    quantiles = statistics.quantiles(round_trips, n=100)
    return (
        f"{variant:<9} {len(round_trips):>6} echoes   server CPU {1000 * cpu / len(round_trips):.3f} ms per echo"
        f" ({100 * cpu / duration:.0f} % of a core)   round trip p50 {1000 * quantiles[49]:.1f} ms"
        f"  p99 {1000 * quantiles[98]:.1f} ms" + (f"   copies heard {copies}" if listeners else "")
    )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=400)
    parser.add_argument("--rate", type=float, default=1.0, help="frames a second each sending socket sends")
    parser.add_argument("--listeners", type=int, default=0, help="sockets that hear each sender's frames (raw only)")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args(argv)
    variants = [variant for variant in args.variants.split(",") if variant]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    if args.listeners and not set(variants) <= {"raw", "frames"}:
        parser.error("--listeners goes with --variants raw or frames")
    print(f"command   .venv/bin/python bench/socket_floor.py {' '.join(argv)}".rstrip())
    print(
        f"load      {args.sockets} sockets sending {args.rate:g} messages a second each, {args.listeners} listening"
        f" socket(s) each, {args.duration:.0f} s per variant, 1 Daphne"
    )
    for variant in variants:
        measured = measure(
            variant, sockets=args.sockets, rate=args.rate, listeners=args.listeners, duration=args.duration
        )
        print(asyncio.run(measured), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main(sys.argv[1:])
