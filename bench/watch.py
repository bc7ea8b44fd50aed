"""Watching at scale: many watchers following games move by move, through the whole production stack,
and the same fan-out through a plain `websockets` broadcast server as the reference.

    .venv/bin/python bench/watch.py [--daphnes 2] [--steady 10] [--burst 10] [--scenarios one,many] [--seed 1]
                                    [--deal CODE]

Needs PostgreSQL and Redis on loopback (docs/performance.md). The script starts its own cluster
(bench/cluster.py: a fresh database and --daphnes Daphne processes with production settings) and a
reference server (this script with --reference-server, in a process of its own), and stops both at
the end. Two scenarios:

- one: one game with 1,000 watchers;
- many: 100 games with 10 watchers each.

In each, every game's player plays random legal moves (an undo when none is left) over the player's
socket, open loop, first at --steady-rate moves a second per game, then in bursts of --burst-rate
moves a second: in the one-game scenario the whole burst phase, in the many-game one each game in
turn for one second out of five (so that the database sees the same moves a second as in the steady
phase, but each watcher's game moves ten times a second while it bursts). Watchers are spread evenly
over the Daphne processes, the players over them too.

Measured per phase: the latency from a move being accepted (the event's `at`, the server's clock when
it accepted the move) to each watcher receiving it (p50, p99, max over every delivery); loss (an
event some watcher never received) and duplicates; frames per delivered event (every frame a watcher
gets, counts and badges included) and each still-winnable badge's delay after its event reached the
watcher (0 when it rode in the event's frame); server CPU per delivered event (all the Daphne
processes' CPU over the phase, divided by the events delivered to watchers); memory per watcher (the
growth of the processes' resident memory while the watchers connected). The reference server
relays the same number of moves to the same number of watchers with `websockets.broadcast`; the
ratio of the two CPU figures is printed. Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import logging
import os
import random
import resource
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
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
    free_port,
    log_problems,
    process_cpu_seconds,
    process_rss_bytes,
    run_bench,
)
from bench.load import percentile, start_player  # noqa: E402
from games.engine import Position, apply_move, legal_moves  # noqa: E402

SOCKETS_OPENING_AT_ONCE = 32
# Watchers each process serves, and closes, before its memory is sampled.
WARM_WATCHERS = 64
OPEN_TIMEOUT_S = 60.0
SETUP_THREADS = 8
# After the last move of a phase, how long deliveries still count (a later one is counted as lost).
DRAIN_S = 3.0
# In the many-game burst phase each game bursts one second in every BURST_CYCLE_S.
BURST_CYCLE_S = 5.0
clock = time.time  # wall clock: the event's `at` comes from the server's wall clock on this machine


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    games: int
    watchers_per_game: int


SCENARIOS = {"one": Scenario("one", 1, 1000), "many": Scenario("many", 100, 10)}


@dataclass(slots=True)
class Heard:
    """What one watcher received: when each version arrived, and how many arrived twice."""

    at: dict[int, float] = field(default_factory=dict)
    duplicates: int = 0
    frames: int = 0  # every frame, whatever it carries (events, counts, badges)
    badges: list[float] = field(default_factory=list)  # each badge's delay after its version's event
    kinds: Counter[str] = field(default_factory=Counter)  # every message by type, over the whole run
    close_code: int | None = None  # set when the server closed the socket
    refusal: str | None = None  # the `refused` message's code and reason


@dataclass(slots=True)
class Watched:
    """One game on the stage: its player's socket and line, its watchers, and the versions accepted."""

    game_id: int
    deal: list[str]
    version: int
    player: ClientConnection | None = None
    line: list[Position] = field(default_factory=list)
    sent: int = 0
    # version → (phase, the server's time it was accepted), filled in from the acks' versions and the
    # events' `at` as watchers hear them
    accepted: dict[int, str] = field(default_factory=dict)
    accepted_at: dict[int, float] = field(default_factory=dict)
    heard: list[Heard] = field(default_factory=list)
    stopped: str | None = None


@dataclass(frozen=True, slots=True)
class PhaseFigures:
    name: str
    seconds: float
    moves: int
    deliveries: int
    frames: int
    latencies: list[float]
    badges: list[float]
    lost: int
    duplicates: int
    server_cpu_s: float
    client_cpu_s: float


