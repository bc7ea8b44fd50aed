"""An arena under load: P participants play at R moves a second while S spectators follow the standings.

    .venv/bin/python bench/arena.py [--participants 1000] [--spectators 1000] [--rate 1] [--duration 60]
                                    [--warmup 10] [--arena-seed HEX|random] [--daphnes 2]

Needs PostgreSQL and Redis on loopback (see docs/performance.md). The script starts its own cluster
(bench/cluster.py: a fresh database, migrated, --daphnes Daphne processes with production settings) and
stops it at the end. It creates one arena, and each participant (a visitor) joins it over HTTP (not
measured), opens the arena socket on one process and its game's socket on the next, and plays a random
legal move every 1/R seconds, open loop. A participant with no legal move left finishes its game over
HTTP (POST /api/games/<id>/finish); a win finishes it by itself. Either way the arena socket pushes the
next game (`next`), whose socket the participant opens to play on. Spectators (visitors without a
session) open the arena socket only, spread over the processes.

The arena's deals come from --arena-seed, written over the seed the server drew before anyone joins, and
each participant's moves from its own number: every run plays the same games, which end at about the same
moments, so runs with different settings compare (six runs on one machine finished 206-221 games on the
default seed, 43-290 on the server's own, `--arena-seed random`).

The first --warmup seconds of play, while every participant's first game socket opens at once (as at an
arena's start), are played but not measured; their ack p99 is printed on its own row. This one client
carries every socket, so it keeps its own pauses out of the figures: once its sockets are open it
freezes what it made and collects garbage less often (a full collection over 3,000 sockets held its loop
for 200-250 ms), and when time is up the game sockets stay open until every participant has stopped (one
participant's closing would hold up another's last acks).

Printed: the move ack p99 (move sent → its ack), over the window and for each 5 s of it; finished
game → standings p99, over the sockets whose view the finish changes (a socket is sent standings only
when what it shows changed): the finisher's own arena socket, and every arena socket open then when the
finisher is in the top ten afterwards; from the finish's answer (when its player learns the game is
over) to the first standings frame that shows it (the finisher's row counts the game), 0 when that
frame came first; the most standings frames one socket got within any one second by the server's clock
(`at`, when it read the standings); the loss: moves never acknowledged (those its game's finish stored
before their ack are counted apart: stored, not lost), finishes that a socket never saw in its
standings, next games never pushed, sockets closed by the server; the Daphne processes' CPU seconds
per move; the cores busy in each 5 s (the machine's, and of them the Daphne processes',
PostgreSQL's and this client's: where the machine runs out, the ack p99 of those seconds climbs); and
each of the four targets (ack p99 under 100 ms, finish → standings p99 within 1.5 s, at most one
standings frame a second, no loss), met or not. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import gc
import hashlib
import http.client
import json
import math
import os
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
    database_cpu_seconds,
    database_url,
    log_problems,
    machine_busy_seconds,
    process_cpu_seconds,
    run_bench,
)
from bench.load import open_socket, percentile, print_report, spread_ms  # noqa: E402
from games.engine import Position, apply_move, legal_moves  # noqa: E402
from games.engine.deals import SEED_SHAPE, seed_commitment  # noqa: E402

HTTP_TIMEOUT_S = 60.0
SETUP_THREADS = 8
SOCKETS_OPENING_AT_ONCE = 32
# A next game not pushed this long after a finish is asked for over HTTP (and counted as lost).
NEXT_TIMEOUT_S = 10.0
# The client's garbage collection once its sockets are open (CPython's own: 700, 10, 10).
CLIENT_GC_THRESHOLDS = (50_000, 20, 100)
# After the last move, the run waits this long for the last acks and standings.
SETTLE_S = 5.0
# The ack p99 is also printed for each PERIOD_S seconds of the measured window.
PERIOD_S = 5.0
# The rows every socket's standings show (arenas.selectors.TOP).
TOP = 10
# How a standings frame begins (arenas.protocol.standings).
STANDINGS_FRAME = '{"t": "standings"'
# The deals' seed every run plays unless told otherwise (--arena-seed).
DEFAULT_ARENA_SEED = hashlib.sha256(b"bench/arena.py").hexdigest()
# How long the server may take to certify the arena's first deal ahead, from the seed it drew.
FIRST_DEAL_TIMEOUT_S = 60.0
# The targets (issue "Arenas and TV"): move ack p99, finish → standings p99, standings frames a second.
ACK_P99_TARGET_S = 0.1
STANDINGS_P99_TARGET_S = 1.5
FRAMES_A_SECOND_TARGET = 1


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
    finished: int = 0  # games it finished
    sent: dict[int, float] = field(default_factory=dict)  # move n → when it was sent
    acked: list[tuple[float, float]] = field(default_factory=list)  # (sent, delay) after the warm-up
    next_waiting: asyncio.Event = field(default_factory=asyncio.Event)
    next_game: dict[str, Any] | None = None


@dataclass(slots=True)
class Listener:
    """An arena socket's standings frames, as received (when, and the text: parsed after the run, so that
    parsing two thousand frames a second does not hold up the client's loop and the acks it times), then
    parsed: (when received, the server's `at`, the rank of the socket's own row or None for a spectator,
    the games counted of each player the frame shows); and the socket's own player, from its own row."""

    opened: float = 0.0
    received: list[tuple[float, str]] = field(default_factory=list)
    frames: list[tuple[float, float, int | None, dict[int, int]]] = field(default_factory=list)
    player: int | None = None

    def parse(self) -> None:
        for received, text in self.received:
            message = json.loads(text)
            me = message["me"]
            shown = {row["player"]: row["games"] for row in message["standings"]}
            if me:
                shown[me["player"]] = me["games"]
                self.player = me["player"]
            self.frames.append((received, message["at"], me["rank"] if me else None, shown))


