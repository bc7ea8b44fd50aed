"""The migration that brings in the boards' read model fills it from the ranked daily attempts already
finished: their rows, their counts by score and their players' records."""

from __future__ import annotations

import datetime

from tests.schema import migrate, newest_migrations

DAY = datetime.date(2026, 11, 27)


def test_finished_ranked_attempts_get_their_rows_counts_and_records(schema_restored):
    migrate([("leaderboards", None)])
    old = migrate([node for node in newest_migrations() if node[0] != "leaderboards"])
    Player, Deal, Game = (
        old.get_model(*name) for name in (("accounts", "Player"), ("games", "Deal"), ("games", "Game"))
    )
    ada = Player.objects.create(nickname="Ada", nickname_key="ada")
    grace = Player.objects.create(nickname="Grace", nickname_key="grace")
    noon = datetime.datetime.combine(DAY, datetime.time(12), tzinfo=datetime.UTC)

    def game(player, date, *, piles, score, ranked=True, status="finished"):
        deal, _ = Deal.objects.get_or_create(daily_date=date, defaults={"cards": []})
        return Game.objects.create(
            player=player, deal=deal, mode="daily", ranked=ranked, status=status, started_at=noon,
            finished_at=noon, piles=piles, score=score, seconds=60,
        )  # fmt: skip

    won = game(ada, DAY, piles=1, score=2150)
    game(ada, DAY - datetime.timedelta(days=1), piles=10, score=420)
    lost = game(grace, DAY, piles=10, score=420)
    game(grace, DAY, piles=52, score=0, ranked=False)
    game(grace, DAY - datetime.timedelta(days=1), piles=52, score=0, status="playing")

    new = migrate([("leaderboards", "0002_backfill")])
    DailyEntry, DailyScoreCount, DailyRecord = (
        new.get_model("leaderboards", name) for name in ("DailyEntry", "DailyScoreCount", "DailyRecord")
    )
    assert sorted(DailyEntry.objects.filter(date=DAY).values_list("game_id", flat=True)) == sorted([won.pk, lost.pk])
    assert set(DailyScoreCount.objects.filter(date=DAY).values_list("score", "piles", "players")) == {
        (2150, 1, 1), (420, 10, 1),
    }  # fmt: skip
    record = DailyRecord.objects.get(player_id=ada.pk)
    assert (record.days, record.wins, record.longest_streak, record.last_date) == (2, 1, 2, DAY)
