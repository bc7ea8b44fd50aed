"""Typed messages of the race room socket: what a client may send, and what the server sends."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games import engine
from realtime.protocol import ProtocolError, decode_frame, encode, is_whole, outgoing, reject, sequence_number

__all__ = ["ProtocolError", "encode", "reject"]

# The kinds a room socket takes (docs/api.md).
CLIENT_KINDS = ("ready", "start", "kick", "leave", "rematch", "ghost", "settings", "sync")


@dataclass(frozen=True, slots=True)
class RoomCommand:
    """A room socket's command: `kind` (one of CLIENT_KINDS, or "move", always refused: moves belong on
    the racer's own game socket) and what that kind carries. In settings None leaves a setting as it
    is, and a `code` of "" is a fresh deal."""

    kind: str
    n: int
    ready: bool = True
    confirm: bool = False
    player: int = 0
    game: int | None = None
    time_limit: int | None = None
    code: str | None = None


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


def _whole_or_none(value: object) -> bool:
    return value is None or is_whole(value)


# Each kind's fields: (name, default, check, what a client is told when the check fails).
_FIELDS: dict[str, tuple[tuple[str, Any, Callable[[Any], bool], str], ...]] = {
    "ready": (("ready", True, _is_bool, gettext_noop("'ready' must be true or false")),),
    "rematch": (("confirm", False, _is_bool, gettext_noop("'confirm' must be true or false")),),
    "kick": (("player", None, is_whole, gettext_noop("'player' must be the id of the racer to kick")),),
    "ghost": (
        (
            "game",
            None,
            _whole_or_none,
            gettext_noop("'game' must be the id of a finished game, or null to drop the ghost"),
        ),
    ),
    "settings": (
        ("time_limit", None, _whole_or_none, gettext_noop("'time_limit' must be a whole number of seconds")),
        (
            "code",
            None,
            lambda code: code is None or isinstance(code, str),
            gettext_noop("'code' must be a deal code, or null for a fresh deal"),
        ),
    ),
}
_TYPES = ", ".join(f"'{kind}'" for kind in CLIENT_KINDS[:-1]) + f" or '{CLIENT_KINDS[-1]}'"


def parse_client_message(text: str | None) -> RoomCommand:
    """Parse one text frame from a room socket; raise ProtocolError saying what is wrong."""
    content = decode_frame(text)
    n = sequence_number(content)
    kind = content.get("t")
    if kind in ("move", "undo"):
        return RoomCommand(kind="move", n=n)
    if kind not in CLIENT_KINDS:
        raise ProtocolError(
            _("unknown message type %(type)r: use %(types)s") % {"type": kind, "types": _TYPES},
            n=n,
            code="unknown_type",
        )
    if kind == "settings" and "code" in content:
        content["code"] = content["code"] or ""  # null or "": a fresh deal
    fields = {}
    for name, default, valid, error in _FIELDS.get(kind, ()):
        fields[name] = content.get(name, default)
        if not valid(fields[name]):
            raise ProtocolError(_(error), n=n)
    return RoomCommand(kind=kind, n=n, **fields)


@outgoing("welcome")
def welcome(*, player: int | None) -> dict[str, Any]:
    """Who this socket is (None: a visitor who has not played, who can only watch)."""
    return {"t": "welcome", "player": player}


@outgoing("room")
def room(*, payload: dict[str, Any]) -> dict[str, Any]:
    """The room as every client sees it, its `version` included (clients keep the newest)."""
    return {"t": "room", **payload}


@outgoing("countdown")
def countdown(*, starts_at: datetime.datetime, server_now: datetime.datetime) -> dict[str, Any]:
    """The start signal's time, and the server's clock to set it by."""
    return {"t": "countdown", "starts_at": starts_at, "server_now": server_now}


@outgoing("start")
def start(*, game: dict[str, Any]) -> dict[str, Any]:
    """To one racer: their own game, deal included (the first time anyone sees the deal)."""
    return {"t": "start", "game": game}


@outgoing("standings")
def standings(*, entries: list[dict[str, Any]], final: bool) -> dict[str, Any]:
    """A racer finished: the places of those done so far, or (`final`) the race is over."""
    return {"t": "standings", "standings": entries, "final": final}


@outgoing("progress")
def progress_from_event(*, racer: int, player: int | None, event: dict[str, Any]) -> dict[str, Any]:
    """A racer's progress, from one event of their game (its `data`, as games.events gives it to listeners
    on the server)."""
    piles = event["piles"]
    finished = event["kind"] == "finish"
    return {
        "t": "progress",
        "racer": racer,
        "player": player,
        "v": event["v"],
        "kind": event["kind"],
        "move": event["move"],
        "line": event["line"],
        "piles": piles,
        "score": event["score"] if event["score"] is not None else engine.score(piles, None),  # a finish's, if any
        "moves": 52 - piles,
        "status": "finished" if finished else "playing",
        "at": event["at"],
    }


@outgoing("ack")
def ack(*, n: int) -> dict[str, Any]:
    """A command stored; what it changed comes as a new `room`."""
    return {"t": "ack", "n": n}
