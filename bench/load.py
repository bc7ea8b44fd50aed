"""Many players at once: P players each play their own game over the player's socket at R moves a second.

    .venv/bin/python bench/load.py [--players 400] [--watchers 0] [--rate 1] [--duration 30] [--daphnes 2]
                                   [--warmup 5]

Needs PostgreSQL and Redis on loopback (see docs/performance.md). The script starts its own cluster
(bench/cluster.py): a fresh database, migrated, and --daphnes Daphne processes with production settings,
and stops it at the end. Each player starts a game over HTTP (not measured), then opens two sockets on
the game, as two browser tabs would: tab A on one Daphne, tab B on the next. Tab A sends a random legal
move (an undo when none is left) every 1/R seconds, open loop: it never waits for the previous ack, so a
slow server shows as latency instead of as fewer moves. --watchers W visitors (no session) watch the
games on the watch socket, watcher i the game of player i mod P, on process i mod D; every event a
watcher misses, or hears later than the timeout, is an error. Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import math
import os
import random
import resource
import shlex
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
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
    database_cpu_seconds,
    database_writes,
    log_problems,
    machine_busy_seconds,
    process_cpu_seconds,
    process_rss_bytes,
    run_bench,
)
from games.engine import Position, apply_move, legal_moves  # noqa: E402

# An ack, or the other tab's event, later than this counts as an error (a timeout); the run also waits
# at most this long after the last move for the answers still on their way.
TIMEOUT_S = 5.0
HTTP_TIMEOUT_S = 30.0
SOCKET_OPEN_TIMEOUT_S = 30.0
SOCKET_CLOSE_TIMEOUT_S = 5.0
SETUP_THREADS = 8
SOCKETS_OPENING_AT_ONCE = 32
clock = time.perf_counter


@dataclass(slots=True)
class Exchange:
    """One message of tab A: when it left, the piles it should leave, when its ack and tab B's event came."""

    sent: float
    piles: int
    acked: float | None = None
    heard: float | None = None
    rejected: bool = False


@dataclass(slots=True)
class Player:
    game_id: int
    deal: list[str]
    version: int
    cookie: str
    home: Daphne  # tab A's server
    other: Daphne  # tab B's server
    # By the game version the message should lead to: the player's moves are the game's only changes.
    exchanges: dict[int, Exchange] = field(default_factory=dict)
    stopped: str | None = None  # why the player stopped playing before the end, if it did


@dataclass(slots=True)
class Watcher:
    """A visitor watching one player's game: when it heard each version."""

    player: Player
    daphne: Daphne
    heard: dict[int, float] = field(default_factory=dict)


@dataclass(slots=True)
class Tally:
    errors: Counter[str] = field(default_factory=Counter)
    send_lag: list[float] = field(default_factory=list)  # how late tab A sent each move (the client's own lag)
    closing: bool = False  # the run closes the sockets: a close is no longer an error


@dataclass(frozen=True, slots=True)
class Sample:
    """The processes' figures at one instant."""

    at: float
    server_cpu_s: float
    server_rss: int
    client_cpu_s: float
    database_cpu_s: float
    machine_busy_s: float
    machine_total_s: float


def sample(daphnes: Sequence[Daphne]) -> Sample:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    busy, total = machine_busy_seconds()
    return Sample(
        at=clock(),
        server_cpu_s=sum(process_cpu_seconds(daphne.pid) for daphne in daphnes),
        server_rss=sum(process_rss_bytes(daphne.pid) for daphne in daphnes),
        client_cpu_s=usage.ru_utime + usage.ru_stime,
        database_cpu_s=database_cpu_seconds(),
        machine_busy_s=busy,
        machine_total_s=total,
    )