def client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_time(text: str) -> float:
    return datetime.datetime.fromisoformat(text).timestamp()


# --- the schedule of moves ---------------------------------------------------------------------------


def move_times(*, games: int, rate: float, start: float, seconds: float, bursting: bool) -> list[list[float]]:
    """When each game moves during a phase: steadily at `rate`, spread over the first interval; or, in
    bursts, one second at `rate` in every BURST_CYCLE_S, games taking turns (one game: all the time)."""
    times: list[list[float]] = []
    for index in range(games):
        offset = index / games
        if bursting and games > 1:
            burst_at = start + BURST_CYCLE_S * offset
            game_times = []
            while burst_at < start + seconds:
                game_times.extend(burst_at + step / rate for step in range(int(rate)))
                burst_at += BURST_CYCLE_S
            times.append([moment for moment in game_times if moment < start + seconds])
        else:
            count = int(seconds * rate)
            times.append([start + (offset + step) / rate for step in range(count)])
    return times


# --- our stack ---------------------------------------------------------------------------------------


async def open_socket(url: str, *, origin: str, cookie: str | None, limit: asyncio.Semaphore) -> ClientConnection:
    async with limit:
        return await connect(
            url,
            origin=Origin(origin),
            additional_headers={"Cookie": cookie} if cookie else None,
            compression=None,
            open_timeout=OPEN_TIMEOUT_S,
            close_timeout=5,
            max_queue=None,
        )


def note_event(game: Watched, heard: Heard, event: dict[str, Any], received: float) -> None:
    v = event.get("v")
    if not isinstance(v, int):
        return
    if v in heard.at:
        heard.duplicates += 1
        return
    heard.at[v] = received
    if v not in game.accepted_at and isinstance(event.get("at"), str):
        game.accepted_at[v] = server_time(event["at"])


def note_message(game: Watched, heard: Heard, message: dict[str, Any], received: float) -> None:
    kind = message.get("t")
    heard.kinds[kind] += 1
    if kind == "refused":
        heard.refusal = f"{message.get('code')}: {message.get('error')}"
    elif kind == "event":
        note_event(game, heard, message, received)
    elif kind == "events":
        for event in message["events"]:
            note_event(game, heard, event, received)
    elif kind == "winnable" and message.get("v") in heard.at:
        heard.badges.append(received - heard.at[message["v"]])


async def listen_watcher(game: Watched, socket: ClientConnection, heard: Heard) -> None:
    try:
        async for text in socket:
            received = clock()
            heard.frames += 1
            message = json.loads(text)
            for one in [message, *message.get("also", ())]:
                note_message(game, heard, one, received)
    except ConnectionClosed:
        pass
    heard.close_code = socket.close_code


async def listen_player(game: Watched, socket: ClientConnection, phase: list[str]) -> None:
    with contextlib.suppress(ConnectionClosed):
        async for text in socket:
            message = json.loads(text)
            if message.get("t") == "ack":
                game.accepted[message["v"]] = phase[0]
            elif message.get("t") == "reject":
                game.stopped = f"a move was rejected ({message.get('code')})"


async def play(game: Watched, times: Sequence[float], rng: random.Random) -> None:
    """The player: a random legal move at each of `times`, an undo when none is left; open loop."""
    assert game.player is not None
    for due in times:
        await asyncio.sleep(max(0.0, due - clock()))
        position = game.line[-1]
        if game.stopped or position.won:
            return
        moves = legal_moves(position)
        game.sent += 1
        if moves:
            move = rng.choice(moves)
            game.line.append(apply_move(position, move))
            message: dict[str, Any] = {"t": "move", "move": list(move), "n": game.sent}
        elif len(game.line) > 1:
            game.line.pop()
            message = {"t": "undo", "n": game.sent}
        else:
            game.stopped = "no legal move at the deal"
            return
        try:
            await game.player.send(json.dumps(message))
        except ConnectionClosed:
            game.stopped = "the player's socket closed"
            return


def pids_of(daphnes: Sequence[Daphne]) -> list[int]:
    return [daphne.pid for daphne in daphnes]


def cpu_of(pids: Sequence[int]) -> float:
    return sum(process_cpu_seconds(pid) for pid in pids)