@dataclass(frozen=True, slots=True)
class Finish:
    participant: int  # its index
    games: int  # the games the player has finished with this one
    sent: float  # wall clock
    answered: float


@dataclass(slots=True)
class Tally:
    window_at: float  # the end of the warm-up (perf_counter)
    errors: Counter[str] = field(default_factory=Counter)
    finishes: list[Finish] = field(default_factory=list)
    closing: bool = False
    moves_sent: int = 0
    moves_measured: int = 0  # sent after the warm-up
    moves_unacked: int = 0
    moves_stored_by_finish: int = 0  # unacked when their game's POST /finish stored them with its line
    warmup_acked: list[float] = field(default_factory=list)
    open_at_end: list[ClientConnection] = field(default_factory=list)  # game sockets time ran out on
    next_late: int = 0
    send_lag: list[float] = field(default_factory=list)  # how late each move left against its schedule


def seed_arena(url: str, code: str, seed: str) -> None:
    """Give the arena `code`, which nobody has joined yet, the deals of `seed`: once the server has
    certified its first deal ahead from the seed it drew (a background task that would otherwise store
    that deal after this), replace the seed and its commitment and drop the deals derived from the old one."""
    import psycopg

    with psycopg.connect(url, connect_timeout=5) as connection:
        row = connection.execute("SELECT id FROM arenas_arena WHERE code = %s", [code]).fetchone()
        if row is None:
            raise ClusterError(f"no arena {code} in the database")
        arena_id = row[0]
        deadline = time.monotonic() + FIRST_DEAL_TIMEOUT_S
        while not connection.execute("SELECT 1 FROM arenas_arenadeal WHERE arena_id = %s", [arena_id]).fetchone():
            connection.rollback()  # a fresh snapshot for the next look
            if time.monotonic() > deadline:
                raise ClusterError(
                    f"the arena's first deal was not certified ahead within {FIRST_DEAL_TIMEOUT_S:g} s "
                    "(ARENA_DEALS_AHEAD off? then --arena-seed random)"
                )
            time.sleep(0.1)
        connection.execute(
            "UPDATE arenas_arena SET seed = %s, commitment = %s WHERE id = %s", [seed, seed_commitment(seed), arena_id]
        )
        connection.execute("DELETE FROM arenas_arenadeal WHERE arena_id = %s", [arena_id])


