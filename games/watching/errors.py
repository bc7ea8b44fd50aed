"""Why a watcher may not watch a game (sent as the `refused` message's code before close 4403)."""

from __future__ import annotations

from games.errors import GameError


class WatchRefused(GameError):
    """The game exists, but this viewer may not watch it: the player opted out (`not_watchable`), or it
    would spoil a deal the viewer still has to play (`spoiler`)."""

    code = "not_allowed"
    status = 403
