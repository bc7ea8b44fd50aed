"""Typed messages of the race room socket: what a client may send, and what the server sends."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from realtime.protocol import ProtocolError, decode_frame, encode, is_whole, outgoing, reject, sequence_number

__all__ = ["ProtocolError", "encode", "reject"]

# The kinds a room socket takes (docs/api.md).
CLIENT_KINDS = ("ready", "start", "kick", "leave", "rematch", "ghost", "settings", "sync")


@dataclass(frozen=True, slots=True)
class ReadyMessage:
    n: int
    ready: bool


@dataclass(frozen=True, slots=True)
class StartMessage:
    n: int


@dataclass(frozen=True, slots=True)
class KickMessage:
    n: int
    player: int


@dataclass(frozen=True, slots=True)
class LeaveMessage:
    n: int


@dataclass(frozen=True, slots=True)
class RematchMessage:
    n: int
    confirm: bool


@dataclass(frozen=True, slots=True)
class GhostMessage:
    n: int
    game: int | None


@dataclass(frozen=True, slots=True)
class SettingsMessage:
    """None leaves a setting as it is; a `code` of "" is a fresh deal."""

    n: int
    time_limit: int | None
    code: str | None


@dataclass(frozen=True, slots=True)
class SyncMessage:
    n: int


@dataclass(frozen=True, slots=True)
class MoveMessage:
    """Always refused: moves belong on the racer's own game socket."""

    n: int


ClientMessage = (
    ReadyMessage
    | StartMessage
    | KickMessage
    | LeaveMessage
    | RematchMessage
    | GhostMessage
    | SettingsMessage
    | SyncMessage
    | MoveMessage
)

_SIMPLE: dict[str, type[StartMessage | LeaveMessage | SyncMessage]] = {
    "start": StartMessage,
    "leave": LeaveMessage,
    "sync": SyncMessage,
}
_TYPES = "'ready', 'start', 'kick', 'leave', 'rematch', 'ghost', 'settings' or 'sync'"


def parse_client_message(text: str | None) -> ClientMessage:
    """Parse one text frame from a room socket; raise ProtocolError saying what is wrong."""
    content = decode_frame(text)
    n = sequence_number(content)
    kind = content.get("t")
    if kind in _SIMPLE:
        return _SIMPLE[kind](n=n)
    if kind == "ready":
        ready = content.get("ready", True)
        if not isinstance(ready, bool):
            raise ProtocolError(_("'ready' must be true or false"), n=n)
        return ReadyMessage(n=n, ready=ready)
    if kind == "rematch":
        confirm = content.get("confirm", False)
        if not isinstance(confirm, bool):
            raise ProtocolError(_("'confirm' must be true or false"), n=n)
        return RematchMessage(n=n, confirm=confirm)
    if kind == "kick":
        player = content.get("player")
        if not is_whole(player):
            raise ProtocolError(_("'player' must be the id of the racer to kick"), n=n)
        return KickMessage(n=n, player=player)
    if kind == "ghost":
        game = content.get("game")
        if game is not None and not is_whole(game):
            raise ProtocolError(_("'game' must be the id of a finished game, or null to drop the ghost"), n=n)
        return GhostMessage(n=n, game=game)
    if kind == "settings":
        time_limit = content.get("time_limit")
        if time_limit is not None and not is_whole(time_limit):
            raise ProtocolError(_("'time_limit' must be a whole number of seconds"), n=n)
        code = (content["code"] or "") if "code" in content else None  # null or "": a fresh deal
        if code is not None and not isinstance(code, str):
            raise ProtocolError(_("'code' must be a deal code, or null for a fresh deal"), n=n)
        return SettingsMessage(n=n, time_limit=time_limit, code=code)
    if kind in ("move", "undo"):
        return MoveMessage(n=n)
    raise ProtocolError(
        _("unknown message type %(type)r: use %(types)s") % {"type": kind, "types": _TYPES}, n=n, code="unknown_type"
    )


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
    """A racer's progress, from one event of their game (as games.events encodes it for every listener)."""
    piles = event["piles"]
    result = event.get("result")
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
        "score": result["score"] if finished and result else 10 * (52 - piles),
        "moves": 52 - piles,
        "status": "finished" if finished else "playing",
        "at": event["at"],
    }


@outgoing("ack")
def ack(*, n: int) -> dict[str, Any]:
    """A command stored; what it changed comes as a new `room`."""
    return {"t": "ack", "n": n}