def arena_seed(text: str) -> str | None:
    """--arena-seed: 64 lower-case hex digits, or `random` (None) for the seed the server drew."""
    if text == "random":
        return None
    if not SEED_SHAPE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r}: 64 lower-case hex digits, or random")
    return text


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
            if isinstance(text, str) and text.startswith(STANDINGS_FRAME):
                listener.received.append((time.time(), text))
                continue
            message = json.loads(text)
            kind = message.get("t")
            if kind == "next" and participant is not None:
                participant.next_game = message["game"]
                participant.next_waiting.set()
            elif kind in ("refused", "reject"):
                tally.errors[f"arena socket {kind} ({message.get('code')})"] += 1
    except ConnectionClosed:
        pass
    if not tally.closing:
        tally.errors[f"arena socket closed by the server ({socket.close_code})"] += 1


def note_finish(participant: Participant, tally: Tally, sent: float) -> None:
    participant.finished += 1
    tally.finishes.append(Finish(participant.index, participant.finished, sent, time.time()))


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
    refused_as_finished = 0  # moves the socket answered `game_finished`
    stored_by_finish = False  # POST /finish stored the whole line, moves still on the socket's way included

    async def read() -> None:
        nonlocal refused_as_finished
        try:
            async for text in socket:
                message = json.loads(text)
                if message.get("t") in ("ack", "reject") and message.get("n") in acks:
                    future = acks.pop(message["n"])
                    if not future.done():
                        future.set_result(message)
                    if message["t"] == "ack":
                        sent = participant.sent.pop(message["n"])
                        if sent >= tally.window_at:
                            participant.acked.append((sent, time.perf_counter() - sent))
                        else:
                            tally.warmup_acked.append(time.perf_counter() - sent)
                    elif message.get("code") == "game_finished":
                        refused_as_finished += 1  # counted once the finish has answered
                    else:
                        tally.errors[f"move rejected ({message.get('code')})"] += 1
        except ConnectionClosed:
            pass

    reader = asyncio.get_running_loop().create_task(read())
    n = 0
    due = time.perf_counter()
    try:
        while due < stop_at:  # a move due after the window is not played (as in bench/load.py)
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            tally.send_lag.append(time.perf_counter() - due)  # this client's own lag, not the server's
            due += interval
            moves = legal_moves(position)
            if not moves:
                sent = time.time()
                status, finished_game = await asyncio.to_thread(
                    participant.http.call, "POST", f"/api/games/{game['id']}/finish", {"moves": line}
                )
                if status != 200:
                    tally.errors[f"finish answered {status}"] += 1
                    return False
                stored_by_finish = finished_game.get("moves") == line
                note_finish(participant, tally, sent)
                return True
            move = rng.choice(moves)
            position = apply_move(position, move)
            line.append(list(move))
            n += 1
            participant.sent[n] = time.perf_counter()
            acks[n] = asyncio.get_running_loop().create_future()
            tally.moves_sent += 1
            tally.moves_measured += participant.sent[n] >= tally.window_at
            sent = time.time()
            await socket.send(json.dumps({"t": "move", "move": list(move), "n": n}))
            if position.won:
                answer = await asyncio.wait_for(acks[n], timeout=NEXT_TIMEOUT_S)
                if answer.get("t") == "ack":
                    note_finish(participant, tally, sent)
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
        if stored_by_finish:
            # An open-loop player finishes with moves still unanswered: the finish stored them, and the
            # socket then refuses them as moves on a finished game. Stored, so not lost; nor acked.
            tally.moves_stored_by_finish += len(participant.sent)
        else:
            tally.moves_unacked += len(participant.sent)
            if refused_as_finished:
                tally.errors["move rejected (game_finished)"] += refused_as_finished
        participant.sent.clear()
        reader.cancel()
        if time.perf_counter() < stop_at:
            await socket.close()
        else:
            tally.open_at_end.append(socket)


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


Cores = tuple[float, ...]  # busy: the machine, the Daphne processes, PostgreSQL, this client