def machine_rows(start: Sample, end: Sample, *, per: float, unit: str) -> list[tuple[str, str]]:
    """PostgreSQL's CPU per `unit` and how busy the whole machine was, between two samples."""
    window = end.at - start.at
    database = end.database_cpu_s - start.database_cpu_s
    busy = (end.machine_busy_s - start.machine_busy_s) / max(end.machine_total_s - start.machine_total_s, 1e-9)
    return [
        (
            "database CPU",
            f"{1000 * database / per:.2f} ms per {unit} ({100 * database / window:.0f} % of one core, "
            "all PostgreSQL processes on the machine)",
        ),
        ("machine", f"{100 * busy:.0f} % busy over all {os.cpu_count()} cores"),
    ]


# --- Setup: sessions and games over HTTP (not measured) ---


def _keep_cookies(response: http.client.HTTPResponse, jar: SimpleCookie) -> None:
    for header in response.headers.get_all("Set-Cookie") or []:
        jar.load(header)


def _cookie_header(jar: SimpleCookie) -> str:
    return "; ".join(f"{name}={morsel.value}" for name, morsel in jar.items())


def start_player(home: Daphne, other: Daphne, deal_code: str | None = None) -> Player:
    """A new visitor: GET / for the CSRF cookie, then POST /api/games {"mode": "new"} (or on the deal
    `deal_code`, {"mode": "code"})."""
    connection = http.client.HTTPConnection("127.0.0.1", home.port, timeout=HTTP_TIMEOUT_S)
    jar: SimpleCookie = SimpleCookie()
    try:
        connection.request("GET", "/")
        response = connection.getresponse()
        response.read()
        _keep_cookies(response, jar)
        if response.status != 200 or "csrftoken" not in jar:
            raise ClusterError(f"GET / answered {response.status} without a csrftoken cookie")
        connection.request(
            "POST",
            "/api/games",
            body=json.dumps({"mode": "code", "code": deal_code} if deal_code else {"mode": "new"}),
            headers={
                "Content-Type": "application/json",
                "X-CSRFToken": jar["csrftoken"].value,
                "Cookie": _cookie_header(jar),
            },
        )
        response = connection.getresponse()
        body = response.read()
        _keep_cookies(response, jar)
    finally:
        connection.close()
    if response.status != 201:
        raise ClusterError(f"POST /api/games answered {response.status}: {body[:300]!r}")
    game = json.loads(body)
    return Player(
        game_id=game["id"],
        deal=game["deal"],
        version=game["version"],
        cookie=_cookie_header(jar),
        home=home,
        other=other,
    )


# --- The two tabs ---


async def open_socket(url: str, daphne: Daphne, cookie: str | None, limit: asyncio.Semaphore) -> ClientConnection:
    async with limit:
        try:
            return await connect(
                url,
                origin=Origin(daphne.origin),
                additional_headers={"Cookie": cookie} if cookie is not None else None,
                compression=None,
                open_timeout=SOCKET_OPEN_TIMEOUT_S,
                close_timeout=SOCKET_CLOSE_TIMEOUT_S,
            )
        except (OSError, TimeoutError, InvalidHandshake) as error:
            raise ClusterError(f"cannot open {url}: {error!r}") from error


async def open_tab(player: Player, daphne: Daphne, limit: asyncio.Semaphore) -> ClientConnection:
    url = f"ws://127.0.0.1:{daphne.port}/ws/games/{player.game_id}/?v={player.version}"
    return await open_socket(url, daphne, player.cookie, limit)


async def open_watch(watcher: Watcher, limit: asyncio.Semaphore) -> ClientConnection:
    """The watch socket, from the game's first version: it hears every change from then on."""
    url = f"ws://127.0.0.1:{watcher.daphne.port}/ws/watch/{watcher.player.game_id}/?v={watcher.player.version}"
    return await open_socket(url, watcher.daphne, None, limit)


