"""GET /api/me and PATCH /api/me: who the session plays as, and choosing a nickname."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Player
from tests.api_client import post, start

from .conftest import me, rename

pytestmark = pytest.mark.django_db


def test_a_visitor_who_has_not_played_is_not_a_player_yet():
    response = Client().get("/api/me")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_a_guest_sees_their_generated_nickname_and_that_they_have_no_account():
    visitor = Client()
    start(visitor, mode="new")
    answer = me(visitor)
    assert answer["nickname"].startswith("Guest-")
    assert answer["account"] is False and answer["nickname_chosen"] is False and answer["daily_done"] is False


def test_todays_daily_is_done_once_the_attempt_is_finished(client):
    game = start(client, mode="daily")
    assert me(client)["daily_done"] is False
    post(client, f"/api/games/{game['id']}/finish", {"moves": []})
    assert me(client)["daily_done"] is True


def test_a_player_renames_themselves(client, player):
    status, answer = rename(client, "  Lovelace ")
    assert status == 200 and answer["nickname"] == "Lovelace" and answer["nickname_chosen"] is True
    player.refresh_from_db()
    assert player.nickname == "Lovelace"


def test_a_persian_nickname_is_welcome(client):
    status, answer = rename(client, "مریم_۱۳۷۰")
    assert status == 200 and answer["nickname"] == "مریم_۱۳۷۰"


def test_a_bad_nickname_is_a_400_with_the_reason(client):
    status, error = rename(client, "Ada<3")
    assert status == 400 and error["code"] == "invalid_nickname" and "letters, digits, _ and -" in error["error"]


def test_a_nickname_that_passes_for_anothers_by_mixing_alphabets_is_a_400(client, other_player):
    status, error = rename(client, "Gr\u0430ce")  # "Grace" with a Cyrillic small a
    assert status == 400 and error["code"] == "invalid_nickname" and "look alike" in error["error"]


@pytest.mark.parametrize("taken", ["Grace", "GRACE", "\uff47\uff52\uff41\uff43\uff45"])
def test_a_nickname_another_player_has_is_a_400_whatever_its_case_or_width(client, other_player, taken):
    status, error = rename(client, taken)
    assert status == 400 and error["code"] == "nickname_taken"
    assert Player.objects.get(pk=other_player.pk).nickname == "Grace"


@pytest.mark.parametrize(
    ("taken", "look_alike"),
    [
        ("P14", "\u03a114"),  # a Greek capital Rho
        ("PETA", "\u0420\u0415\u0422\u0410"),  # wholly Cyrillic
        ("PETA", "\u0440\u0435\u0442\u0430"),  # Cyrillic small letters
        ("\u03a114", "P14"),  # the Latin look-alike of a Greek nickname
    ],
)
def test_a_nickname_written_wholly_in_look_alike_letters_of_anothers_is_taken(client, taken, look_alike):
    holder = Player.objects.create(nickname=taken)
    status, error = rename(client, look_alike)
    assert status == 400 and error["code"] == "nickname_taken" and "is taken" in error["error"]
    assert me(client)["nickname"] == "Ada" and Player.objects.get(pk=holder.pk).nickname == taken


@pytest.mark.parametrize(
    ("latin", "own"),
    [("Dimitris", "\u0394\u03b7\u03bc\u03ae\u03c4\u03c1\u03b7\u03c2"), ("Oleg", "\u041e\u043b\u0435\u0433")],
)
def test_a_greek_or_russian_name_is_welcome_beside_its_latin_spelling(client, latin, own):
    Player.objects.create(nickname=latin)
    status, answer = rename(client, own)
    assert status == 200 and answer["nickname"] == own


@pytest.mark.parametrize(
    ("body", "field"), [({"nickname": 123}, "nickname"), ({"nickname": "Zed", "admin": True}, "admin")]
)
def test_a_rename_with_a_wrong_type_or_an_unknown_field_is_a_400_naming_it(client, player, body, field):
    response = client.patch("/api/me", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert response.json()["error"].startswith(field)
    assert Player.objects.get(pk=player.pk).nickname == "Ada"


def test_a_player_may_change_the_case_of_their_own_nickname(client):
    status, answer = rename(client, "ADA")
    assert status == 200 and answer["nickname"] == "ADA"


def test_a_visitor_cannot_rename_before_playing():
    status, error = rename(Client(), "Visitor")
    assert status == 404 and error["code"] == "not_found"
