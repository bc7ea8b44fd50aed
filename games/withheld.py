"""The one rule for what a daily deal's day keeps to itself, asked by every exit that sends a game out.

Until its UTC day is over, the moves of a game on a daily deal, and everything made from them, reach
nobody but its player; and the deal reaches nobody who has not started a game on it. A game's every
outward form carries its deal with its moves (the game JSON, its events, a watcher's `state`, a ghost
and the race room racing it), so one question answers both: who may be sent what is made from these
games? The exits that ask it (docs/fair-play.md, "No line before its day ends"):

- `GET /api/games/<id>`, its events and its analysis, the game and replay pages, the "race this game
  as a ghost" choice: `games.selectors.game_visible_to`;
- the watch socket (its `state`, its `?v=` catch-up, and so the live events after it):
  `games.watching.selectors.watch_admit`; the live list marks such games `withheld`;
- a race room (its REST read and join, its socket on connect and on every room message, its progress):
  `games.races.selectors.room_readers`.

A race can be on a daily deal only through a ghost of a game on it, so the room's deal is withheld
with the ghost's line. Profiles and leaderboards show results (score, piles, time), never a line.
"""

from __future__ import annotations

import datetime
from collections.abc import Collection, Iterable

from accounts.models import Player

from .models import Game


def day_secret(daily_date: datetime.date | None, *, today: datetime.date) -> bool:
    """Whether a deal of this daily date (None: not a daily deal) is still its day's secret: until the
    day is over, UTC."""
    return daily_date is not None and daily_date >= today


def arena_secret(secret_until: datetime.datetime | None, *, now: datetime.datetime) -> bool:
    """Whether an arena's deal still keeps its winning lines (hints, the still-winnable indicator, the
    after-game analysis) from everyone: until its arena ends, since the participants reach it one by one."""
    return secret_until is not None and now < secret_until


def readers_of(*, games: Iterable[Game], today: datetime.date) -> list[int] | None:
    """Who may be sent what is made from all of `games` at once (a race room shows each one's line):
    anyone (None) when none is on a deal that is still its day's secret; else only the player of
    those that are, or nobody ([]) if they are several players' (a reader must be each one's player)."""
    owners = {game.player_id for game in games if day_secret(game.deal.daily_date, today=today)}
    if not owners:
        return None
    return list(owners) if len(owners) == 1 else []


def admitted(readers: Collection[int] | None, viewer: Player | int | None) -> bool:
    """Whether `viewer` (a player, a player's id, or None for a visitor) is among `readers`."""
    if readers is None:
        return True
    viewer_id = viewer.pk if isinstance(viewer, Player) else viewer
    return viewer_id is not None and viewer_id in readers


def line_withheld(*, game: Game, viewer: Player | None, today: datetime.date) -> bool:
    """Whether `game`'s moves and deal, and all made from them, are kept from `viewer` today."""
    return not admitted(readers_of(games=[game], today=today), viewer)
