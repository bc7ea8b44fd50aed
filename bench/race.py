"""Races at once: R races of K bot racers each, every racer moving 2-5 times a second on its own game
socket, and every move's progress reaching the opponents' room sockets.

    .venv/bin/python bench/race.py [--races 50] [--racers 4] [--min-rate 2] [--max-rate 5] [--duration 30]

Needs PostgreSQL and Redis on loopback (see docs/performance.md). Starts its own cluster (bench/cluster.py:
a fresh database and --daphnes Daphne processes with production settings) and stops it at the end.
Setup, not measured: each racer is a new visitor (GET / for the CSRF cookie); the host opens a room
(POST /api/races), the others join it (POST /api/races/<code>/join); the racers of a race are spread over
the processes; each opens the room socket, the others mark ready, the host starts, and at the start
signal each racer opens its game socket on the same process as its room socket. Measured: each bot
sends a random legal move (an undo when none is left) at random intervals between 1/max-rate and
1/min-rate seconds, open loop, and the time from sending a move to each opponent's room socket hearing
its `progress`. Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import shlex
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.typing import Origin

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
    run_bench,
)
from bench.load import Sample, counts, machine_rows, print_report, sample, spread_ms  # noqa: E402
from games.engine import Position, apply_move, legal_moves  # noqa: E402

# A progress later than this counts as lost; the run also waits this long after the last move.
TIMEOUT_S = 5.0
HTTP_TIMEOUT_S = 30.0
SETUP_THREADS = 8
SOCKETS_OPENING_AT_ONCE = 32
START_WAIT_S = 30.0  # the countdown (5 s) and the start signal of every race
READY_WAIT_S = 10.0  # the readies stored and the countdowns they start heard
# Daphne drops a socket its application has not accepted within 5 s (a busy machine's setup burst):
# the bot opens it again, as a browser reconnects.
SEAT_ATTEMPTS = 3
clock = time.perf_counter


class Visitor:
    """A browser's session on one Daphne process: its cookies, and JSON over HTTP with the CSRF header."""

    def __init__(self, daphne: Daphne) -> None:
        self.daphne = daphne
        self.jar: SimpleCookie = SimpleCookie()
        status, _ = self.request("GET", "/")
        if status != 200 or "csrftoken" not in self.jar:
            raise ClusterError(f"GET / answered {status} without a csrftoken cookie")

    def cookie(self) -> str:
        return "; ".join(f"{name}={morsel.value}" for name, morsel in self.jar.items())

    def request(self, method: str, path: str, body: object = None) -> tuple[int, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.daphne.port, timeout=HTTP_TIMEOUT_S)
        headers = {"Cookie": self.cookie(), "Content-Type": "application/json"}
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
        """A socket with this session's cookie, on this visitor's process or `on` another one."""
        daphne = on or self.daphne
        return await connect(
            f"ws://127.0.0.1:{daphne.port}{path}",
            origin=Origin(daphne.origin),
            additional_headers={"Cookie": self.cookie()},
            compression=None,
            open_timeout=HTTP_TIMEOUT_S,
        )


@dataclass(slots=True)
class Move:
    """One move of a racer: when it left, and when each opponent's room socket heard its progress."""

    sent: float
    acked: float | None = None  # the mover's own ack, on its game socket
    heard: dict[int, float] = field(default_factory=dict)  # opponent's racer id → when


@dataclass(slots=True)
class Racer:
    visitor: Visitor
    player: int = 0
    racer: int = 0  # the seat's id: progress names racers by it
    game: dict[str, Any] | None = None
    room_socket: ClientConnection | None = None
    game_socket: ClientConnection | None = None
    moves: dict[int, Move] = field(default_factory=dict)  # by the game version the move leads to
    stopped: str | None = None


@dataclass(slots=True)
class Race:
    code: str
    ws: str
    racers: list[Racer]
    state: str = "lobby"  # as the newest room message says


@dataclass(slots=True)
class Tally:
    errors: Counter[str] = field(default_factory=Counter)
    closing: bool = False


# --- setup (not measured) ---


