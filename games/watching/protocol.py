"""The messages of the watch socket and the live-list socket (docs/api.md, "Watching"), each encoded
once and the same text written to every socket of the process."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

from realtime.protocol import encode, outgoing, reject


def read_only() -> str:
    """The answer to anything a watcher sends (they only listen), in the socket's language."""
    return encode(reject(n=None, error=_("watchers only watch: this socket takes no messages"), code="read_only"))


@outgoing("events")
def events(frames: Sequence[str], also: Sequence[str] = ()) -> str:
    """One frame for what one tick brings a watcher: a lone message as it is; else {"t": "events",
    "events": [...], "also": [...]}, the events and then the messages that ride with them (a watcher
    count, a badge), their own JSON texts joined, not encoded again."""
    if len(frames) + len(also) == 1:
        return (frames or also)[0]
    riding = ', "also": [' + ", ".join(also) + "]" if also else ""
    return '{"t": "events", "events": [' + ", ".join(frames) + "]" + riding + "}"


@outgoing("state")
def state(*, game: dict[str, Any], version: int, player: dict[str, Any], race: str | None) -> str:
    """The whole game for a watcher who has nothing (or too little) to resume from, with who plays it."""
    return encode({"t": "state", "v": version, "game": game, "player": player, "race": race})


@outgoing("crowd")
def crowd(watchers: int) -> str:
    """How many are watching the game: to its watchers and to its player."""
    return encode({"t": "crowd", "watchers": watchers})


@outgoing("winnable")
def winnable(*, game: int, v: int, status: str) -> str:
    """The still-winnable badge: whether the position at version `v` can still be won ("win" or "lost")."""
    return encode({"t": "winnable", "game": game, "v": v, "status": status})


@outgoing("live")
def live(*, games: Sequence[dict[str, Any]], gone: Sequence[int], full: bool, server_now: datetime.datetime) -> str:
    """The live list: all of it (`full`), or the games that changed and the ids of those that left."""
    return encode({"t": "live", "full": full, "games": list(games), "gone": list(gone), "server_now": server_now})
