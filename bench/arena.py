"""An arena under load: P participants play at R moves a second while S spectators follow the standings.

    .venv/bin/python bench/arena.py [--participants 1000] [--spectators 1000] [--rate 1] [--duration 60]
                                    [--daphnes 2]

Needs PostgreSQL and Redis on loopback (see docs/performance.md). The script starts its own cluster
(bench/cluster.py: a fresh database, migrated, --daphnes Daphne processes with production settings) and
stops it at the end. It creates one arena, and each participant (a visitor) joins it over HTTP (not
measured), opens the arena socket on one process and its game's socket on the next, and plays a random
legal move every 1/R seconds, open loop. A participant with no legal move left finishes its game over
HTTP (POST /api/games/<id>/finish); a win finishes it by itself. Either way the arena socket pushes the
next game (`next`), whose socket the participant opens to play on. Spectators (visitors without a
session) open the arena socket only, spread over the processes.

Printed: the move ack p99 (move sent → its ack); finished game → standings p99, over every socket: for
each finish and each arena socket open then, from the finish's answer to the first standings frame whose
`at` (the server's clock when it read the standings) is after that answer; the most standings frames one
socket got within any one second; and the loss: moves never acknowledged, finishes that some socket
never saw in its standings, next games never pushed, sockets closed by the server. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import http.client
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.cluster import (  # noqa: E402
    ClusterError,
    Daphne,
    add_cluster_options,
    allow_open_files,
    bench_cluster,
    bounded,
    log_problems,
    machine_busy_seconds,
    run_bench,
)
from bench.load import open_socket, percentile, print_report, spread_ms  # noqa: E402
from games.engine import Position, apply_move, legal_moves  # noqa: E402

HTTP_TIMEOUT_S = 60.0
SETUP_THREADS = 8
SOCKETS_OPENING_AT_ONCE = 32
# A next game not pushed this long after a finish is asked for over HTTP (and counted as lost).
NEXT_TIMEOUT_S = 10.0
# After the last move, the run waits this long for the last acks and standings.
SETTLE_S = 5.0


@dataclass(slots=True)
class Http:
    daphne: Daphne
    jar: SimpleCookie = field(default_factory=SimpleCookie)

    def cookie(self) -> str:
        return "; ".join(f"{name}={morsel.value}" for name, morsel in self.jar.items())

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.daphne.port, timeout=HTTP_TIMEOUT_S)
        headers = {"Cookie": self.cookie()}
        if method == "POST":
            headers |= {"Content-Type": "application/json", "X-CSRFToken": self.jar["csrftoken"].value}
        try:
            connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
            response = connection.getresponse()
            raw = response.read()
            for header in response.headers.get_all("Set-Cookie") or []:
                self.jar.load(header)
        finally:
            connection.close()
        return response.status, json.loads(raw) if raw and raw[:1] in b"{[" else raw

    def visit(self) -> None:
        status, _ = self.call("GET", "/")
        if status != 200 or "csrftoken" not in self.jar:
            raise ClusterError(f"GET / answered {status} without a csrftoken cookie")


@dataclass(slots=True)
class Participant:
    index: int
    code: str
    http: Http
    arena_daphne: Daphne
    game_daphne: Daphne
    game: dict[str, Any]
    sent: dict[int, float] = field(default_factory=dict)  # move n → when it was sent
    acked: list[float] = field(default_factory=list)
    next_waiting: asyncio.Event = field(default_factory=asyncio.Event)
    next_game: dict[str, Any] | None = None


@dataclass(slots=True)
class Listener:
    """An arena socket's standings frames: (when received, the server's `at`)."""

    opened: float = 0.0
    frames: list[tuple[float, float]] = field(default_factory=list)


@dataclass(slots=True)
class Tally:
    errors: Counter[str] = field(default_factory=Counter)
    # Each finish: (when it was sent, when its answer came), wall clock.
    finishes: list[tuple[float, float]] = field(default_factory=list)
    closing: bool = False
    moves_sent: int = 0
    moves_unacked: int = 0
    next_late: int = 0


def join(index: int, code: str, daphnes: Sequence[Daphne]) -> Participant:
    http = Http(daphnes[index % len(daphnes)])
    http.visit()
    status, body = http.call("POST", f"/api/arenas/{code}/join")
    if status != 200 or body.get("game") is None:
        raise ClusterError(f"joining the arena answered {status}: {str(body)[:300]}")
    return Participant(
        index=index,
        code=code,
        http=http,
        arena_daphne=daphnes[(index + 1) % len(daphnes)],
        game_daphne=daphnes[index % len(daphnes)],
        game=body["game"],
    )


async def listen_arena(
    socket: ClientConnection, listener: Listener, tally: Tally, participant: Participant | None
) -> None:
    try:
        async for text in socket:
            message = json.loads(text)
            kind = message.get("t")
            if kind == "standings":
                listener.frames.append((time.time(), message["at"]))
            elif kind == "next" and participant is not None:
                participant.next_game = message["game"]
                participant.next_waiting.set()
            elif kind in ("refused", "reject"):
                tally.errors[f"arena socket {kind} ({message.get('code')})"] += 1
    except ConnectionClosed:
        pass
    if not tally.closing:
        tally.errors[f"arena socket closed by the server ({socket.close_code})"] += 1


async def play_game(
    participant: Participant,
    limit: asyncio.Semaphore,
    *,
    interval: float,
    stop_at: float,
    rng: random.Random,
    tally: Tally,
) -> bool:
    """Play the participant's current game until it ends (True) or time is up (False)."""
    game = participant.game
    url = f"ws://127.0.0.1:{participant.game_daphne.port}{game['ws']}?v={game['version']}"
    try:
        socket = await open_socket(url, participant.game_daphne, participant.http.cookie(), limit)
    except ClusterError:
        tally.errors["game socket not opened"] += 1
        return False
    position = Position.from_deal(game["deal"])
    acks: dict[int, asyncio.Future[dict[str, Any]]] = {}
    line: list[list[int]] = []

    async def read() -> None:
        try:
            async for text in socket:
                message = json.loads(text)
                if message.get("t") in ("ack", "reject") and message.get("n") in acks:
                    future = acks.pop(message["n"])
                    if not future.done():
                        future.set_result(message)
                    if message["t"] == "ack":
                        participant.acked.append(time.perf_counter() - participant.sent.pop(message["n"]))
                    else:
                        tally.errors[f"move rejected ({message.get('code')})"] += 1
        except ConnectionClosed:
            pass

    reader = asyncio.get_running_loop().create_task(read())
    n = 0
    due = time.perf_counter()
    try:
        while time.perf_counter() < stop_at:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            due += interval
            moves = legal_moves(position)
            if not moves:
                sent = time.time()
                status, _ = await asyncio.to_thread(
                    participant.http.call, "POST", f"/api/games/{game['id']}/finish", {"moves": line}
                )
                if status != 200:
                    tally.errors[f"finish answered {status}"] += 1
                    return False
                tally.finishes.append((sent, time.time()))
                return True
            move = rng.choice(moves)
            position = apply_move(position, move)
            line.append(list(move))
            n += 1
            participant.sent[n] = time.perf_counter()
            acks[n] = asyncio.get_running_loop().create_future()
            tally.moves_sent += 1
            sent = time.time()
            await socket.send(json.dumps({"t": "move", "move": list(move), "n": n}))
            if position.won:
                answer = await asyncio.wait_for(acks[n], timeout=NEXT_TIMEOUT_S)
                if answer.get("t") == "ack":
                    tally.finishes.append((sent, time.time()))
                    return True
                return False
        return False
    except (TimeoutError, ConnectionClosed):
        tally.errors["game socket lost"] += 1
        return False
    finally:
        pending = list(acks.values())
        if pending:  # the answers still on their way when time is up
            await asyncio.wait(pending, timeout=SETTLE_S)
        tally.moves_unacked += len(participant.sent)
        participant.sent.clear()
        reader.cancel()
        await socket.close()