def open_room(index: int, racers: int, daphnes: Sequence[Daphne]) -> Race:
    """The host opens a room, the others join; racer k of race i is on process (i + k) mod n."""
    visitors = [Visitor(daphnes[(index + k) % len(daphnes)]) for k in range(racers)]
    status, room = visitors[0].request("POST", "/api/races", {})
    if status != 201:
        raise ClusterError(f"POST /api/races answered {status}: {room}")
    for visitor in visitors[1:]:
        status, answer = visitor.request("POST", f"/api/races/{room['code']}/join", {})
        if status != 200:
            raise ClusterError(f"POST /api/races/{room['code']}/join answered {status}: {answer}")
    return Race(code=room["code"], ws=room["ws"], racers=[Racer(visitor=visitor) for visitor in visitors])


async def open_rooms(count: int, racers: int, daphnes: Sequence[Daphne]) -> list[Race]:
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(max_workers=SETUP_THREADS) as pool:
        return await asyncio.gather(
            *(loop.run_in_executor(pool, open_room, index, racers, daphnes) for index in range(count))
        )


async def first(socket: ClientConnection, kind: str) -> dict[str, Any]:
    async with asyncio.timeout(START_WAIT_S):
        while True:
            message = json.loads(await socket.recv())
            if message["t"] == kind:
                return message


async def take_seat(race: Race, racer: Racer, limit: asyncio.Semaphore) -> None:
    for attempt in range(SEAT_ATTEMPTS):
        try:
            async with limit:
                racer.room_socket = await racer.visitor.socket(race.ws)
            break
        except InvalidHandshake:
            if attempt == SEAT_ATTEMPTS - 1:
                raise
    racer.player = (await first(racer.room_socket, "welcome"))["player"]
    room = await first(racer.room_socket, "room")
    racer.racer = next(entry["racer"] for entry in room["racers"] if entry["player"] == racer.player)


# --- the race ---


def on_room_message(race: Race, racer: Racer, message: dict[str, Any], tally: Tally) -> None:
    kind = message["t"]
    if kind == "progress":
        if message["racer"] == racer.racer:
            return  # the racer's own progress: the opponents' copies are the ones measured
        mover = next((other for other in race.racers if other.racer == message["racer"]), None)
        move = mover.moves.get(message["v"]) if mover is not None else None
        if move is None:
            if message["v"] > 1:
                tally.errors["progress for a move never sent"] += 1
            return
        if racer.racer in move.heard:
            tally.errors["progress heard twice"] += 1
        move.heard.setdefault(racer.racer, clock())
    elif kind == "room":
        race.state = message["state"]
    elif kind == "start":
        racer.game = message["game"]
    elif kind == "reject":
        tally.errors[f"room rejected ({message.get('code')})"] += 1


async def listen(socket: ClientConnection, handle: Any, racer: Racer, tally: Tally) -> None:
    try:
        async for text in socket:
            handle(json.loads(text))
    except ConnectionClosed:
        pass
    if not tally.closing:
        tally.errors[f"socket closed by the server ({socket.close_code})"] += 1
        racer.stopped = "a socket closed"


def on_game_message(racer: Racer, message: dict[str, Any], tally: Tally) -> None:
    if message["t"] == "ack" and (move := racer.moves.get(message["n"])) is not None:
        move.acked = clock()  # n is the version the move leads to
    elif message["t"] == "reject":
        tally.errors[f"move rejected ({message.get('code')})"] += 1
        racer.stopped = "a move was rejected"


async def play(racer: Racer, *, first_at: float, stop_at: float, rates: tuple[float, float], seed: int) -> None:
    """Random legal moves (an undo when none is left) at intervals between 1/max and 1/min rate."""
    assert racer.game is not None and racer.game_socket is not None
    rng = random.Random(seed)
    line = [Position.from_deal(racer.game["deal"])]
    version = racer.game["version"]
    due = first_at
    while due < stop_at and racer.stopped is None:
        await asyncio.sleep(max(0.0, due - clock()))
        position = line[-1]
        if position.won:
            racer.stopped = "won its game"
            return
        options = legal_moves(position)
        if options:
            move = rng.choice(options)
            line.append(apply_move(position, move))
            message: dict[str, Any] = {"t": "move", "move": list(move)}
        elif len(line) > 1:
            line.pop()
            message = {"t": "undo"}
        else:
            racer.stopped = "had no legal move at the deal"
            return
        version += 1
        racer.moves[version] = Move(sent=clock())
        try:
            await racer.game_socket.send(json.dumps({**message, "n": version}))
        except ConnectionClosed:
            return
        due += 1 / rng.uniform(rates[0], rates[1])


