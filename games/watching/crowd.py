"""How many are watching each game, across every web process: the watcher sockets present in the
game's group (realtime/presence.py). A watcher socket counts from its catch-up to its close; a process
that dies stops counting by expiry. When a game's count changes, this process's sockets of the game
(the player's and the watchers') are told, with one `crowd` message on the bus, locally.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection

from games import events
from realtime.bus import Bus, Message
from realtime.presence import Presence, store

from . import protocol

WATCHER = "watcher"


class Crowd:
    def __init__(self, bus: Bus, presence: Presence) -> None:
        self.bus = bus
        self.presence = presence
        presence.watch("game.", lambda group: [WATCHER], self._changed)

    async def enter(self, game_id: int) -> str:
        """Count a watcher socket of the game (its entry, to leave with)."""
        return await self.presence.enter(events.group_name(game_id), WATCHER)

    def leave(self, entry: str) -> None:
        self.presence.leave(entry)

    async def total(self, game_id: int) -> int:
        """The game's count as the store has it now (for a socket that has just arrived)."""
        found = await asyncio.to_thread(store().seen, events.group_name(game_id), [WATCHER])
        return found[WATCHER].present

    async def _changed(self, group: str, counts: dict[str, int]) -> None:
        await self.bus.deliver(Message(group, "crowd", frame=protocol.crowd(counts[WATCHER])))


def crowd_totals(game_ids: Collection[int]) -> dict[int, int]:
    """Each game's watchers over every process (for reads outside the sockets: the live list)."""
    counts = store().present([events.group_name(game) for game in game_ids], WATCHER)
    return {game: counts[events.group_name(game)] for game in game_ids}