async def participate(
    participant: Participant, limit: asyncio.Semaphore, *, interval: float, stop_at: float, tally: Tally
) -> None:
    rng = random.Random(participant.index)
    await asyncio.sleep(rng.random() * interval)  # spread the participants' moves over the second
    while time.perf_counter() < stop_at:
        participant.next_waiting.clear()
        participant.next_game = None
        if not await play_game(participant, limit, interval=interval, stop_at=stop_at, rng=rng, tally=tally):
            return
        try:
            await asyncio.wait_for(participant.next_waiting.wait(), timeout=NEXT_TIMEOUT_S)
        except TimeoutError:
            tally.next_late += 1
            status, body = await asyncio.to_thread(
                participant.http.call, "POST", f"/api/arenas/{participant.code}/next"
            )
            if status != 200:
                tally.errors[f"next answered {status}"] += 1
                return
            participant.next_game = body["game"]
        assert participant.next_game is not None
        participant.game = participant.next_game


async def run(args: argparse.Namespace, daphnes: Sequence[Daphne]) -> tuple[list[Participant], list[Listener], Tally]:
    creator = Http(daphnes[0])
    creator.visit()
    status, arena = creator.call("POST", "/api/arenas", {"minutes": 120, "starts_in": 0})
    if status != 201:
        raise ClusterError(f"creating the arena answered {status}: {str(arena)[:300]}")
    code = arena["code"]
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=SETUP_THREADS) as pool:
        participants = await asyncio.gather(
            *(loop.run_in_executor(pool, join, index, code, daphnes) for index in range(args.participants))
        )
    print(f"{args.participants} participants joined in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    tally = Tally()
    limit = asyncio.Semaphore(SOCKETS_OPENING_AT_ONCE)
    listeners: list[Listener] = []
    readers: list[asyncio.Task[None]] = []
    sockets: list[ClientConnection] = []

    async def open_arena(daphne: Daphne, cookie: str | None, participant: Participant | None) -> None:
        socket = await open_socket(f"ws://127.0.0.1:{daphne.port}/ws/arenas/{code}/", daphne, cookie, limit)
        listener = Listener(opened=time.time())
        listeners.append(listener)
        sockets.append(socket)
        readers.append(loop.create_task(listen_arena(socket, listener, tally, participant)))

    await asyncio.gather(
        *(open_arena(p.arena_daphne, p.http.cookie(), p) for p in participants),
        *(open_arena(daphnes[index % len(daphnes)], None, None) for index in range(args.spectators)),
    )
    print(f"{len(sockets)} arena sockets open; playing {args.duration:.0f} s", file=sys.stderr)
    busy_before = machine_busy_seconds()
    stop_at = time.perf_counter() + args.duration
    await asyncio.gather(
        *(participate(p, limit, interval=1 / args.rate, stop_at=stop_at, tally=tally) for p in participants)
    )
    await asyncio.sleep(SETTLE_S)
    busy_after = machine_busy_seconds()
    tally.closing = True
    for socket in sockets:
        await socket.close()
    for reader in readers:
        reader.cancel()
    used = (busy_after[0] - busy_before[0]) / max(1e-9, busy_after[1] - busy_before[1])
    tally.errors["(machine busy over the run, %)"] = round(100 * used)
    return participants, listeners, tally


def standings_delays(listeners: Sequence[Listener], finishes: Sequence[tuple[float, float]]) -> tuple[list[float], int]:
    """For each finish and each socket open then, the delay to the first standings frame that surely
    holds it: read (`at`) after the finish's answer came, measured from that answer. A frame read
    between the finish's commit and its answer would hold it sooner, so the figure errs long. When no
    frame was read after the answer (no later change), the first read after the finish was sent, from
    then. Also how many (finish, socket) pairs had no frame read after the finish was sent at all."""
    delays: list[float] = []
    missed = 0
    for listener in listeners:
        read_times = [at for _, at in listener.frames]
        for sent, answered in finishes:
            if sent < listener.opened:
                continue
            place = bisect.bisect_left(read_times, answered)
            if place < len(read_times):
                delays.append(listener.frames[place][0] - answered)
                continue
            place = bisect.bisect_left(read_times, sent)
            if place < len(read_times):
                delays.append(listener.frames[place][0] - sent)
            else:
                missed += 1
    return delays, missed


def most_frames_in_a_second(listeners: Sequence[Listener], *, by_server_clock: bool) -> int:
    """The most standings frames one socket got within any one second: by when they arrived here, or by
    when the server read them (`at`), which the client's own delays cannot bunch together."""
    most = 0
    for listener in listeners:
        times = [at if by_server_clock else received for received, at in listener.frames]
        start = 0
        for end, moment in enumerate(times):
            while moment - times[start] >= 1.0:
                start += 1
            most = max(most, end - start + 1)
    return most


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=bounded(int, 1, 5000), default=1000)
    parser.add_argument("--spectators", type=bounded(int, 0, 5000), default=1000)
    parser.add_argument("--rate", type=bounded(float, 0.05, 10), default=1.0, help="moves a second per participant")
    parser.add_argument("--duration", type=bounded(float, 5, 3600), default=60.0, help="seconds of play")
    add_cluster_options(parser, database="bench_arena", redis="redis://127.0.0.1:6379/3")
    args = parser.parse_args()
    allow_open_files(2 * (2 * args.participants + args.spectators) + 256)
    extra = {"SOCKETS_PER_ADDRESS": "1000000", "API_VISITOR_RATE": "1000000/minute", "FAIR_PLAY_REVIEW_RISK": "101"}
    with bench_cluster(args, name="arena", extra_env=extra) as daphnes:
        participants, listeners, tally = asyncio.run(run(args, daphnes))
        server_log = [line for daphne in daphnes for line in log_problems(daphne)]
    acks = [delay for participant in participants for delay in participant.acked]
    delays, missed = standings_delays(listeners, tally.finishes)
    ordered = sorted(delays)
    rows = [
        (
            "run",
            f"{args.participants} participants at {args.rate:g} moves/s, {args.spectators} spectators, "
            f"{args.daphnes} Daphne processes, {args.duration:g} s",
        ),
        ("move ack", spread_ms(acks)),
        ("finished game → standings", spread_ms(delays, of="(finish, socket) pairs")),
        ("finish → standings p99", f"{percentile(ordered, 0.99):.2f} s" if ordered else "none measured"),
        ("games finished", str(len(tally.finishes))),
        (
            "standings frames / socket / s",
            f"at most {most_frames_in_a_second(listeners, by_server_clock=True)} by the server's clock, "
            f"{most_frames_in_a_second(listeners, by_server_clock=False)} by arrival here",
        ),
        (
            "loss",
            f"{tally.moves_unacked} of {tally.moves_sent} moves unacknowledged; {missed} (finish, socket) pairs "
            f"never in a standings frame; {tally.next_late} next games not pushed",
        ),
    ]
    if tally.errors:
        rows.append(("errors and notes", ", ".join(f"{what}: {count}" for what, count in tally.errors.items())))
    print_report(rows, stopped=Counter(), server_log=server_log)


if __name__ == "__main__":
    run_bench(main)