async def cores_busy(daphnes: Sequence[Daphne], start_at: float, stop_at: float) -> list[Cores]:
    """The cores busy in each PERIOD_S seconds from `start_at` to `stop_at` (perf_counter)."""

    def reading() -> Cores:
        return (
            machine_busy_seconds()[0],
            sum(process_cpu_seconds(daphne.pid) for daphne in daphnes),
            database_cpu_seconds(),
            process_cpu_seconds(os.getpid()),
        )

    await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
    periods: list[Cores] = []
    before, began = reading(), time.perf_counter()
    while began < stop_at:
        await asyncio.sleep(max(0.0, min(began + PERIOD_S, stop_at) - time.perf_counter()))
        after, ended = reading(), time.perf_counter()
        periods.append(tuple((late - early) / (ended - began) for early, late in zip(before, after, strict=True)))
        before, began = after, ended
    return periods


def cores_by_period(periods: Sequence[Cores]) -> str:
    return "; ".join(
        f"{name} " + " ".join(f"{period[index]:.1f}" for period in periods)
        for index, name in enumerate(("machine", "Daphne", "PostgreSQL", "this client"))
    )


@dataclass(slots=True)
class Run:
    participants: list[Participant]
    listeners: list[Listener]
    own: dict[int, Listener]  # each participant's arena socket, by its index
    tally: Tally
    server_cpu_s: float  # the Daphne processes' CPU seconds over the play
    client_cpu_s: float  # this process's, over the play
    play_s: float
    cores: list[Cores]  # busy in each PERIOD_S of the measured window


async def run(args: argparse.Namespace, daphnes: Sequence[Daphne]) -> Run:
    creator = Http(daphnes[0])
    creator.visit()
    status, arena = creator.call("POST", "/api/arenas", {"minutes": 120, "starts_in": 0})
    if status != 201:
        raise ClusterError(f"creating the arena answered {status}: {str(arena)[:300]}")
    code = arena["code"]
    if args.arena_seed is not None:
        await asyncio.to_thread(seed_arena, database_url(args.postgres, args.database), code, args.arena_seed)
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=SETUP_THREADS) as pool:
        participants = await asyncio.gather(
            *(loop.run_in_executor(pool, join, index, code, daphnes) for index in range(args.participants))
        )
    print(f"{args.participants} participants joined in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    tally = Tally(window_at=float("inf"))
    limit = asyncio.Semaphore(SOCKETS_OPENING_AT_ONCE)
    listeners: list[Listener] = []
    own: dict[int, Listener] = {}
    readers: list[asyncio.Task[None]] = []
    sockets: list[ClientConnection] = []

    async def open_arena(daphne: Daphne, cookie: str | None, participant: Participant | None) -> None:
        socket = await open_socket(f"ws://127.0.0.1:{daphne.port}/ws/arenas/{code}/", daphne, cookie, limit)
        listener = Listener(opened=time.time())
        listeners.append(listener)
        if participant is not None:
            own[participant.index] = listener
        sockets.append(socket)
        readers.append(loop.create_task(listen_arena(socket, listener, tally, participant)))

    await asyncio.gather(
        *(open_arena(p.arena_daphne, p.http.cookie(), p) for p in participants),
        *(open_arena(daphnes[index % len(daphnes)], None, None) for index in range(args.spectators)),
    )
    print(f"{len(sockets)} arena sockets open; playing {args.warmup:g} + {args.duration:g} s", file=sys.stderr)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*CLIENT_GC_THRESHOLDS)
    tally.window_at = time.perf_counter() + args.warmup
    stop_at = tally.window_at + args.duration
    playing = asyncio.gather(
        *(participate(p, limit, interval=1 / args.rate, stop_at=stop_at, tally=tally) for p in participants)
    )
    sampling = loop.create_task(cores_busy(daphnes, tally.window_at, stop_at))
    await asyncio.sleep(tally.window_at - time.perf_counter())
    busy_before = machine_busy_seconds()
    cpu_before = sum(process_cpu_seconds(daphne.pid) for daphne in daphnes)
    client_before = process_cpu_seconds(os.getpid())
    play_started = time.perf_counter()
    await playing
    await asyncio.sleep(SETTLE_S)
    busy_after = machine_busy_seconds()
    server_cpu_s = sum(process_cpu_seconds(daphne.pid) for daphne in daphnes) - cpu_before
    client_cpu_s = process_cpu_seconds(os.getpid()) - client_before
    play_s = time.perf_counter() - play_started
    tally.closing = True
    for socket in [*sockets, *tally.open_at_end]:
        await socket.close()
    for reader in readers:
        reader.cancel()
    used = (busy_after[0] - busy_before[0]) / max(1e-9, busy_after[1] - busy_before[1])
    tally.errors["(machine busy over the run, %)"] = round(100 * used)
    return Run(list(participants), listeners, own, tally, server_cpu_s, client_cpu_s, play_s, await sampling)