@dataclass(frozen=True, slots=True)
class Results:
    window_s: float
    sockets: int
    latencies: list[float]
    acks: list[float]
    after_ack: list[float]
    expected: int
    moves_in_window: int
    errors: Counter[str]
    stopped: Counter[str]
    window_start: Sample
    window_end: Sample


async def run(args: argparse.Namespace, daphnes: Sequence[Daphne]) -> Results:
    races = await open_rooms(args.races, args.racers, daphnes)
    limit = asyncio.Semaphore(SOCKETS_OPENING_AT_ONCE)
    await asyncio.gather(*(take_seat(race, racer, limit) for race in races for racer in race.racers))
    tally = Tally()
    listeners = [
        asyncio.create_task(
            listen(
                racer.room_socket,  # type: ignore[arg-type]
                lambda message, race=race, racer=racer: on_room_message(race, racer, message, tally),
                racer,
                tally,
            )
        )
        for race in races
        for racer in race.racers
    ]
    for race in races:
        for racer in race.racers[1:]:
            await racer.room_socket.send(json.dumps({"t": "ready", "ready": True, "n": 1}))  # type: ignore[union-attr]
    # Everyone present being ready starts the countdown; the host starts a room still in the lobby after that.
    ready_by = clock() + READY_WAIT_S
    while any(race.state == "lobby" for race in races) and clock() < ready_by:
        await asyncio.sleep(0.1)
    for race in races:
        if race.state == "lobby":
            await race.racers[0].room_socket.send(json.dumps({"t": "start", "n": 1}))  # type: ignore[union-attr]
    deadline = clock() + START_WAIT_S
    while any(racer.game is None for race in races for racer in race.racers):
        if clock() > deadline:
            raise ClusterError("not every racer got its game within the start wait")
        await asyncio.sleep(0.1)

    async def open_game(racer: Racer) -> None:
        assert racer.game is not None
        async with limit:
            racer.game_socket = await racer.visitor.socket(f"{racer.game['ws']}?v={racer.game['version']}")
        listeners.append(
            asyncio.create_task(
                listen(racer.game_socket, lambda m, r=racer: on_game_message(r, m, tally), racer, tally)
            )
        )

    everyone = [racer for race in races for racer in race.racers]
    await asyncio.gather(*(open_game(racer) for racer in everyone))
    begin = clock() + 0.2
    window_at, stop_at = begin + args.warmup, begin + args.warmup + args.duration
    playing = [
        asyncio.create_task(
            play(
                racer,
                first_at=begin + rng_offset / args.max_rate,
                stop_at=stop_at,
                rates=(args.min_rate, args.max_rate),
                seed=args.seed + index,
            )
        )
        for index, (racer, rng_offset) in enumerate(
            (racer, random.Random(args.seed - index).random()) for index, racer in enumerate(everyone)
        )
    ]
    await asyncio.sleep(window_at - clock())
    window_start = sample(daphnes)
    await asyncio.sleep(stop_at - clock())
    window_end = sample(daphnes)
    await asyncio.wait(playing, timeout=TIMEOUT_S)
    for task in playing:
        task.cancel()
    await asyncio.sleep(TIMEOUT_S)  # the last moves' progress on its way

    tally.closing = True
    sockets = [socket for racer in everyone for socket in (racer.room_socket, racer.game_socket) if socket]
    await asyncio.gather(*(socket.close() for socket in sockets))
    await asyncio.gather(*listeners)

    latencies: list[float] = []
    acks: list[float] = []
    after_ack: list[float] = []
    expected = moves_in_window = 0
    for race in races:
        for racer in race.racers:
            opponents = [other.racer for other in race.racers if other is not racer]
            for move in racer.moves.values():
                if not window_at <= move.sent < stop_at:
                    continue
                moves_in_window += 1
                expected += len(opponents)
                if move.acked is not None:
                    acks.append(move.acked - move.sent)
                for opponent in opponents:
                    heard = move.heard.get(opponent)
                    if heard is not None and heard - move.sent <= TIMEOUT_S:
                        latencies.append(heard - move.sent)
                        if move.acked is not None:
                            after_ack.append(heard - move.acked)
    return Results(
        window_s=window_end.at - window_start.at,
        sockets=len(sockets),
        latencies=latencies,
        acks=acks,
        after_ack=after_ack,
        expected=expected,
        moves_in_window=moves_in_window,
        errors=tally.errors,
        stopped=Counter(racer.stopped for racer in everyone if racer.stopped is not None),
        window_start=window_start,
        window_end=window_end,
    )


