"""The featured game (TV): the one live game the home page and /tv show.

An arena's leader comes first when one is in play (the caller names the leaders' games: arenas sit
above games); otherwise, among the most watched live games, the one closest to a win. Only games
anyone may watch are featured: not a withheld one (today's daily), and not one the viewer could not
open (their own, or one on a deal they are playing themselves, which the watch socket refuses).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from django.db.models import Q

from accounts.models import Player
from games.models import Game

from .selectors import LiveGame, live_games

# The closest to a win is picked among this many of the most watched live games.
MOST_WATCHED = 10


def featured_game(*, now: datetime.datetime, viewer: Player | None, leaders: Sequence[int] = ()) -> LiveGame | None:
    """The game to feature for `viewer`: the first of `leaders` (game ids, best first) that is live and
    open to them, else the fewest piles among the MOST_WATCHED most watched (then the more watched, then
    the newest), or None when nothing is live."""
    live = [game for game in live_games(now=now) if not game.withheld]
    if viewer is not None and live:
        own_deals = Game.objects.filter(player=viewer, status=Game.Status.PLAYING).values("deal_id")
        closed = set(
            Game.objects.filter(pk__in=[game.id for game in live])
            .filter(Q(player=viewer) | Q(deal_id__in=own_deals))
            .values_list("pk", flat=True)
        )
        live = [game for game in live if game.id not in closed]
    by_id = {game.id: game for game in live}
    for leader in leaders:
        if leader in by_id:
            return by_id[leader]
    watched = live[:MOST_WATCHED]  # live_games puts the most watched first
    return min(watched, key=lambda game: (game.piles, -game.watchers, -game.id), default=None)