def on_tab_a_message(player: Player, message: dict[str, Any], tally: Tally) -> None:
    kind = message.get("t")
    if kind == "reject" and message.get("n") is None:  # refused unread (rate_limited): a move is lost
        tally.errors[f"rejected ({message.get('code')})"] += 1
        player.stopped = "a move was rejected"
        return
    if kind not in ("ack", "reject"):
        return  # tab A's own events: the other tab's are the ones measured
    version = player.version + message["n"]
    exchange = player.exchanges.get(version)
    if exchange is None:
        tally.errors["answer to an unknown message"] += 1
        return
    if kind == "reject":
        exchange.rejected = True
        tally.errors[f"rejected ({message.get('code')})"] += 1
        player.stopped = "a move was rejected"  # the local position no longer follows the server's
        return
    exchange.acked = clock()
    if message.get("v") != version or message.get("piles") != exchange.piles:
        tally.errors["ack out of step with the moves sent"] += 1
        player.stopped = "an ack was out of step"


def on_tab_b_message(player: Player, message: dict[str, Any], tally: Tally) -> None:
    if message.get("t") != "event":
        return
    exchange = player.exchanges.get(message.get("v", -1))
    if exchange is not None and exchange.heard is None:
        exchange.heard = clock()


async def listen_watcher(watcher: Watcher, socket: ClientConnection, tally: Tally) -> None:
    """Notes when each version arrives: alone (`event`) or with others of the same tick (`events`)."""
    try:
        async for text in socket:
            message = json.loads(text)
            received = clock()
            kind = message.get("t")
            events = message["events"] if kind == "events" else [message] if kind == "event" else []
            for event in events:
                watcher.heard.setdefault(event["v"], received)
            if kind == "refused":
                tally.errors[f"watcher refused ({message.get('code')})"] += 1
    except ConnectionClosed:
        pass
    if not tally.closing:
        tally.errors[f"watch socket closed by the server ({socket.close_code})"] += 1


async def listen(
    player: Player,
    socket: ClientConnection,
    on_message: Callable[[Player, dict[str, Any], Tally], None],
    tally: Tally,
) -> None:
    try:
        async for text in socket:
            on_message(player, json.loads(text), tally)
    except ConnectionClosed:
        pass
    if not tally.closing:
        tally.errors[f"socket closed by the server ({socket.close_code})"] += 1
        player.stopped = "a socket closed"


async def play(
    player: Player,
    socket: ClientConnection,
    *,
    first_at: float,
    interval: float,
    stop_at: float,
    seed: int,
    tally: Tally,
) -> None:
    """Tab A: a random legal move every `interval` seconds, an undo when no move is legal."""
    rng = random.Random(seed)
    line = [Position.from_deal(player.deal)]
    due = first_at
    n = 0
    while due < stop_at and player.stopped is None:
        await asyncio.sleep(due - clock())
        position = line[-1]
        if position.won:
            player.stopped = "won its game"
            return
        moves = legal_moves(position)
        if moves:
            move = rng.choice(moves)
            line.append(apply_move(position, move))
            message: dict[str, Any] = {"t": "move", "move": list(move), "n": n + 1}
        elif len(line) > 1:
            line.pop()
            message = {"t": "undo", "n": n + 1}
        else:
            player.stopped = "had no legal move at the deal"
            return
        n += 1
        sent = clock()
        tally.send_lag.append(sent - due)
        player.exchanges[player.version + n] = Exchange(sent=sent, piles=line[-1].piles)
        try:
            await socket.send(json.dumps(message))
        except ConnectionClosed:
            return  # the listener counts the close
        due += interval


def _settled(exchange: Exchange) -> bool:
    return exchange.rejected or (exchange.acked is not None and exchange.heard is not None)


async def drain(players: Sequence[Player], deadline: float) -> None:
    """Wait for the answers still on their way, until `deadline` at the latest."""
    pending = [exchange for player in players for exchange in player.exchanges.values()]
    while clock() < deadline:
        pending = [exchange for exchange in pending if not _settled(exchange)]
        if not pending:
            return
        await asyncio.sleep(0.05)


