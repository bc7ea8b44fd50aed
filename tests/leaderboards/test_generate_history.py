"""`manage.py generate_history`: games written in bulk are games the server could have stored (gapless
versions, lines the engine replays to the stored result, times and scores that agree, the boards' rows,
counts and records as the services keep them), in either form."""

from __future__ import annotations

import datetime

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from games import engine, history
from games.models import Game, GameEvent, GameRecord, RankedSlot
from leaderboards.models import DailyEntry, DailyRecord, DailyScoreCount
from leaderboards.services import records_refresh, score_counts_recount

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("postgres")]  # the command writes by COPY

GAMES = 60
# The days the games are on: the daily deals, and so what a seed plays, do not change with the day the
# tests run (on these, seed 5 wins some games and loses others).
BEFORE = datetime.date(2026, 12, 4)


def replayed_line(game: Game) -> list[list[int]]:
    """The line the game's events give, each event's pile count checked by the engine on the way."""
    line: list[list[int]] = []
    for event in history.game_events(game):
        if event.kind == GameEvent.Kind.UNDO:
            assert line.pop() == event.move
        elif event.move is not None:
            line.append(event.move)
        assert engine.replay(game.deal.cards, line).piles == event.piles, event
    return line


def test_generated_games_are_games_the_server_could_have_stored():
    call_command("generate_history", games=GAMES, days=2, seed=5, before=BEFORE)
    games = list(Game.objects.select_related("deal").order_by("pk"))
    assert len(games) == GAMES and {game.status for game in games} == {Game.Status.FINISHED}
    kinds = {(game.mode, game.ranked) for game in games}
    assert kinds == {(Game.Mode.DAILY, True), (Game.Mode.DAILY, False), (Game.Mode.NEW, False)}
    assert {game.won for game in games} == {True, False}
    for game in games:
        stored = history.game_events(game)
        assert [event.v for event in stored] == list(range(1, game.version + 1))
        assert [stored[0].kind, stored[-1].kind] == [GameEvent.Kind.START, GameEvent.Kind.FINISH]
        assert replayed_line(game) == game.moves
        assert engine.replay(game.deal.cards, game.moves).piles == game.piles
        assert (stored[0].at, stored[-1].at) == (game.started_at, game.finished_at)
        assert game.seconds == int((game.finished_at - game.started_at).total_seconds())
        assert game.score == engine.score(game.piles, game.seconds)

    ranked = [game for game in games if game.ranked]
    assert RankedSlot.objects.filter(game__in=ranked).count() == len(ranked)
    entries = {entry.game_id: entry for entry in DailyEntry.objects.all()}
    assert sorted(entries) == [game.pk for game in ranked]
    for game in ranked:
        entry = entries[game.pk]
        assert (entry.date, entry.player_id, entry.score, entry.seconds, entry.piles, entry.finished_at) == (
            game.deal.daily_date, game.player_id, game.score, game.seconds, game.piles, game.finished_at
        )  # fmt: skip

    def boards() -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
        counts = DailyScoreCount.objects.order_by("date", "score").values_list("date", "score", "piles", "players")
        records = DailyRecord.objects.order_by("player_id").values_list(
            "player_id", "days", "wins", "longest_streak", "current_streak", "last_date"
        )
        return list(counts), list(records)

    written = boards()
    for date in {entry.date for entry in entries.values()}:
        score_counts_recount(date=date)
    records_refresh(player_ids={game.player_id for game in games})
    assert boards() == written


def test_compacting_generated_rows_gives_the_records_generate_writes_itself():
    call_command("generate_history", f"--before={BEFORE}", games=GAMES, days=2, seed=9)  # as typed
    call_command("compact_games")
    assert GameEvent.objects.count() == 0
    folded = list(GameRecord.objects.order_by("game_id").values_list("events", "line"))
    assert len(folded) == GAMES

    call_command("generate_history", games=GAMES, days=2, seed=9, before=BEFORE, compacted=True)
    written = list(GameRecord.objects.order_by("game_id").values_list("events", "line"))[GAMES:]
    assert written == folded
    assert GameEvent.objects.count() == 0


def test_on_another_database_the_command_refuses_and_writes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "vendor", "sqlite")
    with pytest.raises(CommandError, match="DATABASE_URL must name a PostgreSQL database"):
        call_command("generate_history", games=GAMES, days=2, seed=5, before=BEFORE)
    assert Game.objects.count() == 0
