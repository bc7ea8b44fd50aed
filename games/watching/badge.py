"""The still-winnable badge watchers see beside the board: the solver pool answers at most once per
position of a watched game, over every process.

One process at a time holds a game's badge lease (a cache `add`, renewed while it has watchers of the
game); it claims each new version (another `add`, so a lease changing hands cannot ask twice), asks
the pool, stores the answer for later watchers and publishes it on the game's stream. Every position
reached from a lost one is lost too: a line that extends the last one found lost gets "lost" with no
question (a lost position is the solver's longest search, as it must rule out every line). One
question at a time, paced (BADGE_RATE, POOL_SHARE), so the badge never crowds out the players' own
hints; a busy or undecided pool means no badge. Never to the game's own player (it would be a hint),
and none on a deal whose winning lines are withheld (an arena's before it ends: everyone plays it), which
the solver is then never asked about.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from accordion_site.db import db_call
from accordion_site.errors import log_background_failure
from accordion_site.tasks import raise_if_stopping, stop_task
from games import events
from games.engine import analysis
from games.errors import LinesWithheld, SolverBusy
from games.models import Game
from games.selectors import winning_lines_withheld
from games.solver_pool import solver_run
from realtime.bus import Message, publish

from . import protocol

logger = logging.getLogger(__name__)

# How long a claimed position stays in the cache.
CLAIM_S = 600
# What the badge may take, per process: questions a second, and the share of a solver worker's time.
BADGE_RATE = 20
POOL_SHARE = 0.25
# A process's lease on a game's badge: renewed at half-time while it has watchers of the game; another
# process looks again at that pace, so a process that dies hands the badge on within LEASE_S.
LEASE_S = 30
# How long a game's latest badge stays in the cache, for watchers who come later.
LATEST_S = 3600
# The cache keys (by game id) of a game's lease, its latest badge, and a claimed position (game id, v).
LEASE_KEY = "watch:winnable-owner:{}"
LATEST_KEY = "watch:winnable:{}"
CLAIM_KEY = "watch:winnable:{}:{}"


def _take_lease(game_id: int, process: str) -> bool:
    key = LEASE_KEY.format(game_id)
    if cache.add(key, process, timeout=LEASE_S):
        return True
    if cache.get(key) != process:
        return False
    cache.touch(key, timeout=LEASE_S)
    return True


def _give_back_lease(game_id: int, process: str) -> None:
    key = LEASE_KEY.format(game_id)
    if cache.get(key) == process:
        cache.delete(key)


def latest_badge(game: Game) -> str | None:
    found = cache.get(LATEST_KEY.format(game.pk))
    if not found or found["v"] != game.version:
        return None
    return protocol.winnable(game=game.pk, v=found["v"], status=found["status"])


def _claim_position(game_id: int, v: int) -> tuple[list[str], list[list[int]]] | None:
    """The deal and line of version `v`, if it is still the game's position and no process has claimed it;
    LinesWithheld when the deal's winning lines are."""
    game = (
        Game.objects.select_related("deal")
        .only("deal__cards", "deal__daily_date", "deal__lines_secret_until", "moves", "version", "status")
        .get(pk=game_id)
    )
    if game.version != v or game.status != Game.Status.PLAYING:
        return None
    if winning_lines_withheld(game=game, today=timezone.now().date()):
        raise LinesWithheld(f"game {game_id}: no still-winnable badge while its deal's winning lines are withheld")
    if not cache.add(CLAIM_KEY.format(game_id, v), True, timeout=CLAIM_S):
        return None
    return game.deal.cards, game.moves


def _solve(cards: Sequence[str], moves: Sequence[Sequence[int]]) -> str | None:
    """The pool's answer for the position, "win" or "lost"; None when it is busy or undecided."""
    time_limit = settings.SOLVER_TIME_LIMIT
    try:
        status = solver_run(analysis.position_status, cards, moves, time_limit, time_limit=time_limit)
    except SolverBusy:
        return None
    return status if status in ("win", "lost") else None


def _remember(game_id: int, v: int, status: str) -> None:
    """Keep the badge of version `v` for watchers who come later."""
    cache.set(LATEST_KEY.format(game_id), {"v": v, "status": status}, timeout=LATEST_S)


class Badge:
    def __init__(self, *, process: str) -> None:
        self.process = process
        # game → the newest position waiting for an answer, oldest request first (round robin)
        self.waiting: dict[int, int] = {}
        self.wake = asyncio.Event()
        self.worker: asyncio.Task[None] | None = None
        # game → when to look at its lease again (loop time), and whether this process held it then
        self.leases: dict[int, tuple[float, bool]] = {}
        # game → the line of the last position the solver found lost
        self.lost: dict[int, list[list[int]]] = {}
        self.withheld: set[int] = set()  # games whose deal's winning lines are withheld: no badge

    async def start(self) -> None:
        self.worker = asyncio.get_running_loop().create_task(self._work())

    async def stop(self) -> None:
        if self.worker is not None:
            await stop_task(self.worker)
        for game_id in list(self.leases):
            await self.forget(game_id)

    def position_changed(self, game_id: int, v: int) -> bool:
        """Ask for the badge of the game's position `v`; whether one may come (badges are on)."""
        if not settings.WATCH_BADGE or game_id in self.withheld:
            return False
        if v > self.waiting.get(game_id, 0):
            self.waiting[game_id] = v  # a game already waiting keeps its turn, with its newest position
        self.wake.set()
        return True

    async def forget(self, game_id: int) -> None:
        self.waiting.pop(game_id, None)
        self.lost.pop(game_id, None)
        self.withheld.discard(game_id)
        if self.leases.pop(game_id, (0.0, False))[1]:
            await asyncio.to_thread(_give_back_lease, game_id, self.process)

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.waiting:
                game_id = next(iter(self.waiting))
                v = self.waiting.pop(game_id)
                began = loop.time()
                try:
                    if await self._holds_lease(game_id):
                        await self._ask_once(game_id, v)
                except Exception:
                    raise_if_stopping()
                    log_background_failure(logger, "game %s: no still-winnable badge for v%s", game_id, v)
                spent = loop.time() - began
                await asyncio.sleep(max(1 / BADGE_RATE - spent, spent * (1 / POOL_SHARE - 1)))

    async def _holds_lease(self, game_id: int) -> bool:
        loop = asyncio.get_running_loop()
        look_again_at, held = self.leases.get(game_id, (0.0, False))
        if loop.time() < look_again_at:
            return held
        held = await asyncio.to_thread(_take_lease, game_id, self.process)
        self.leases[game_id] = (loop.time() + LEASE_S / 2, held)
        return held

    async def _ask_once(self, game_id: int, v: int) -> None:
        try:
            position = await db_call(_claim_position)(game_id, v)
        except LinesWithheld:
            self.withheld.add(game_id)
            return
        if position is None:
            return
        cards, line = position
        lost = self.lost.get(game_id)
        status: str | None
        if lost is not None and line[: len(lost)] == lost:
            status = "lost"
        else:
            # Not on the database threads: the wait for the pool is up to the solver's time limit.
            status = await asyncio.to_thread(_solve, cards, line)
            if status is None:
                return
            if status == "lost":
                self.lost[game_id] = line
        await asyncio.to_thread(_remember, game_id, v, status)
        publish(Message(events.group_name(game_id), "winnable", v, protocol.winnable(game=game_id, v=v, status=status)))