# --- The run ---


@dataclass(frozen=True, slots=True)
class Results:
    window_s: float
    sockets: int
    watchers: int
    measured: list[Exchange]
    watcher_latency: list[float]
    acks_in_window: int
    errors: Counter[str]
    stopped: Counter[str]
    send_lag: list[float]
    before_sockets: Sample
    after_sockets: Sample
    window_start: Sample
    window_end: Sample
    database_writes: dict[str, int]  # pg_stat_database's counters over the measured window


async def start_players(count: int, daphnes: Sequence[Daphne]) -> list[Player]:
    """`count` visitors with a game each; tab A's server and tab B's (the next one) go round the processes."""
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(max_workers=SETUP_THREADS) as pool:
        return await asyncio.gather(
            *(
                loop.run_in_executor(
                    pool, start_player, daphnes[index % len(daphnes)], daphnes[(index + 1) % len(daphnes)]
                )
                for index in range(count)
            )
        )


def count_late_answers(exchanges: Sequence[Exchange], errors: Counter[str]) -> None:
    for exchange in exchanges:
        if exchange.rejected:
            continue  # counted as it arrived; a rejected move has no event
        if exchange.acked is None or exchange.acked - exchange.sent > TIMEOUT_S:
            errors[f"no ack within {TIMEOUT_S:g} s"] += 1
        if exchange.heard is None or exchange.heard - exchange.sent > TIMEOUT_S:
            errors[f"no event on the other tab within {TIMEOUT_S:g} s"] += 1


def watcher_delays(watchers: Sequence[Watcher], errors: Counter[str], *, since: float, until: float) -> list[float]:
    """Each watcher's delay from a move being sent to hearing its event, for the moves sent in the window;
    every accepted move a watcher did not hear within the timeout is an error."""
    delays = []
    for watcher in watchers:
        for version, exchange in watcher.player.exchanges.items():
            if exchange.acked is None:
                continue  # never accepted (rejected, or counted above): no event to hear
            heard = watcher.heard.get(version)
            if heard is None or heard - exchange.sent > TIMEOUT_S:
                errors[f"no event at a watcher within {TIMEOUT_S:g} s"] += 1
            elif since <= exchange.sent < until:
                delays.append(heard - exchange.sent)
    return delays


def _watched_settled(watchers: Sequence[Watcher]) -> bool:
    return all(
        version in watcher.heard
        for watcher in watchers
        for version, exchange in watcher.player.exchanges.items()
        if exchange.acked is not None
    )


