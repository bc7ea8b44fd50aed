"""Reads of the watching feature: who may watch a game, why someone else's game will not open, which
games are live (and featured), and how many watch them."""

from __future__ import annotations

import datetime
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q
from django.utils.translation import gettext as _

from accounts.models import Player
from games import events, withheld
from games.errors import GameError
from games.models import Game, GameEvent
from games.selectors import game_get, game_visible_to
from realtime.presence import store

# A game in progress whose newest event is older than this is not live: its player has walked away.
LIVE_IDLE = datetime.timedelta(minutes=10)
# The live list shows at most this many games, the most interesting first.
LIVE_LIMIT = 100
# How a watcher socket counts in its game's presence (realtime/presence.py).
WATCHER = "watcher"


class WatchRefused(GameError):
    """The game exists, but this viewer may not watch it (`not_watchable` or `spoiler`): close 4403."""

    code = "not_allowed"
    status = 403


def watch_admit(*, game_id: int, viewer: Player | None, today: datetime.date) -> Game:
    """The game, with its deal and player, if `viewer` may watch it, else GameNotFound or WatchRefused
    (games/withheld.py: a daily deal's moves reach nobody but its player till the day is over)."""
    game = game_get(game_id=game_id)
    if viewer is not None and game.player_id == viewer.pk:
        return game
    if not game.player.watchable:
        raise WatchRefused(
            _("%(nickname)s does not let others watch their games") % {"nickname": game.player.nickname},
            code="not_watchable",
        )
    if withheld.line_withheld(game=game, viewer=viewer, today=today):
        raise WatchRefused(
            _("this game is on today's daily deal: its moves stay hidden until the day ends (midnight UTC)"),
            code="spoiler",
        )
    if viewer is not None and Game.objects.filter(player=viewer, deal=game.deal, status=Game.Status.PLAYING).exists():
        raise WatchRefused(_("you are playing this deal yourself: finish your game first"), code="spoiler")
    return game


@dataclass(frozen=True, slots=True)
class Unseen:
    """Why a viewer cannot open someone else's game, and where to go instead: its live view or the board."""

    title: str
    reason: str
    watchable: bool = False
    board: bool = False


def game_unseen(*, game: Game, viewer: Player | None, today: datetime.date) -> Unseen | None:
    """Why `viewer` cannot open `game` on its page, or None when they can. The page says it only once the
    API has refused the game, which never tells a stranger why."""
    if game_visible_to(game=game, player=viewer, today=today):
        return None
    nickname = game.player.nickname
    hidden = _(
        "Replays of today's games open when the day ends (midnight UTC), so that nobody can copy a line "
        "while it still counts."
    )
    if game.status == Game.Status.FINISHED:  # on a daily deal whose day is not over
        played = _("%(nickname)s played it on today's daily deal.") % {"nickname": nickname}
        return Unseen(
            title=_("%(nickname)s's game is hidden until the day ends") % {"nickname": nickname},
            reason=f"{played} {hidden}",
            board=True,
        )
    title = _("%(nickname)s is playing this game") % {"nickname": nickname}
    if withheld.line_withheld(game=game, viewer=viewer, today=today):
        playing = _("%(nickname)s is playing it on today's daily deal, which nobody else can watch.")
        return Unseen(title=title, reason=f"{playing % {'nickname': nickname}} {hidden}", board=True)
    try:
        watch_admit(game_id=game.pk, viewer=viewer, today=today)
    except WatchRefused as refusal:
        reason = _("Only its player can open a game in play, and you cannot watch it live either: %(why)s.")
        return Unseen(title=title, reason=reason % {"why": refusal.message})
    reason = _("Only its player can open a game in play, but you can watch it live, move by move.")
    return Unseen(title=title, reason=reason, watchable=True)


@dataclass(frozen=True, slots=True)
class LiveGame:
    id: int
    player: str
    mode: str
    piles: int
    started_at: datetime.datetime
    watchers: int
    race: str | None
    daily_date: datetime.date | None
    withheld: bool  # on a daily deal whose day is not over: listed, but nobody may watch it

    @property
    def ws(self) -> str:
        return f"/ws/watch/{self.id}/"

    def seconds(self, now: datetime.datetime) -> int:
        return max(0, int((now - self.started_at).total_seconds()))


def crowd_totals(game_ids: Collection[int]) -> dict[int, int]:
    """Each game's watchers over every process: the live list's, and a socket's count as it arrives."""
    found = store().seen_many({events.group_name(game): [WATCHER] for game in game_ids})
    return {game: found[events.group_name(game)][WATCHER].present for game in game_ids}


def live_games(*, now: datetime.datetime) -> list[LiveGame]:
    """The games being played (newest event within LIVE_IDLE) that their players let others watch: the
    most watched first, then the closest to a win. Today's daily games are listed but `withheld`."""
    recent = GameEvent.objects.filter(game=OuterRef("pk"), v=OuterRef("version"), at__gte=now - LIVE_IDLE)
    rows = list(
        Game.objects.filter(status=Game.Status.PLAYING, player__watchable=True)
        .filter(Exists(recent))
        .values_list("pk", "player__nickname", "mode", "piles", "started_at", "race_code", "deal__daily_date")
    )
    watchers = crowd_totals([row[0] for row in rows])
    games = [
        LiveGame(
            id=pk,
            player=nickname,
            mode=mode,
            piles=piles,
            started_at=started_at,
            watchers=watchers.get(pk, 0),
            race=race_code or None,
            daily_date=daily_date,
            withheld=withheld.day_secret(daily_date, today=now.date()),
        )
        for pk, nickname, mode, piles, started_at, race_code, daily_date in rows
    ]
    games.sort(key=lambda game: (-game.watchers, game.piles, -game.id))
    return games[:LIVE_LIMIT]


# The featured game (TV) is picked among this many of the most watched live games.
MOST_WATCHED = 10


def featured_game(*, now: datetime.datetime, viewer: Player | None, leaders: Sequence[int] = ()) -> LiveGame | None:
    """The game the home page and /tv show `viewer`: the first of `leaders` (an arena's, best first)
    that is live, else the fewest piles among the MOST_WATCHED most watched; never one they could not
    watch (withheld, their own, or on a deal they are playing)."""
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
    leader = next((by_id[game_id] for game_id in leaders if game_id in by_id), None)
    return leader or min(live[:MOST_WATCHED], key=lambda game: (game.piles, -game.watchers, -game.id), default=None)
