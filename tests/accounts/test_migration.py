"""The migrations of nicknames keep every player: the one that brings in the nickname rule makes every
nickname legal and unique, and the one that reads look-alike letters as one keeps look-alikes apart."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Player
from accounts.nicknames import nickname_clean, nickname_folded, nickname_key
from accounts.services import ACCOUNT_USERNAME
from tests.api_client import post
from tests.conftest import player_client
from tests.schema import migrate, newest_migrations

from .conftest import PASSWORD, rename


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


PETA_IN_CYRILLIC, PETA_IN_GREEK, P14_IN_GREEK = "\u0420\u0415\u0422\u0410", "\u03a1\u0395\u03a4\u0391", "\u03a114"


def players_before_look_alikes(nicknames: list[str]) -> list[int]:
    """Players made, in this order, while keys still told look-alike alphabets apart; their ids."""
    OldPlayer = migrate([("accounts", "0004_player_watchable")]).get_model("accounts", "Player")
    return [
        OldPlayer.objects.create(nickname=nickname, nickname_key=nickname_folded(nickname)).pk for nickname in nicknames
    ]


def test_look_alikes_keep_their_nicknames_and_the_older_player_keeps_the_key(schema_restored):
    nicknames = ["PETA", PETA_IN_CYRILLIC, P14_IN_GREEK, "P14", PETA_IN_GREEK, "\u041e\u043b\u0435\u0433"]
    ids = players_before_look_alikes(nicknames)

    Player = migrate([("accounts", "0005_nickname_key_look_alikes")]).get_model("accounts", "Player")

    rows = {pk: (nickname, key) for pk, nickname, key in Player.objects.values_list("pk", "nickname", "nickname_key")}
    assert [rows[pk][0] for pk in ids] == nicknames
    peta, p14 = nickname_key("PETA"), nickname_key("P14")
    assert [rows[pk][1] for pk in ids] == [
        peta,
        f"{peta}#{ids[1]}",
        p14,  # the Greek one came first: the Latin one is set apart
        f"{p14}#{ids[3]}",
        f"{peta}#{ids[4]}",
        nickname_key("\u041e\u043b\u0435\u0433"),
    ]


def test_a_player_set_apart_still_logs_in_with_their_nickname_and_keeps_their_profile(schema_restored):
    _, later = players_before_look_alikes(["PETA", PETA_IN_CYRILLIC])
    migrate(newest_migrations())
    user = get_user_model().objects.create_user(username=ACCOUNT_USERNAME.format(id=later), password=PASSWORD)
    Player.objects.filter(pk=later).update(user=user)

    status, answer = post(
        Client(), "/api/accounts/login", {"nickname": "\u0440\u0435\u0442\u0430", "password": PASSWORD}
    )
    assert status == 200 and answer["id"] == later and answer["nickname"] == PETA_IN_CYRILLIC
    assert Client().get(f"/api/players/{PETA_IN_CYRILLIC}").json()["nickname"] == PETA_IN_CYRILLIC
    assert Client().get("/api/players/peta").json()["nickname"] == "PETA"


def test_no_one_else_can_take_a_set_apart_nickname_but_its_player_may_change_its_case(schema_restored):
    _, later = players_before_look_alikes(["PETA", PETA_IN_CYRILLIC])
    migrate(newest_migrations())
    newcomer = Player.objects.create(nickname="Newcomer")

    for spelling in ("\u0440\u0435\u0442\u0430", "Peta"):
        status, error = rename(player_client(newcomer), spelling)
        assert status == 400 and error["code"] == "nickname_taken"
    status, answer = rename(player_client(Player.objects.get(pk=later)), "\u0420\u0435\u0442\u0430")
    assert status == 200 and answer["nickname"] == "\u0420\u0435\u0442\u0430"
    assert Player.objects.get(pk=later).nickname_key == f"peta#{later}"


def test_skeleton_look_alikes_made_before_the_skeletons_keep_their_nicknames_and_the_older_keeps_the_key(
    schema_restored,
):
    OldPlayer = migrate([("accounts", "0005_nickname_key_look_alikes")]).get_model("accounts", "Player")
    ids = [
        OldPlayer.objects.create(nickname=nickname, nickname_key=nickname_folded(nickname)).pk
        for nickname in ["Alice", "AIice", "Bob"]
    ]

    Player = migrate([("accounts", "0006_nickname_key_skeletons")]).get_model("accounts", "Player")

    keys = dict(Player.objects.values_list("pk", "nickname_key"))
    alice = nickname_key("Alice")
    assert [keys[pk] for pk in ids] == [alice, f"{alice}#{ids[1]}", nickname_key("Bob")]
