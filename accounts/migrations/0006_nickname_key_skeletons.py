"""Nickname keys read look-alikes by Unicode's UTS #39 skeleton (ICU) in any script, with i, l and 1 as one
letter and 0 as o (accounts/nicknames.py): every player's key is recomputed, as accounts/0005 did: where
two players now share a key the older keeps it and each later one is set apart ("<key>#<player id>")."""

from importlib import import_module

from django.db import migrations

recompute_keys = import_module("accounts.migrations.0005_nickname_key_look_alikes").read_look_alikes_as_one


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_nickname_key_look_alikes"),
    ]

    operations = [
        migrations.RunPython(recompute_keys, migrations.RunPython.noop),
    ]