async def run_phase(
    name: str,
    games: Sequence[Watched],
    *,
    rate: float,
    seconds: float,
    bursting: bool,
    pids: Sequence[int],
    phase: list[str],
    seed: int,
) -> PhaseFigures:
    phase[0] = name
    start = clock() + 0.5
    schedule = move_times(games=len(games), rate=rate, start=start, seconds=seconds, bursting=bursting)
    cpu_before, client_before = cpu_of(pids), client_cpu()
    began = time.monotonic()
    players = [
        asyncio.create_task(play(game, times, random.Random(seed * 1000 + index)))
        for index, (game, times) in enumerate(zip(games, schedule, strict=True))
    ]
    await asyncio.gather(*players)
    await asyncio.sleep(DRAIN_S)
    return tally(name, games, time.monotonic() - began, cpu_of(pids) - cpu_before, client_cpu() - client_before)


@dataclass(frozen=True, slots=True)
class StackFigures:
    watchers: int
    memory_per_watcher: float
    phases: list[PhaseFigures]
    stopped: Counter[str]
    welcome: Counter[str]  # how the watchers' sockets began: with the game's state, refused, closed
    cpu_per_move_alone: float | None  # server CPU per move with nobody watching (None: no such phase)


def welcomes(games: Sequence[Watched]) -> Counter[str]:
    found: Counter[str] = Counter()
    for game in games:
        for heard in game.heard:
            if heard.refusal is not None:
                found[f"refused ({heard.refusal})"] += 1
            elif heard.close_code is not None:
                found[f"closed by the server ({heard.close_code})"] += 1
            elif heard.kinds["state"]:
                found["got the game"] += 1
            else:
                found["heard nothing"] += 1
    return found


async def run_ours(args: argparse.Namespace, scenario: Scenario, daphnes: Sequence[Daphne]) -> StackFigures:
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(max_workers=SETUP_THREADS) as pool:
        players = await asyncio.gather(
            *(
                loop.run_in_executor(
                    pool, start_player, daphnes[i % len(daphnes)], daphnes[(i + 1) % len(daphnes)], args.deal
                )
                for i in range(scenario.games)
            )
        )
    limit = asyncio.Semaphore(SOCKETS_OPENING_AT_ONCE)
    games = [Watched(game_id=p.game_id, deal=p.deal, version=p.version) for p in players]
    phase = ["setup"]
    listeners = []
    for player, game in zip(players, games, strict=True):
        url = f"ws://127.0.0.1:{player.home.port}/ws/games/{game.game_id}/?v={game.version}"
        game.player = await open_socket(url, origin=player.home.origin, cookie=player.cookie, limit=limit)
        game.line = [Position.from_deal(game.deal)]
        listeners.append(asyncio.create_task(listen_player(game, game.player, phase)))

    # The same moves with nobody watching: what the moves themselves cost the server.
    alone = await run_phase(
        "alone",
        games,
        rate=args.steady_rate,
        seconds=args.steady,
        bursting=False,
        pids=pids_of(daphnes),
        phase=phase,
        seed=args.seed,
    )

    # A process's first watchers load the watching code and fill its thread and connection pools: a
    # one-off cost, not a per-watcher one, so a few come and go before memory is sampled.
    warm = await asyncio.gather(
        *(
            open_socket(
                f"ws://127.0.0.1:{daphne.port}/ws/watch/{games[0].game_id}/",
                origin=daphne.origin,
                cookie=None,
                limit=limit,
            )
            for daphne in daphnes
            for _ in range(WARM_WATCHERS)
        )
    )
    await asyncio.gather(*(socket.close() for socket in warm))
    await asyncio.sleep(1.0)
    pids = [daphne.pid for daphne in daphnes]
    rss_before = sum(process_rss_bytes(pid) for pid in pids)

    unopened: Counter[str] = Counter()

    async def watch(game: Watched, index: int) -> tuple[Watched, ClientConnection] | None:
        daphne = daphnes[index % len(daphnes)]
        url = f"ws://127.0.0.1:{daphne.port}/ws/watch/{game.game_id}/"
        try:
            return game, await open_socket(url, origin=daphne.origin, cookie=None, limit=limit)
        except (OSError, TimeoutError, InvalidHandshake) as error:
            unopened[f"could not connect ({type(error).__name__}: {error})"] += 1
            return None

    opened = await asyncio.gather(
        *(watch(game, g + w) for g, game in enumerate(games) for w in range(scenario.watchers_per_game))
    )
    watchers = [found for found in opened if found is not None]
    watcher_sockets = [socket for _, socket in watchers]
    await asyncio.sleep(2.0)  # the counts settle; the sockets' first frames are read
    rss_after = sum(process_rss_bytes(pid) for pid in pids)
    for game, watcher in watchers:
        heard = Heard()
        game.heard.append(heard)
        listeners.append(asyncio.create_task(listen_watcher(game, watcher, heard)))

    await run_phase(
        "warm-up",
        games,
        rate=args.steady_rate,
        seconds=args.warmup,
        bursting=False,
        pids=pids,
        phase=phase,
        seed=args.seed,
    )
    phases = [
        await run_phase(
            "steady",
            games,
            rate=args.steady_rate,
            seconds=args.steady,
            bursting=False,
            pids=pids,
            phase=phase,
            seed=args.seed + 1,
        ),
        await run_phase(
            "burst",
            games,
            rate=args.burst_rate,
            seconds=args.burst,
            bursting=True,
            pids=pids,
            phase=phase,
            seed=args.seed + 2,
        ),
    ]
    welcome = welcomes(games) + unopened
    await asyncio.gather(
        *(socket.close() for socket in watcher_sockets), *(g.player.close() for g in games if g.player)
    )
    await asyncio.gather(*listeners)
    return StackFigures(
        watchers=len(watcher_sockets),
        memory_per_watcher=(rss_after - rss_before) / max(len(watcher_sockets), 1),
        phases=phases,
        stopped=Counter(game.stopped for game in games if game.stopped),
        welcome=welcome,
        cpu_per_move_alone=alone.server_cpu_s / max(alone.moves, 1),
    )


