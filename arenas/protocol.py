"""The messages of the arena socket /ws/arenas/<code>/ (docs/api.md, "Arenas")."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from realtime.protocol import ProtocolError, encode, outgoing, reject


@outgoing("arena")
def arena(*, arena: dict[str, Any], standings: list[dict[str, Any]], me: dict[str, Any] | None, spectators: int) -> str:
    """The first message: the arena (as GET /api/arenas/<code>, with `players`), the top ten, your own row
    and how many spectators (sockets of anyone not taking part) follow the arena."""
    return encode({"t": "arena", "arena": arena, "standings": standings, "me": me, "spectators": spectators})


@outgoing("standings")
def standings(*, top: str, me: str, players: int, spectators: int, at: float) -> str:
    """The standings after a change that this socket sees, at most once a second: the top ten (`top`) and
    your own row (`me`, null for a spectator), both already encoded, the number of players and of
    spectators, and `at`, the server's clock (Unix seconds) when they were read: a client knows from it
    which changes they include."""
    return (
        '{"t": "standings", "standings": ' + top + ', "me": ' + me + ', "players": ' + str(players)
        + ', "spectators": ' + str(spectators) + ', "at": ' + f"{at:.3f}" + "}"
    )  # fmt: skip


@outgoing("next")
def next_game(*, game: dict[str, Any]) -> str:
    """Your next game, on the next deal, sent the moment your game ends (and at the start): the same game
    object as GET /api/games/<id>, played on its own socket `ws`."""
    return encode({"t": "next", "game": game})


@outgoing("ended")
def ended(*, arena: dict[str, Any], standings: list[dict[str, Any]], me: dict[str, Any] | None) -> str:
    """The arena is over: the games in play were counted as they stood; the final standings, and the
    arena with its seed published."""
    return encode({"t": "ended", "arena": arena, "standings": standings, "me": me})


def not_participant(n: int | None) -> str:
    """The answer to a command from someone who has not joined (a spectator), in the socket's language."""
    return encode(reject(n=n, error=_("spectators only watch: join the arena to play in it"), code="not_participant"))


# What a client may send: a participant's request for the next game.
CLIENT_KINDS = frozenset({"next"})


def parse(content: dict[str, Any]) -> str:
    """The one command a participant sends: {"t": "next", "n": …}, for the next game (as POST …/next)."""
    if content.get("t") != "next":
        raise ProtocolError(_('unknown message: the arena socket takes only {"t": "next"}'))
    return "next"
