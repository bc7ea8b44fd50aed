"""Nickname keys read the look-alike letters of the Latin, Greek, Cyrillic, Armenian and Cherokee alphabets
as one letter (accounts/nicknames.py): every player's key is recomputed.

Existing players keep their nicknames. Where two of them now have the same key, the older (by creation)
keeps it and each later one is set apart with "<key>#<player id>" (nicknames.SET_APART): a "#" is in no
nickname, so that key can be no one else's. The selector still finds a set-apart player by their own
spelling, and any other spelling of the key finds the older one.
"""

from django.db import migrations

from accounts.nicknames import nickname_key, nickname_key_set_apart


def read_look_alikes_as_one(apps, schema_editor):
    Player = apps.get_model("accounts", "Player")
    taken, changed = set(), {}
    rows = Player.objects.order_by("created_at", "pk").values_list("pk", "nickname", "nickname_key")
    for player_id, nickname, old_key in rows.iterator(chunk_size=2000):
        key = nickname_key(nickname)
        if key in taken:
            key = nickname_key_set_apart(key, player_id=player_id)
        taken.add(key)
        if key != old_key:
            changed[player_id] = key
    # A new key may be one another row still holds until it is rewritten too: every changed row first takes
    # a placeholder no key can be ("#<id>"), then its new key.
    placeholders = [Player(pk=player_id, nickname_key=f"#{player_id}") for player_id in changed]
    Player.objects.bulk_update(placeholders, ["nickname_key"], batch_size=1000)
    keys = [Player(pk=player_id, nickname_key=key) for player_id, key in changed.items()]
    Player.objects.bulk_update(keys, ["nickname_key"], batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0004_player_watchable"),
    ]

    operations = [
        migrations.RunPython(read_look_alikes_as_one, migrations.RunPython.noop),
    ]
