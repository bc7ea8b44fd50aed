"""The messages of the watch socket and the live-list socket (docs/api.md, "Watching").

Watchers only listen: whatever they send is answered with one `reject` (code `read_only`). What the
server sends each of a process's sockets is encoded once and the same text written to each.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.utils.translation import gettext as _

from games import protocol as game_protocol


def read_only() -> str:
    """The answer to anything a watcher sends, in the socket's language."""
    return json.dumps(
        game_protocol.reject(n=None, error=_("watchers only watch: this socket takes no messages"), code="read_only")
    )


def rate_limited() -> str:
    return json.dumps(game_protocol.reject(n=None, error=_("too many messages: slow down"), code="rate_limited"))


def encode(content: dict[str, Any]) -> str:
    return json.dumps(content, cls=DjangoJSONEncoder)


def events(frames: Sequence[str]) -> str:
    """One frame for the events of one tick: a single event as it is, several as
    {"t": "events", "events": [...]} — the events' own JSON texts joined, not encoded again."""
    if len(frames) == 1:
        return frames[0]
    return '{"t": "events", "events": [' + ", ".join(frames) + "]}"


def state(*, game: dict[str, Any], version: int, player: dict[str, Any], race: str | None) -> str:
    """The whole game for a watcher who has nothing (or too little) to resume from, with who plays it."""
    return encode({"t": "state", "v": version, "game": game, "player": player, "race": race})


def crowd(watchers: int) -> str:
    """How many are watching the game: to its watchers and to its player."""
    return encode({"t": "crowd", "watchers": watchers})


def winnable(*, game: int, v: int, status: str) -> str:
    """The still-winnable badge: whether the position at version `v` can still be won ("win" or "lost")."""
    return encode({"t": "winnable", "game": game, "v": v, "status": status})


def refused(*, error: str, code: str) -> str:
    return encode(game_protocol.refused(error=error, code=code))


def live(*, games: Sequence[dict[str, Any]], gone: Sequence[int], full: bool, server_now: datetime.datetime) -> str:
    """The live list: all of it (`full`), or the games that changed and the ids of those that left."""
    return encode({"t": "live", "full": full, "games": list(games), "gone": list(gone), "server_now": server_now})
