"""Nicknames follow the nickname rule (accounts/nicknames.py) and are unique by their key.

Existing players keep their rows: a nickname the rule refuses is mended ("Guest 4152" becomes
"Guest-4152"), and a nickname that would clash with an earlier player's gets the player's id appended.
"""

import re
import unicodedata

from django.db import migrations, models

from accounts.nicknames import NICKNAME_MAX_LENGTH, NICKNAME_MIN_LENGTH, character_allowed, nickname_key

GENERATED_GUEST = re.compile(r"Guest \d+")


def mended(text, player_id):
    spaced = re.sub(r"\s+", "-", unicodedata.normalize("NFKC", text).strip())
    kept = ""
    for character in spaced:
        if character_allowed(character, first=not kept):
            kept += character
    kept = kept[:NICKNAME_MAX_LENGTH]
    return kept if len(kept) >= NICKNAME_MIN_LENGTH else f"Player-{player_id}"


def unique_nickname(nickname, player_id, taken):
    candidate, attempt = nickname, 0
    while nickname_key(candidate) in taken:
        attempt += 1
        suffix = f"-{player_id}" if attempt == 1 else f"-{player_id}-{attempt}"
        candidate = nickname[: NICKNAME_MAX_LENGTH - len(suffix)] + suffix
    return candidate


def follow_the_nickname_rule(apps, schema_editor):
    Player = apps.get_model("accounts", "Player")
    taken = set()
    for player in Player.objects.order_by("pk").iterator(chunk_size=1000):
        nickname = unique_nickname(mended(player.nickname, player.pk), player.pk, taken)
        taken.add(nickname_key(nickname))
        player.nickname_chosen = not GENERATED_GUEST.fullmatch(player.nickname)
        player.nickname = nickname
        player.nickname_key = nickname_key(nickname)
        player.save(update_fields=["nickname", "nickname_key", "nickname_chosen"])


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="nickname_key",
            field=models.CharField(editable=False, max_length=80, null=True),
        ),
        migrations.AddField(
            model_name="player",
            name="nickname_chosen",
            field=models.BooleanField(
                default=False, help_text="False while the player still has the nickname generated for a guest."
            ),
        ),
        migrations.RunPython(follow_the_nickname_rule, migrations.RunPython.noop),
    ]
