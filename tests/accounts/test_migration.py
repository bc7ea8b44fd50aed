"""The migration that brings in the nickname rule keeps every player and makes every nickname legal
and unique."""

from __future__ import annotations

from accounts.nicknames import nickname_clean, nickname_key
from tests.schema import migrate


def test_existing_players_get_legal_unique_nicknames_and_none_is_lost(schema_restored):
    OldPlayer = migrate([("accounts", "0001_initial")]).get_model("accounts", "Player")
    old = ["Guest 4152", "Guest 4152", "Ada", "ADA", "<script>", "  ", "a" * 32, "Grace Hopper"]
    ids = [OldPlayer.objects.create(nickname=nickname).pk for nickname in old]

    Player = migrate([("accounts", "0003_nickname_key_unique")]).get_model("accounts", "Player")

    players = {player.pk: player for player in Player.objects.filter(pk__in=ids)}
    assert sorted(players) == sorted(ids)
    nicknames = [players[pk].nickname for pk in ids]
    assert all(nickname_clean(nickname) == nickname for nickname in nicknames)
    assert len({nickname_key(nickname) for nickname in nicknames}) == len(ids)
    assert nicknames[0] == "Guest-4152" and nicknames[1] == f"Guest-4152-{ids[1]}"
    assert nicknames[2] == "Ada" and nicknames[3] == f"ADA-{ids[3]}"
    assert nicknames[4] == "script" and nicknames[5] == f"Player-{ids[5]}" and nicknames[6] == "a" * 20
    assert nicknames[7] == "Grace-Hopper"
    assert [players[pk].nickname_chosen for pk in ids[:3]] == [False, False, True]
