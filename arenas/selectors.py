"""Reads about arenas: the lists, one arena with its standings, a player's arenas and an arena's results."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, QuerySet
from django.utils.translation import gettext as _

from accounts.models import Player
from games.models import Game

from .errors import ArenaNotFound
from .models import Arena, ArenaGame, Participant

# The arenas each part of the list shows, and the rows of the standings an arena's read shows.
LIST_LIMIT = 50
STANDINGS_LIMIT = 100
# The rows the socket pushes: the top ten (and each socket's own row).
TOP = 10


def normalize_arena_code(code: str) -> str:
    return code.strip().upper().replace("-", "")


def arena_get(*, code: str) -> Arena:
    arena = Arena.objects.filter(code=normalize_arena_code(code)).first()
    if arena is None:
        raise ArenaNotFound(_("there is no arena %(code)s") % {"code": code})
    return arena


def takes_part(*, arena_id: int, player_id: int | None) -> bool:
    """Whether the player has joined the arena (None, a visitor without a player: no)."""
    return player_id is not None and Participant.objects.filter(arena_id=arena_id, player_id=player_id).exists()


@dataclass(frozen=True, slots=True)
class Standings:
    """Every participant's row, best first (`rank` 1, 2, 3, …: ties go to who reached the total first),
    and each player's row by player id."""

    rows: list[dict[str, Any]]
    by_player: dict[int, dict[str, Any]]

    @property
    def players(self) -> int:
        return len(self.rows)


def standings(*, arena_id: int, limit: int | None = None) -> Standings:
    """The arena's standings, one query."""
    found = (
        Participant.objects.filter(arena_id=arena_id)
        .order_by("-points", "reached_at", "id")
        .values_list("player_id", "player__nickname", "points", "games", "wins", "fire", "game_id")
    )
    rows: list[dict[str, Any]] = []
    by_player: dict[int, dict[str, Any]] = {}
    for rank, (player_id, nickname, points, games, wins, fire, game_id) in enumerate(found, start=1):
        row = {
            "rank": rank,
            "player": player_id,
            "nickname": nickname,
            "points": points,
            "games": games,
            "wins": wins,
            "fire": fire,
            "game": game_id,
        }
        rows.append(row)
        by_player[player_id] = row
    return Standings(rows=rows[:limit] if limit is not None else rows, by_player=by_player)


def _with_players(arenas: QuerySet[Arena]) -> QuerySet[Arena]:
    return arenas.annotate(players=Count("participants"))


def arena_lists(*, now: datetime.datetime) -> dict[str, list[Arena]]:
    """Upcoming arenas (soonest first), live ones (ending soonest first) and the newest finished ones,
    each with `players` annotated."""
    arenas = _with_players(Arena.objects.all())
    return {
        "upcoming": list(arenas.filter(starts_at__gt=now).order_by("starts_at", "id")[:LIST_LIMIT]),
        "live": list(arenas.filter(starts_at__lte=now, ends_at__gt=now).order_by("ends_at", "id")[:LIST_LIMIT]),
        "finished": list(arenas.filter(ends_at__lte=now).order_by("-ends_at", "-id")[:LIST_LIMIT]),
    }


def site_arenas_now(*, now: datetime.datetime, limit: int) -> list[Arena]:
    """The site's own arenas (not players') live now, ending soonest first, else the next to start: what
    the home page shows, each with `players` annotated."""
    arenas = _with_players(Arena.objects.exclude(kind=Arena.Kind.PLAYERS))
    live = list(arenas.filter(starts_at__lte=now, ends_at__gt=now).order_by("ends_at", "id")[:limit])
    return live or list(arenas.filter(starts_at__gt=now).order_by("starts_at", "id")[:limit])


def player_arenas(*, player: Player) -> list[dict[str, Any]]:
    """The arenas a player took part in, newest first, with their row (rank among the participants)."""
    seats = Participant.objects.filter(player=player).select_related("arena").order_by("-arena__starts_at")[:100]
    found = []
    for seat in seats:
        ahead = Participant.objects.filter(arena_id=seat.arena_id, points__gt=seat.points).count()
        tied_ahead = Participant.objects.filter(
            arena_id=seat.arena_id, points=seat.points, reached_at__lt=seat.reached_at
        ).count()
        found.append({"arena": seat.arena, "rank": ahead + tied_ahead + 1, "participant": seat})
    return found


def arena_results(*, arena: Arena) -> list[dict[str, Any]]:
    """Every participant, best first, with every game they played (replayable once finished)."""
    table = standings(arena_id=arena.pk)
    games: dict[int, list[ArenaGame]] = {}
    for row in (
        ArenaGame.objects.filter(participant__arena=arena)
        .select_related("game", "participant")
        .order_by("participant_id", "k")
    ):
        games.setdefault(row.participant.player_id, []).append(row)
    return [{**row, "arena_games": games.get(row["player"], [])} for row in table.rows]


def place_if_counted(game: Game) -> tuple[str, int]:
    """Where a held arena game would put its player if it counted (its normal score added to their
    points): the arena, and the place in its standings as they are (games.selectors.review_queue)."""
    participant = ArenaGame.objects.select_related("participant__arena").get(game=game).participant
    total = participant.points + (game.score or 0)
    ahead = Participant.objects.filter(arena_id=participant.arena_id, points__gt=total).exclude(pk=participant.pk)
    return f"arena {participant.arena.code}", 1 + ahead.count()