# --- the reference: a plain websockets broadcast server ----------------------------------------------


async def serve_reference(port: int) -> None:
    """/watch/<game>: a watcher; /play/<game>: a player whose every message goes to the game's watchers
    through websockets.broadcast, as it is."""
    from websockets.asyncio.server import ServerConnection, broadcast, serve

    rooms: dict[str, set[ServerConnection]] = {}

    async def handler(socket: ServerConnection) -> None:
        assert socket.request is not None
        _, kind, game = socket.request.path.split("/", 2)
        room = rooms.setdefault(game, set())
        if kind == "watch":
            room.add(socket)
            try:
                await socket.wait_closed()
            finally:
                room.discard(socket)
        else:
            async for message in socket:
                broadcast(room, message)

    quiet = logging.getLogger("bench.reference")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False  # the launcher's readiness probe is not a handshake: nothing worth a log line
    async with serve(handler, "127.0.0.1", port, compression=None, max_queue=None, logger=quiet):
        await asyncio.get_running_loop().create_future()


@contextlib.contextmanager
def reference_server() -> Any:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "--reference-server", str(port)], cwd=ROOT, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise ClusterError("the reference websockets server did not start") from None
                time.sleep(0.1)
        yield port, server.pid
    finally:
        server.terminate()
        server.wait(timeout=10)


async def reference_play(game: Watched, times: Sequence[float], phase: str) -> None:
    """Relay one event a move to the reference server, stamped with its `at` and version."""
    assert game.player is not None
    for due in times:
        await asyncio.sleep(max(0.0, due - clock()))
        game.version += 1
        at = clock()
        game.accepted[game.version] = phase
        game.accepted_at[game.version] = at
        event = {
            "t": "event",
            "game": game.game_id,
            "v": game.version,
            "kind": "move",
            "move": [1, 0],
            "piles": 51,
            "at": datetime.datetime.fromtimestamp(at, datetime.UTC).isoformat(),
            "line": None,
            "result": None,
        }
        await game.player.send(json.dumps(event))