def first_frame_holding(
    listener: Listener, finish: Finish, player: int | None, *, read_by: float = math.inf
) -> tuple[float, int | None, float] | None:
    """The first standings frame of `listener` that holds the finished game: its row counts the game, or
    (the finisher's row out of its top ten by then) the standings were read at `read_by` or later, when a
    frame that counts it was read. The delay from the finish's answer to that frame (0 if the frame came
    first), the frame's own rank and when it was read; None when no frame held it."""
    start = bisect.bisect_left(listener.frames, finish.sent, key=lambda frame: frame[0])
    for received, at, rank, shown in listener.frames[start:]:
        if at >= read_by or (player is not None and shown.get(player, 0) >= finish.games):
            return max(0.0, received - finish.answered), rank, at
    return None


def standings_delays(
    listeners: Sequence[Listener], own: dict[int, Listener], finishes: Sequence[Finish]
) -> tuple[list[float], int]:
    """For each finish and each socket whose view it changes (the finisher's own socket; every socket open
    then when the finisher is in the top ten afterwards), the delay to the first standings frame that holds
    it; and how many of those (finish, socket) pairs never got one."""
    delays: list[float] = []
    missed = 0
    for finish in finishes:
        player = own[finish.participant].player
        seen = first_frame_holding(own[finish.participant], finish, player)
        if seen is None:
            missed += 1
            continue
        delays.append(seen[0])
        rank, read_at = seen[1], seen[2]
        if rank is None or rank > TOP:
            continue
        for listener in listeners:
            if listener is own[finish.participant] or finish.sent < listener.opened:
                continue
            other = first_frame_holding(listener, finish, player, read_by=read_at)
            if other is None:
                missed += 1
            else:
                delays.append(other[0])
    return delays, missed


def most_frames_in_a_second(listeners: Sequence[Listener], *, by_server_clock: bool) -> int:
    """The most standings frames one socket got within any one second: by when they arrived here, or by
    when the server read them (`at`), which the client's own delays cannot bunch together."""
    most = 0
    for listener in listeners:
        times = [at if by_server_clock else received for received, at, _, _ in listener.frames]
        start = 0
        for end, moment in enumerate(times):
            while moment - times[start] >= 1.0:
                start += 1
            most = max(most, end - start + 1)
    return most


