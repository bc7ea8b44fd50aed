"""Finished games' events folded into one record each (`manage.py compact_games`, games.history): every
reader sees the game exactly as before, only games that can no longer change are folded, and a run that
is stopped or repeated loses and changes nothing."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command
from django.test import Client

from accounts.models import Player
from games import assessment, events, history
from games.models import Game, GameEvent, GameRecord
from games.races.selectors import ghost_timeline
from games.selectors import review_timeline
from games.services import game_finish, game_move, game_start, game_undo
from tests.conftest import player_client, user_client

from .sockets import game_socket

NOON = datetime.datetime(2026, 11, 29, 12, 0, tzinfo=datetime.UTC)
DAY = NOON.date()
NEXT_DAY = DAY + datetime.timedelta(days=1)
# A page's CSRF token (in its form and its meta tag) differs from request to request.
CSRF_TOKEN = re.compile(r'(value|content)="[A-Za-z0-9]{64}"')


def at(seconds: float) -> datetime.datetime:
    return NOON + datetime.timedelta(seconds=seconds)


def played(player: Player, winning_game: dict[str, Any], *, whole_line_at_the_end: bool = False) -> Game:
    """A code game with moves a few seconds apart and an undo, won move by move, or finished by sending
    the whole line (a finish that brings its line)."""
    moves = winning_game["moves"]
    game, _ = game_start(player=player, mode="code", code=winning_game["deal_code"], now=NOON)
    for index, move in enumerate(moves[:6], start=1):
        game_move(game_id=game.pk, player=player, move=move, now=at(index * 1.25))
    game_undo(game_id=game.pk, player=player, now=at(9.5))
    if whole_line_at_the_end:
        return game_finish(game_id=game.pk, player=player, moves=moves, now=at(70.123456))
    for index, move in enumerate(moves[5:], start=10):
        game = game_move(game_id=game.pk, player=player, move=move, now=at(index + 0.001 * index))
    return game


def readings(game_id: int, client: Client) -> dict[str, Any]:
    """What players, clients, ghosts and staff read of a game."""
    game = Game.objects.select_related("deal", "player").get(pk=game_id)
    return {
        "replay": client.get(f"/api/games/{game_id}/events").json(),
        "replay from v3": client.get(f"/api/games/{game_id}/events?after=3").json(),
        "resume from v2": [out.frame for out in events.events_after(game=game, v=2, limit=1000) or []],
        "ghost": ghost_timeline(game=game),
        "timed": assessment.timed_events(game),
        "review": review_timeline(game=game),
        "game": {**client.get(f"/api/games/{game_id}").json(), "server_now": None},
        "profile": client.get(f"/api/players/{game.player.nickname}").json(),
    }


def rows_of(game: Game) -> tuple[int, int]:
    return GameEvent.objects.filter(game=game).count(), GameRecord.objects.filter(game=game).count()


@pytest.mark.django_db
@pytest.mark.parametrize("whole_line_at_the_end", [False, True])
def test_a_compacted_game_reads_exactly_as_before(player, winning_game, whole_line_at_the_end):
    game = played(player, winning_game, whole_line_at_the_end=whole_line_at_the_end)
    client = player_client(player)
    before = readings(game.pk, client)
    assert rows_of(game) == (game.version, 0)

    assert history.compact_games(today=NEXT_DAY, batch=10, limit=None) == (1, game.version)

    assert rows_of(game) == (0, 1)
    assert readings(game.pk, client) == before
    assert len(before["replay"]["events"]) == game.version


@pytest.mark.django_db
def test_the_command_folds_every_finished_game_and_a_second_run_changes_nothing(player, other_player, winning_game):
    games = [played(player, winning_game), played(other_player, winning_game, whole_line_at_the_end=True)]
    call_command("compact_games", batch=1)
    assert [rows_of(game) for game in games] == [(0, 1), (0, 1)]
    stored = sorted(GameRecord.objects.values_list("game_id", "events", "line"))

    assert history.compact_games(today=NEXT_DAY, batch=1, limit=None) == (0, 0)
    call_command("compact_games")
    assert sorted(GameRecord.objects.values_list("game_id", "events", "line")) == stored


@pytest.mark.django_db
def test_limit_bounds_a_run(player, other_player, winning_game):
    games = [played(player, winning_game), played(other_player, winning_game)]
    assert history.compact_games(today=NEXT_DAY, batch=5, limit=1)[0] == 1
    assert sorted(rows_of(game) for game in games) == [(0, 1), (games[1].version, 0)]


@pytest.mark.django_db
def test_a_game_in_play_keeps_its_rows(player, winning_game):
    game, _ = game_start(player=player, mode="code", code=winning_game["deal_code"], now=NOON)
    game = game_move(game_id=game.pk, player=player, move=winning_game["moves"][0], now=at(1))
    assert history.compact_games(today=NEXT_DAY, batch=10, limit=None) == (0, 0)
    assert rows_of(game) == (2, 0)


@pytest.mark.django_db
def test_a_daily_is_folded_only_once_its_day_is_over_and_reads_as_before(winning_game):
    ranked = Player.objects.create(nickname="Ranked")
    game, _ = game_start(player=ranked, mode="daily", now=NOON)
    solution = game.deal.solution
    for index, move in enumerate(solution[:4], start=1):
        game_move(game_id=game.pk, player=ranked, move=move, now=at(3 * index))
    game = game_finish(game_id=game.pk, player=ranked, moves=solution, now=at(95))
    practice, _ = game_start(player=ranked, mode="daily", now=at(200))
    practice = game_finish(game_id=practice.pk, player=ranked, moves=solution[:3], now=at(230))
    staff, owner = user_client(staff=True), player_client(ranked)
    board = f"/api/leaderboards/daily/{DAY.isoformat()}"

    def daily_readings() -> dict[str, Any]:
        page = staff.get(f"/staff/review/{game.pk}/")
        assert page.status_code == 200
        return {
            "board": owner.get(board).json(),
            "mine": owner.get(f"{board}/me").json(),
            "review page": CSRF_TOKEN.sub("", page.content.decode()),
            "attempt": readings(game.pk, owner),
            "practice": readings(practice.pk, owner),
        }

    before = daily_readings()
    assert history.compact_games(today=DAY, batch=10, limit=None) == (0, 0)  # the day is not over
    assert rows_of(game) == (game.version, 0)

    assert history.compact_games(today=NEXT_DAY, batch=10, limit=None)[0] == 2
    assert [rows_of(game), rows_of(practice)] == [(0, 1), (0, 1)]
    assert daily_readings() == before


@pytest.mark.django_db
def test_a_run_stopped_mid_batch_loses_nothing_and_the_next_one_folds_it_all(
    player, other_player, winning_game, monkeypatch
):
    games = [played(player, winning_game), played(other_player, winning_game)]
    client = player_client(player)
    before = readings(games[0].pk, client)
    write_records = GameRecord.objects.bulk_create

    def written_then_stopped(*args: Any, **kwargs: Any) -> None:
        write_records(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(GameRecord.objects, "bulk_create", written_then_stopped)
    with pytest.raises(KeyboardInterrupt):
        history.compact_games(today=NEXT_DAY, batch=10, limit=None)
    assert [rows_of(game) for game in games] == [(games[0].version, 0), (games[1].version, 0)]
    assert readings(games[0].pk, client) == before

    monkeypatch.undo()
    assert history.compact_games(today=NEXT_DAY, batch=10, limit=None)[0] == 2
    assert readings(games[0].pk, client) == before


@pytest.mark.django_db
def test_events_stored_after_a_fold_are_read_after_the_record(player, winning_game):
    game = played(player, winning_game)
    history.compact_games(today=NEXT_DAY, batch=10, limit=None)
    late = GameEvent.objects.create(game=game, v=game.version + 1, kind="hint", piles=1, at=at(600))
    Game.objects.filter(pk=game.pk).update(version=late.v)
    game.refresh_from_db()
    read = [(event.v, event.kind) for event in history.game_events(game, since=game.version - 2)]
    assert read == [(game.version - 1, "finish"), (game.version, "hint")]
    assert [event.v for event in history.game_events(game)] == list(range(1, game.version + 1))


@pytest.mark.django_db
@pytest.mark.parametrize("missing", [3, "last move"])
def test_a_history_with_a_gap_is_left_as_rows(player, winning_game, missing):
    game = played(player, winning_game, whole_line_at_the_end=True)
    GameEvent.objects.filter(game=game, v=3 if missing == 3 else game.version - 1).delete()
    if missing != 3:  # the finish stays, one version down: only the game's version tells
        GameEvent.objects.filter(game=game, v=game.version).update(v=game.version - 1)
    assert history.compact_games(today=NEXT_DAY, batch=10, limit=None) == (0, 0)
    assert rows_of(game) == (game.version - 1, 0)


@pytest.mark.django_db(transaction=True)
async def test_a_socket_resuming_a_compacted_game_gets_the_missed_events_as_before(player, winning_game):
    game = await sync_to_async(played)(player, winning_game)
    stored = await sync_to_async(events.events_after)(game=game, v=game.version - 3, limit=1000)
    assert stored is not None
    await sync_to_async(history.compact_games)(today=NEXT_DAY, batch=10, limit=None)
    assert await sync_to_async(rows_of)(game) == (0, 1)

    socket = await game_socket(game.pk, player, v=game.version - 3)
    accepted, _ = await socket.connect()
    assert accepted
    assert [await socket.receive_from() for _ in range(3)] == [event.frame for event in stored]
    assert await socket.receive_nothing(timeout=0.2)
    await socket.disconnect()