async def run(args: argparse.Namespace, daphnes: Sequence[Daphne]) -> Results:
    players = await start_players(args.players, daphnes)
    watchers = [
        Watcher(player=players[index % len(players)], daphne=daphnes[index % len(daphnes)])
        for index in range(args.watchers)
    ]
    limit = asyncio.Semaphore(SOCKETS_OPENING_AT_ONCE)
    # A process's first socket of a kind loads its code and connects to Redis: a one-off cost, not a
    # per-socket one, so one socket of each kind to each process comes and goes before memory is sampled.
    for daphne in daphnes:
        await (await open_tab(players[0], daphne, limit)).close()
        if watchers:
            await (await open_watch(Watcher(player=players[0], daphne=daphne), limit)).close()
    before_sockets = sample(daphnes)
    tabs_b = await asyncio.gather(*(open_tab(player, player.other, limit) for player in players))
    tabs_a = await asyncio.gather(*(open_tab(player, player.home, limit) for player in players))
    watch_sockets = await asyncio.gather(*(open_watch(watcher, limit) for watcher in watchers))
    after_sockets = sample(daphnes)

    tally = Tally()
    listeners = [
        asyncio.create_task(listen(player, tab, on_message, tally))
        for tabs, on_message in ((tabs_a, on_tab_a_message), (tabs_b, on_tab_b_message))
        for player, tab in zip(players, tabs, strict=True)
    ]
    listeners += [
        asyncio.create_task(listen_watcher(watcher, socket, tally))
        for watcher, socket in zip(watchers, watch_sockets, strict=True)
    ]
    interval = 1 / args.rate
    begin = clock() + 0.2
    window_at, stop_at = begin + args.warmup, begin + args.warmup + args.duration
    playing = [
        asyncio.create_task(
            play(
                player,
                tab,
                # Start times spread evenly over one interval, so the moves arrive as a steady stream.
                first_at=begin + interval * index / len(players),
                interval=interval,
                stop_at=stop_at,
                seed=args.seed + index,
                tally=tally,
            )
        )
        for index, (player, tab) in enumerate(zip(players, tabs_a, strict=True))
    ]
    await asyncio.sleep(window_at - clock())
    window_start = sample(daphnes)
    writes_at_start = await asyncio.to_thread(database_writes, args.postgres, args.database)
    await asyncio.sleep(stop_at - clock())
    window_end = sample(daphnes)
    writes_at_end = await asyncio.to_thread(database_writes, args.postgres, args.database)
    await asyncio.wait(playing, timeout=TIMEOUT_S)  # a send stuck on a full socket buffer ends here
    for task in playing:
        task.cancel()
    await drain(players, deadline=stop_at + TIMEOUT_S)
    while not _watched_settled(watchers) and clock() < stop_at + TIMEOUT_S:
        await asyncio.sleep(0.05)

    tally.closing = True
    await asyncio.gather(*(socket.close() for socket in [*tabs_a, *tabs_b, *watch_sockets]))
    await asyncio.gather(*listeners)
    exchanges = [exchange for player in players for exchange in player.exchanges.values()]
    count_late_answers(exchanges, tally.errors)
    return Results(
        window_s=window_end.at - window_start.at,
        sockets=len(tabs_a) + len(tabs_b) + len(watch_sockets),
        watchers=len(watch_sockets),
        measured=[exchange for exchange in exchanges if window_at <= exchange.sent < stop_at],
        watcher_latency=watcher_delays(watchers, tally.errors, since=window_at, until=stop_at),
        acks_in_window=sum(
            1
            for exchange in exchanges
            if exchange.acked is not None and window_start.at <= exchange.acked < window_end.at
        ),
        errors=tally.errors,
        stopped=Counter(player.stopped for player in players if player.stopped is not None),
        send_lag=tally.send_lag,
        before_sockets=before_sockets,
        after_sockets=after_sockets,
        window_start=window_start,
        window_end=window_end,
        database_writes={name: writes_at_end[name] - writes_at_start[name] for name in writes_at_end},
    )