async def run_reference(args: argparse.Namespace, scenario: Scenario, port: int, pid: int) -> StackFigures:
    limit = asyncio.Semaphore(SOCKETS_OPENING_AT_ONCE)
    origin = f"http://127.0.0.1:{port}"
    games = [Watched(game_id=index, deal=[], version=0) for index in range(scenario.games)]
    for game in games:
        game.player = await open_socket(
            f"ws://127.0.0.1:{port}/play/{game.game_id}", origin=origin, cookie=None, limit=limit
        )
    rss_before = process_rss_bytes(pid)
    sockets = await asyncio.gather(
        *(
            open_socket(f"ws://127.0.0.1:{port}/watch/{game.game_id}", origin=origin, cookie=None, limit=limit)
            for game in games
            for _ in range(scenario.watchers_per_game)
        )
    )
    await asyncio.sleep(2.0)
    rss_after = process_rss_bytes(pid)
    listeners = []
    for index, watcher in enumerate(sockets):
        game = games[index // scenario.watchers_per_game]
        heard = Heard()
        game.heard.append(heard)
        listeners.append(asyncio.create_task(listen_watcher(game, watcher, heard)))

    async def phase(name: str, rate: float, seconds: float, bursting: bool) -> PhaseFigures:
        start = clock() + 0.5
        schedule = move_times(games=len(games), rate=rate, start=start, seconds=seconds, bursting=bursting)
        cpu_before, client_before = cpu_of([pid]), client_cpu()
        began = time.monotonic()
        await asyncio.gather(*(reference_play(game, times, name) for game, times in zip(games, schedule, strict=True)))
        await asyncio.sleep(DRAIN_S)
        return tally(name, games, time.monotonic() - began, cpu_of([pid]) - cpu_before, client_cpu() - client_before)

    await phase("warm-up", args.steady_rate, args.warmup, False)
    phases = [
        await phase("steady", args.steady_rate, args.steady, False),
        await phase("burst", args.burst_rate, args.burst, True),
    ]
    await asyncio.gather(*(socket.close() for socket in sockets), *(g.player.close() for g in games if g.player))
    await asyncio.gather(*listeners)
    return StackFigures(len(sockets), (rss_after - rss_before) / len(sockets), phases, Counter(), Counter(), None)


def tally(
    name: str, games: Sequence[Watched], seconds: float, server_cpu_s: float, client_cpu_s: float
) -> PhaseFigures:
    latencies: list[float] = []
    badges: list[float] = []
    lost = duplicates = frames = deliveries = moves = 0
    for game in games:
        versions = [v for v, accepted_in in game.accepted.items() if accepted_in == name]
        moves += len(versions)
        for heard in game.heard:
            duplicates += heard.duplicates
            frames += heard.frames
            badges += heard.badges
            heard.duplicates = heard.frames = 0
            heard.badges = []
            for v in versions:
                received = heard.at.get(v)
                accepted = game.accepted_at.get(v)
                if received is None or accepted is None:
                    lost += 1
                else:
                    deliveries += 1
                    latencies.append(received - accepted)
    return PhaseFigures(
        name, seconds, moves, deliveries, frames, latencies, badges, lost, duplicates, server_cpu_s, client_cpu_s
    )


# --- the report --------------------------------------------------------------------------------------


def spread_ms(seconds: list[float]) -> str:
    if not seconds:
        return "none measured"
    ordered = sorted(1000 * value for value in seconds)
    return f"p50 {percentile(ordered, 0.5):.1f} ms   p99 {percentile(ordered, 0.99):.1f} ms   max {ordered[-1]:.1f} ms"


def per_delivery_us(phase: PhaseFigures) -> float:
    return 1e6 * phase.server_cpu_s / max(phase.deliveries, 1)


def report(scenario: Scenario, ours: StackFigures, reference: StackFigures, args: argparse.Namespace) -> None:
    print(
        f"\n== {scenario.name}: {scenario.games} game(s) x {scenario.watchers_per_game} watchers "
        f"= {ours.watchers} watchers on {args.daphnes} Daphne processes"
    )
    alone = ours.cpu_per_move_alone or 0.0
    rows = [
        ("watchers", ", ".join(f"{how}: {count}" for how, count in ours.welcome.most_common())),
        (
            "memory per watcher",
            f"{ours.memory_per_watcher / 1024:.1f} KiB   (reference {reference.memory_per_watcher / 1024:.1f} KiB)",
        ),
        ("moves alone", f"{1000 * alone:.2f} ms of server CPU per move with nobody watching"),
    ]
    for mine, theirs in zip(ours.phases, reference.phases, strict=True):
        rate = mine.moves / mine.seconds if mine.seconds else 0
        fan_out = 1e6 * (mine.server_cpu_s - alone * mine.moves) / max(mine.deliveries, 1)
        reference_us = max(per_delivery_us(theirs), 1e-9)
        rows += [
            (
                f"{mine.name}: moves",
                f"{mine.moves} accepted ({rate:.1f}/s over {mine.seconds:.1f} s), "
                f"{mine.deliveries} events delivered in {mine.frames} frames "
                f"({mine.frames / max(mine.deliveries, 1):.2f} a delivered event)",
            ),
            (f"{mine.name}: badges", f"{len(mine.badges)} heard, after their event: {spread_ms(mine.badges)}"),
            (f"{mine.name}: latency", f"{spread_ms(mine.latencies)}   (reference {spread_ms(theirs.latencies)})"),
            (f"{mine.name}: loss", f"{mine.lost} lost, {mine.duplicates} duplicated   (reference {theirs.lost} lost)"),
            (
                f"{mine.name}: server CPU",
                f"{per_delivery_us(mine):.1f} µs per delivered event, {fan_out:.1f} µs without the moves' own cost "
                f"({100 * mine.server_cpu_s / mine.seconds:.0f} % of one core)",
            ),
            (
                f"{mine.name}: reference",
                f"{reference_us:.1f} µs per delivered event: ours is {per_delivery_us(mine) / reference_us:.1f} times "
                f"that, {fan_out / reference_us:.1f} times without the moves",
            ),
            (
                f"{mine.name}: client",
                f"{100 * mine.client_cpu_s / mine.seconds:.0f} % of one core "
                f"(reference run {100 * theirs.client_cpu_s / theirs.seconds:.0f} %), on this machine too",
            ),
        ]
    if ours.stopped:
        rows.append(("stopped early", ", ".join(f"{why}: {n}" for why, n in ours.stopped.most_common())))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


async def run_scenario(
    args: argparse.Namespace, scenario: Scenario, daphnes: Sequence[Daphne], port: int, pid: int
) -> None:
    ours = await run_ours(args, scenario, daphnes)
    reference = await run_reference(args, scenario, port, pid)
    report(scenario, ours, reference, args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--scenarios", type=lambda text: text.split(","), default=["one", "many"])
    parser.add_argument("--steady-rate", type=bounded(float, 0.1, 50), default=2.0, help="moves a second per game")
    parser.add_argument("--burst-rate", type=bounded(float, 1, 50), default=10.0, help="moves a second in a burst")
    parser.add_argument("--steady", type=bounded(float, 1, 600), default=10.0, help="seconds of steady play")
    parser.add_argument("--burst", type=bounded(float, 1, 600), default=10.0, help="seconds of bursts")
    parser.add_argument("--warmup", type=bounded(float, 0, 600), default=3.0, help="seconds played before measuring")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deal", metavar="CODE", help="play every game on this deal code (default: a new deal each)")
    add_cluster_options(parser, database="bench_watch", redis="redis://127.0.0.1:6379/4")
    args = parser.parse_args()
    if args.reference_server:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the bench stops it with SIGTERM: end quietly
        asyncio.run(serve_reference(args.reference_server))
        return
    unknown = [name for name in args.scenarios if name not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s) {unknown}: choose from {sorted(SCENARIOS)}")
    allow_open_files(4096)
    print("command  " + shlex.join([os.path.relpath(sys.executable), *sys.argv]))
    # Each scenario on fresh processes, so that one's memory and pools do not flatter the next.
    for name in args.scenarios:
        with (
            # Every simulated watcher is a visitor from the same loopback address.
            bench_cluster(args, name="watch", extra_env={"SOCKETS_PER_ADDRESS": "100000"}) as daphnes,
            reference_server() as (port, pid),
        ):
            asyncio.run(run_scenario(args, SCENARIOS[name], daphnes, port, pid))
            problems = [line for daphne in daphnes for line in log_problems(daphne)]
        if problems:
            print(f"server log: {len(problems)} warnings or errors; the first: {problems[0][:800]}")


if __name__ == "__main__":
    run_bench(main)