# --- the report ---


def report(args: argparse.Namespace, results: Results, server_log: list[str]) -> None:
    start, end = results.window_start, results.window_end
    server_cpu_s = end.server_cpu_s - start.server_cpu_s
    client_cpu_s = end.client_cpu_s - start.client_cpu_s
    moves = max(results.moves_in_window, 1)
    lost = results.expected - len(results.latencies)
    errors = sum(results.errors.values())
    rows = [
        ("command", shlex.join([os.path.relpath(sys.executable), *sys.argv])),
        (
            "load",
            f"{args.races} races of {args.racers} racers, "
            f"moves every {1 / args.max_rate:.2f}-{1 / args.min_rate:.2f} s, "
            f"{results.sockets} sockets on {args.daphnes} Daphne processes; "
            f"{results.window_s:.1f} s measured after {args.warmup:g} s of play",
        ),
        ("moves per second", f"{results.moves_in_window / results.window_s:.1f}"),
        ("move → opponents", spread_ms(results.latencies).replace("moves", "progress messages")),
        ("move → own ack", spread_ms(results.acks)),
        ("own ack → opponents", spread_ms(results.after_ack).replace("moves", "progress messages")),
        (
            "message loss",
            f"{lost} of {results.expected} progress messages not heard within {TIMEOUT_S:g} s"
            f" ({100 * lost / max(results.expected, 1):.2f} %)",
        ),
        ("errors", f"{errors} ({counts(results.errors)})" if errors else "0"),
        (
            "server CPU",
            f"{1000 * server_cpu_s / moves:.2f} ms per move "
            f"({100 * server_cpu_s / results.window_s:.0f} % of one core, {args.daphnes} processes)",
        ),
        ("client CPU", f"{100 * client_cpu_s / results.window_s:.0f} % of one core (the bots, on the same machine)"),
        *machine_rows(start, end, per=moves, unit="move"),
    ]
    print_report(rows, stopped=results.stopped, server_log=server_log)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=bounded(int, 1, 1000), default=50)
    parser.add_argument("--racers", type=bounded(int, 2, 8), default=4)
    parser.add_argument("--min-rate", type=bounded(float, 0.1, 50), default=2.0, help="slowest moves a second")
    parser.add_argument("--max-rate", type=bounded(float, 0.1, 50), default=5.0, help="fastest moves a second")
    parser.add_argument("--duration", type=bounded(float, 1, 600), default=30.0, help="measured seconds")
    parser.add_argument("--warmup", type=bounded(float, 0, 60), default=3.0, help="seconds played before measuring")
    parser.add_argument("--seed", type=int, default=1, help="seeds the bots' moves and pace")
    add_cluster_options(parser, database="bench_race", redis="redis://127.0.0.1:6379/4")
    args = parser.parse_args()
    if args.min_rate > args.max_rate:
        parser.error("--min-rate is above --max-rate")
    allow_open_files(4 * args.races * args.racers + 256)
    # Every host is a new visitor, counted by address until it has played: all from 127.0.0.1.
    rooms = {"RACE_ROOMS_PER_MINUTE": str(10 * args.races)}
    with bench_cluster(args, name="race", extra_env=rooms) as daphnes:
        results = asyncio.run(run(args, daphnes))
        server_log = [line for daphne in daphnes for line in log_problems(daphne)]
    report(args, results, server_log)


if __name__ == "__main__":
    run_bench(main)