# --- The report ---


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of already sorted values."""
    return sorted_values[max(0, math.ceil(fraction * len(sorted_values)) - 1)]


def spread_ms(seconds: list[float], *, of: str = "moves") -> str:
    if not seconds:
        return "none measured"
    ordered = sorted(1000 * value for value in seconds)
    return (
        f"p50 {percentile(ordered, 0.5):.1f} ms   p95 {percentile(ordered, 0.95):.1f} ms   "
        f"p99 {percentile(ordered, 0.99):.1f} ms   max {ordered[-1]:.1f} ms   ({len(ordered)} {of})"
    )


def counts(counter: Counter[str]) -> str:
    return ", ".join(f"{reason}: {count}" for reason, count in counter.most_common())


def print_report(rows: list[tuple[str, str]], *, stopped: Counter[str], server_log: list[str]) -> None:
    """Print a benchmark's figures as aligned rows, then the sockets stopped early and the server's warnings."""
    if stopped:
        rows.append(("stopped early", counts(stopped)))
    if server_log:
        rows.append(("server log", f"{len(server_log)} warnings or errors; the first: {server_log[0][:200]}"))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


def report(args: argparse.Namespace, results: Results, server_log: list[str]) -> None:
    start, end = results.window_start, results.window_end
    server_cpu_s = end.server_cpu_s - start.server_cpu_s
    client_cpu_s = end.client_cpu_s - start.client_cpu_s
    accepted = max(results.acks_in_window, 1)
    socket_bytes = (results.after_sockets.server_rss - results.before_sockets.server_rss) / results.sockets
    errors = sum(results.errors.values())
    command = shlex.join([os.path.relpath(sys.executable), *sys.argv])
    rows = [
        ("command", command),
        (
            "load",
            f"{args.players} players at {args.rate:g} move{'' if args.rate == 1 else 's'}/s, "
            f"{results.watchers} watchers, {results.sockets} sockets on {args.daphnes} Daphne processes; "
            f"{results.window_s:.1f} s measured after {args.warmup:g} s of warm-up",
        ),
        ("moves accepted", f"{results.acks_in_window} acknowledged in the {results.window_s:.1f} s measured"),
        ("acks per second", f"{results.acks_in_window / results.window_s:.1f}"),
        ("ack latency", spread_ms([e.acked - e.sent for e in results.measured if e.acked is not None])),
        ("move → other tab", spread_ms([e.heard - e.sent for e in results.measured if e.heard is not None])),
        ("move → watcher", spread_ms(results.watcher_latency, of="deliveries") if results.watchers else "no watchers"),
        ("errors", f"{errors} ({counts(results.errors)})" if errors else "0"),
        (
            "server CPU",
            f"{1000 * server_cpu_s / accepted:.2f} ms per accepted move "
            f"({100 * server_cpu_s / results.window_s:.0f} % of one core, {args.daphnes} processes)",
        ),
        (
            "server memory",
            f"{socket_bytes / 1024:.1f} KiB per socket (RSS growth over all {results.sockets} sockets: "
            f"{results.sockets - results.watchers} players' tabs, {results.watchers} watchers)",
        ),
        (
            "client CPU",
            f"{1000 * client_cpu_s / accepted:.2f} ms per accepted move "
            f"({100 * client_cpu_s / results.window_s:.0f} % of one core); "
            f"moves sent late by p99 {1000 * percentile(sorted(results.send_lag or [0.0]), 0.99):.1f} ms",
        ),
        (
            "database writes",
            "per accepted move: "
            + ", ".join(f"{count / accepted:.2f} {name}" for name, count in results.database_writes.items())
            + " (pg_stat_database of the run's database)",
        ),
        *machine_rows(start, end, per=accepted, unit="accepted move"),
    ]
    print_report(rows, stopped=results.stopped, server_log=server_log)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=bounded(int, 1, 5000), default=400)
    parser.add_argument("--watchers", type=bounded(int, 0, 5000), default=0, help="watch sockets over the games")
    parser.add_argument("--rate", type=bounded(float, 0.05, 50), default=1.0, help="moves a second per player")
    parser.add_argument("--duration", type=bounded(float, 1, 3600), default=30.0, help="measured seconds")
    parser.add_argument("--warmup", type=bounded(float, 0, 600), default=5.0, help="seconds played before measuring")
    parser.add_argument("--seed", type=int, default=1, help="seeds the players' choice of moves")
    add_cluster_options(parser, database="bench_load", redis="redis://127.0.0.1:6379/3")
    args = parser.parse_args()
    # The client holds two sockets per player and one per watcher, each server process its share.
    allow_open_files(2 * (2 * args.players + args.watchers) + 256)

    # Every watcher is a visitor without a session from 127.0.0.1, counted by address.
    with bench_cluster(args, name="load", extra_env={"SOCKETS_PER_ADDRESS": "1000000"}) as daphnes:
        results = asyncio.run(run(args, daphnes))
        server_log = [line for daphne in daphnes for line in log_problems(daphne)]
    report(args, results, server_log)


if __name__ == "__main__":
    run_bench(main)
