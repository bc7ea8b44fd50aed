"""The ranked-slot ledger: the per-address allowance counts its rows, which outlive deleted games and
players, instead of the games' own address keys (deleting an account deleted those, and freed the slots).

Every game stored with an address key took a ranked attempt from that address: each becomes a slot.
"""

import django.db.models.deletion
from django.db import migrations, models


def fill_slots(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    RankedSlot = apps.get_model("games", "RankedSlot")
    taken = Game.objects.exclude(address_key="").values_list("pk", "deal_id", "player_id", "address_key", "started_at")
    RankedSlot.objects.bulk_create(
        (
            RankedSlot(game_id=game, deal_id=deal, player_id=player, address_key=key, taken_at=started_at)
            for game, deal, player, key, started_at in taken.iterator()
        ),
        batch_size=1000,
    )


def fill_address_keys(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    RankedSlot = apps.get_model("games", "RankedSlot")
    for game, key in (
        RankedSlot.objects.filter(game__isnull=False).exclude(address_key="").values_list("game_id", "address_key")
    ):
        Game.objects.filter(pk=game).update(address_key=key)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_nickname_key_look_alikes"),
        ("games", "0007_events_by_game_and_version_only"),
    ]

    operations = [
        migrations.CreateModel(
            name="RankedSlot",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "address_key",
                    models.CharField(
                        blank=True,
                        default="",
                        help_text="A keyed hash of the client address (games.fair_play.address_key); blank for internal starts.",
                        max_length=64,
                    ),
                ),
                (
                    "own_slot",
                    models.BooleanField(
                        default=False,
                        help_text="Taken by an established account's own ranked attempt: not counted in the address's allowance.",
                    ),
                ),
                ("taken_at", models.DateTimeField()),
                (
                    "deal",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="ranked_slots", to="games.deal"
                    ),
                ),
                (
                    "game",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="ranked_slot",
                        to="games.game",
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="accounts.player",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["deal", "address_key"], name="ranked_slot_address_idx")],
            },
        ),
        migrations.RunPython(fill_slots, fill_address_keys),
        migrations.RemoveIndex(model_name="game", name="game_ranked_address_idx"),
        migrations.RemoveField(model_name="game", name="address_key"),
    ]