def ack_p99_by_period(participants: Sequence[Participant], window_at: float, period: float) -> str:
    """The ack p99 of the moves sent in each `period` seconds of the measured window, in order: where the
    run's tail comes from (the games' finishes bunch up as the run goes on)."""
    periods: dict[int, list[float]] = {}
    for participant in participants:
        for sent, delay in participant.acked:
            periods.setdefault(int((sent - window_at) // period), []).append(delay)
    return " ".join(f"{1000 * percentile(sorted(periods[index]), 0.99):.0f}" for index in sorted(periods)) + " ms"


def target(met: bool, figure: str) -> str:
    return f"{'met' if met else 'NOT MET'}: {figure}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=bounded(int, 1, 5000), default=1000)
    parser.add_argument("--spectators", type=bounded(int, 0, 5000), default=1000)
    parser.add_argument("--rate", type=bounded(float, 0.05, 10), default=1.0, help="moves a second per participant")
    parser.add_argument("--duration", type=bounded(float, 5, 3600), default=60.0, help="seconds of play measured")
    parser.add_argument("--warmup", type=bounded(float, 0, 600), default=10.0, help="seconds played before measuring")
    parser.add_argument(
        "--arena-seed",
        type=arena_seed,
        default=DEFAULT_ARENA_SEED,
        help="the deals' seed, 64 hex digits (default: one fixed seed), or random for the server's own",
    )
    add_cluster_options(parser, database="bench_arena", redis="redis://127.0.0.1:6379/3")
    args = parser.parse_args()
    allow_open_files(2 * (2 * args.participants + args.spectators) + 256)
    extra = {"SOCKETS_PER_ADDRESS": "1000000", "API_VISITOR_RATE": "1000000/minute", "FAIR_PLAY_REVIEW_RISK": "101"}
    with bench_cluster(args, name="arena", extra_env=extra) as daphnes:
        done = asyncio.run(run(args, daphnes))
        server_log = [line for daphne in daphnes for line in log_problems(daphne)]
    tally, listeners = done.tally, done.listeners
    for listener in listeners:
        listener.parse()
    acks = sorted(delay for participant in done.participants for _, delay in participant.acked)
    delays, missed = standings_delays(listeners, done.own, tally.finishes)
    ordered = sorted(delays)
    ack_p99 = percentile(acks, 0.99) if acks else float("inf")
    standings_p99 = percentile(ordered, 0.99) if ordered else float("inf")
    most_frames = most_frames_in_a_second(listeners, by_server_clock=True)
    lost = (
        tally.moves_unacked
        + missed
        + tally.next_late
        + sum(count for what, count in tally.errors.items() if "closed by the server" in what)
    )
    rows = [
        (
            "run",
            f"{args.participants} participants at {args.rate:g} moves/s, {args.spectators} spectators, "
            f"{args.daphnes} Daphne processes, {args.duration:g} s measured after {args.warmup:g} s of warm-up",
        ),
        ("move ack", spread_ms(acks)),
        ("move ack p99, each 5 s", ack_p99_by_period(done.participants, tally.window_at, PERIOD_S)),
        ("move ack in the warm-up", spread_ms(tally.warmup_acked)),
        ("cores busy, each 5 s", cores_by_period(done.cores)),
        ("finished game → standings", spread_ms(delays, of="(finish, socket) pairs")),
        ("games finished", str(len(tally.finishes))),
        (
            "standings frames / socket / s",
            f"at most {most_frames} by the server's clock, "
            f"{most_frames_in_a_second(listeners, by_server_clock=False)} by arrival here",
        ),
        (
            "server CPU",
            f"{done.server_cpu_s:.1f} s in the Daphne processes, "
            f"{1000 * done.server_cpu_s / max(1, tally.moves_measured):.2f} ms a move (finishes, standings included)",
        ),
        (
            "client CPU",
            f"{100 * done.client_cpu_s / done.play_s:.0f} % of one core (this process, every socket's "
            f"client); moves sent late by p99 {1000 * percentile(sorted(tally.send_lag or [0.0]), 0.99):.1f} ms",
        ),
        (
            "loss",
            f"{tally.moves_unacked} of {tally.moves_sent} moves unacknowledged ({tally.moves_stored_by_finish} more "
            f"stored by their game's finish before their ack); {missed} (finish, socket) pairs never in a standings "
            f"frame; {tally.next_late} next games not pushed",
        ),
    ]
    if tally.errors:
        rows.append(("errors and notes", ", ".join(f"{what}: {count}" for what, count in tally.errors.items())))
    rows += [
        ("target: move ack p99 < 100 ms", target(ack_p99 < ACK_P99_TARGET_S, f"{1000 * ack_p99:.1f} ms")),
        (
            "target: finish → standings p99 ≤ 1.5 s",
            target(standings_p99 <= STANDINGS_P99_TARGET_S, f"{standings_p99:.2f} s")
            if ordered
            else target(False, "no game finished: a longer --duration"),
        ),
        (
            "target: ≤ 1 standings frame / s",
            target(most_frames <= FRAMES_A_SECOND_TARGET, f"at most {most_frames} by the server's clock"),
        ),
        ("target: no loss", target(lost == 0, f"{lost} lost (moves, standings, next games, sockets)")),
    ]
    print_report(rows, stopped=Counter(), server_log=server_log)


if __name__ == "__main__":
    run_bench(main)
