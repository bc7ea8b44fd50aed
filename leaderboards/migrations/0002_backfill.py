"""The boards' rows of the ranked daily attempts finished before the read model existed, their counts by
score, and their players' all-time records (none was ever flagged: flags came with the read model)."""

import datetime
from collections import Counter
from itertools import groupby

from django.db import migrations


def longest_run(dates):
    longest = run = 0
    previous = None
    for date in dates:
        run = run + 1 if previous is not None and date - previous == datetime.timedelta(days=1) else 1
        longest = max(longest, run)
        previous = date
    return longest, run


def backfill(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    DailyEntry = apps.get_model("leaderboards", "DailyEntry")
    DailyRecord = apps.get_model("leaderboards", "DailyRecord")
    DailyScoreCount = apps.get_model("leaderboards", "DailyScoreCount")
    finished = (
        Game.objects.filter(ranked=True, status="finished", deal__daily_date__isnull=False)
        .values_list("pk", "deal__daily_date", "player_id", "score", "seconds", "piles", "finished_at")
        .order_by("player_id", "deal__daily_date")
    )
    entries = [
        DailyEntry(
            game_id=pk, date=date, player_id=player, score=score or 0, seconds=seconds or 0, piles=piles,
            finished_at=finished_at, on_board=True,
        )
        for pk, date, player, score, seconds, piles, finished_at in finished
    ]
    DailyEntry.objects.bulk_create(entries, batch_size=1000)
    counts = Counter((entry.date, entry.score, entry.piles) for entry in entries)
    DailyScoreCount.objects.bulk_create(
        [
            DailyScoreCount(date=date, score=score, piles=piles, players=players)
            for (date, score, piles), players in counts.items()
        ],
        batch_size=1000,
    )
    records = []
    for player, rows in groupby(entries, key=lambda entry: entry.player_id):
        days = list(rows)
        longest, current = longest_run([entry.date for entry in days])
        records.append(
            DailyRecord(
                player_id=player, days=len(days), wins=sum(entry.piles == 1 for entry in days),
                longest_streak=longest, current_streak=current, last_date=days[-1].date,
            )
        )
    DailyRecord.objects.bulk_create(records, batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0001_initial"),
    ]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
