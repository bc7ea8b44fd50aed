"""Why a watcher may not watch a game (sent as the `refused` message's code before close 4403)."""

from __future__ import annotations

from games.errors import GameError


class WatchRefused(GameError):
    """The game exists, but this viewer may not watch it: the player opted out (`not_watchable`), or it
    is on a daily deal whose day is not over, or on a deal the viewer is playing (`spoiler`)."""

    code = "not_allowed"
    status = 403
