"""The JSON shapes of arenas (docs/api.md, "Arenas", and /api/schema/): the REST answers and the arena
socket's messages alike."""

from __future__ import annotations

import datetime
from typing import Any

from rest_framework import serializers

from accordion_site.serializers import ClosedInputSerializer
from games.models import Game
from games.serializers import GameSerializer

from .models import MAX_MINUTES, MAX_STARTS_IN, MIN_MINUTES, Arena, Participant
from .selectors import STANDINGS_LIMIT, Standings


class ArenaCreateInputSerializer(ClosedInputSerializer):
    minutes = serializers.IntegerField(
        min_value=MIN_MINUTES, max_value=MAX_MINUTES, help_text="How long the arena runs: 1 to 120 minutes."
    )
    starts_in = serializers.IntegerField(
        min_value=0, max_value=MAX_STARTS_IN, default=0, help_text="Seconds from now to the start: 0 to 604800."
    )


class StandingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1, 2, 3, …: equal points go to whoever reached them first.")
    player = serializers.IntegerField()
    nickname = serializers.CharField()
    points = serializers.IntegerField()
    games = serializers.IntegerField(help_text="Games counted: finished, and not held for a fair-play review.")
    wins = serializers.IntegerField()
    fire = serializers.BooleanField(help_text="On fire: the last game was a win, so a win now earns its bonus twice.")
    game = serializers.IntegerField(allow_null=True, help_text="The participant's newest game, to watch.")


class ArenaSerializer(serializers.Serializer):
    code = serializers.CharField()
    url = serializers.CharField(help_text="The arena's page.")
    kind = serializers.ChoiceField(choices=Arena.Kind.choices, help_text="players: made by a player; else the site's.")
    minutes = serializers.IntegerField()
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    state = serializers.ChoiceField(choices=Arena.State.choices)
    players = serializers.IntegerField(help_text="Participants so far.")
    commitment = serializers.CharField(help_text="SHA-256 of the seed the deals come from (docs/rules.md).")
    seed = serializers.CharField(allow_null=True, help_text="The deals' seed, published once the arena is over.")
    server_now = serializers.DateTimeField(help_text="The server's clock, to count down.")


class ArenaListSerializer(serializers.Serializer):
    upcoming = ArenaSerializer(many=True)
    live = ArenaSerializer(many=True)
    finished = ArenaSerializer(many=True)


class ArenaDetailSerializer(ArenaSerializer):
    standings = StandingRowSerializer(many=True, help_text=f"The top {STANDINGS_LIMIT} rows, best first.")
    me = StandingRowSerializer(allow_null=True, help_text="Your own row; null if you have not joined.")


class ArenaJoinSerializer(ArenaDetailSerializer):
    game = GameSerializer(allow_null=True, help_text="Your current game while the arena runs; else null.")


class ArenaNextSerializer(serializers.Serializer):
    game = GameSerializer(help_text="Your next game, on the next deal.")


class ArenaGameRowSerializer(serializers.Serializer):
    k = serializers.IntegerField(help_text="The deal's place in the arena: 1 for everyone's first game.")
    game = serializers.IntegerField()
    replay = serializers.CharField(help_text="The game's replay page.")
    status = serializers.ChoiceField(choices=Game.Status.choices)
    piles = serializers.IntegerField()
    score = serializers.IntegerField(allow_null=True)
    points = serializers.IntegerField(allow_null=True, help_text="What it counted for; null: not (yet) counted.")
    fire = serializers.BooleanField()


class ResultRowSerializer(StandingRowSerializer):
    arena_games = ArenaGameRowSerializer(many=True, help_text="Every game, deal 1 first.")


class ArenaResultsSerializer(ArenaSerializer):
    results = ResultRowSerializer(many=True)


class PlayerArenaSerializer(ArenaSerializer):
    rank = serializers.IntegerField()
    points = serializers.IntegerField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()


def arena_fields(arena: Arena, *, now: datetime.datetime, players: int | None = None) -> dict[str, Any]:
    """The arena as every answer shows it (`players` counted unless given or annotated)."""
    state = arena.state(now)
    if players is None:
        players = getattr(arena, "players", None)
        if players is None:
            players = arena.participants.count()
    return {
        "code": arena.code,
        "url": f"/arenas/{arena.code}",
        "kind": arena.kind,
        "minutes": arena.minutes,
        "starts_at": arena.starts_at,
        "ends_at": arena.ends_at,
        "state": state,
        "players": players,
        "commitment": arena.commitment,
        "seed": arena.seed if state == Arena.State.FINISHED else None,
        "server_now": now,
    }


def arena_payload(arena: Arena, *, now: datetime.datetime) -> dict[str, Any]:
    return ArenaSerializer(arena_fields(arena, now=now)).data  # type: ignore[no-any-return]


def arena_list_payload(lists: dict[str, list[Arena]], *, now: datetime.datetime) -> dict[str, Any]:
    return ArenaListSerializer(  # type: ignore[no-any-return]
        {part: [arena_fields(arena, now=now) for arena in arenas] for part, arenas in lists.items()}
    ).data


def arena_detail_payload(
    arena: Arena, table: Standings, *, player_id: int | None, now: datetime.datetime, limit: int = STANDINGS_LIMIT
) -> dict[str, Any]:
    return ArenaDetailSerializer(  # type: ignore[no-any-return]
        {
            **arena_fields(arena, now=now, players=table.players),
            "standings": table.rows[:limit],
            "me": table.by_player.get(player_id) if player_id is not None else None,
        }
    ).data


def arena_join_payload(
    arena: Arena, table: Standings, participant: Participant, *, now: datetime.datetime
) -> dict[str, Any]:
    live = arena.state(now) == Arena.State.LIVE
    return ArenaJoinSerializer(  # type: ignore[no-any-return]
        {
            **arena_fields(arena, now=now, players=table.players),
            "standings": table.rows[:STANDINGS_LIMIT],
            "me": table.by_player.get(participant.player_id),
            "game": participant.game if live else None,
        },
        context={"now": now},
    ).data


def arena_game_row(row: Any) -> dict[str, Any]:
    game = row.game
    return {
        "k": row.k,
        "game": game.pk,
        "replay": f"/games/{game.pk}/replay",
        "status": game.status,
        "piles": game.piles,
        "score": game.score,
        "points": row.points,
        "fire": row.fire,
    }


def arena_results_payload(arena: Arena, results: list[dict[str, Any]], *, now: datetime.datetime) -> dict[str, Any]:
    rows = [{**row, "arena_games": [arena_game_row(game) for game in row["arena_games"]]} for row in results]
    return ArenaResultsSerializer(  # type: ignore[no-any-return]
        {**arena_fields(arena, now=now, players=len(results)), "results": rows}
    ).data


def player_arenas_payload(seats: list[dict[str, Any]], *, now: datetime.datetime) -> list[dict[str, Any]]:
    return PlayerArenaSerializer(  # type: ignore[return-value]
        [
            {
                **arena_fields(seat["arena"], now=now),
                "rank": seat["rank"],
                "points": seat["participant"].points,
                "games": seat["participant"].games,
                "wins": seat["participant"].wins,
            }
            for seat in seats
        ],
        many=True,
    ).data
