"""Nicknames that look like another player's (Unicode's confusables, capital I, l and 1, 0 and O) are
taken, and the forms the site makes for guests and deleted players are kept for the site."""

from __future__ import annotations

import pytest

from tests.api_client import post

from .conftest import PASSWORD, rename, signed_up

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("look_alike", ["AIice", "A1ice", "\ua4eelice", "Ali\u2ca5e", "ALICE"])
def test_a_look_alike_of_a_taken_nickname_is_taken(client, look_alike):
    signed_up("Alice")
    status, error = post(client, "/api/accounts/signup", {"nickname": look_alike, "password": PASSWORD})
    assert status == 400 and error["code"] == "nickname_taken"


def test_a_look_alike_of_an_account_logs_in_to_it(client):
    signed_up("Alice")
    status, me = post(client, "/api/accounts/login", {"nickname": "AIice", "password": PASSWORD})
    assert status == 200 and me["nickname"] == "Alice"


@pytest.mark.parametrize("nickname", ["Guest-1234", "guest-98765432", "Deleted-4821", "Guest-l234", "مهمان-۴۸۲۱"])
def test_the_sites_own_forms_cannot_be_chosen(client, nickname):
    client.post("/api/games", {"mode": "new"}, content_type="application/json")
    status, error = rename(client, nickname)
    assert status == 400 and error["code"] == "invalid_nickname"


@pytest.mark.parametrize("nickname", ["Guest", "Guest-Star", "Guests-1234", "Deleted_4821"])
def test_nicknames_near_the_sites_forms_are_free(client, nickname):
    client.post("/api/games", {"mode": "new"}, content_type="application/json")
    assert rename(client, nickname)[0] == 200
