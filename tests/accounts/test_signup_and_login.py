"""Sign-up keeps a guest's games; login brings a guest's games into the account; logout; passwords."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Player
from games.models import Game
from tests.api_client import post, start

from .conftest import PASSWORD, me, player_of, post_for_status, signed_up

pytestmark = pytest.mark.django_db


def log_in(browser: Client, nickname: str, password: str = PASSWORD) -> tuple[int, dict]:
    return post(browser, "/api/accounts/login", {"nickname": nickname, "password": password})


def log_out(browser: Client) -> int:
    return post_for_status(browser, "/api/accounts/logout", {})


def test_signing_up_turns_the_guest_into_an_account_with_all_its_games():
    guest = Client()
    games = [start(guest, mode="new")["id"], start(guest, mode="new")["id"]]
    before = me(guest)["id"]
    status, answer = post(guest, "/api/accounts/signup", {"nickname": "Ada", "password": PASSWORD})
    assert status == 201 and answer["account"] is True and answer["nickname"] == "Ada" and answer["id"] == before
    assert sorted(Game.objects.filter(player_id=before).values_list("pk", flat=True)) == sorted(games)


def test_a_visitor_can_sign_up_before_playing():
    visitor = Client()
    status, _ = post(visitor, "/api/accounts/signup", {"nickname": "Ada", "password": PASSWORD})
    assert status == 201 and me(visitor)["nickname"] == "Ada"


def test_sign_up_uses_djangos_password_validators():
    status, error = post(Client(), "/api/accounts/signup", {"nickname": "Ada", "password": "12345678"})
    assert status == 400 and error["code"] == "invalid_password" and "common" in error["error"]


def test_a_password_like_the_nickname_is_refused():
    status, error = post(Client(), "/api/accounts/signup", {"nickname": "Lovelace1815", "password": "lovelace1815"})
    assert status == 400 and error["code"] == "invalid_password" and "similar" in error["error"]


def test_sign_up_with_a_taken_nickname_is_refused_and_keeps_the_guest_as_it_was(other_player):
    guest = Client()
    start(guest, mode="new")
    status, error = post(guest, "/api/accounts/signup", {"nickname": "grace", "password": PASSWORD})
    assert status == 400 and error["code"] == "nickname_taken"
    assert me(guest)["account"] is False


def test_sign_up_with_a_greek_look_alike_of_a_taken_nickname_is_refused():
    signed_up("P14")
    status, error = post(Client(), "/api/accounts/signup", {"nickname": "\u03a114", "password": PASSWORD})
    assert status == 400 and error["code"] == "nickname_taken"


def test_a_russian_name_signs_up_beside_its_latin_spelling():
    signed_up("Oleg")
    status, answer = post(
        Client(), "/api/accounts/signup", {"nickname": "\u041e\u043b\u0435\u0433", "password": PASSWORD}
    )
    assert status == 201 and answer["nickname"] == "\u041e\u043b\u0435\u0433"


def test_an_account_cannot_sign_up_again(account):
    status, error = post(account, "/api/accounts/signup", {"nickname": "Another", "password": PASSWORD})
    assert status == 409 and error["code"] == "already_signed_up"


def test_logging_out_ends_the_session_but_the_account_keeps_its_games(account):
    game = start(account, mode="new")
    assert log_out(account) == 204
    assert account.get("/api/me").status_code == 404
    assert Game.objects.get(pk=game["id"]).player.nickname == "Ada"


def test_logging_in_from_another_browser_finds_the_same_player(account):
    before = me(account)["id"]
    elsewhere = Client()
    status, answer = log_in(elsewhere, "ada")
    assert status == 200 and answer["id"] == before and answer["nickname"] == "Ada"


def test_logging_in_brings_the_guests_games_into_the_account(account):
    log_out(account)
    guest = Client()
    games = [start(guest, mode="new")["id"] for _ in range(2)]
    guest_id = me(guest)["id"]
    log_in(guest, "Ada")
    ada = Player.objects.get(nickname="Ada")
    assert set(games) <= set(ada.games.values_list("pk", flat=True))
    assert not Player.objects.filter(pk=guest_id).exists()


def test_logging_in_keeps_the_session_key_fresh(account):
    log_out(account)
    guest = Client()
    start(guest, mode="new")
    old_key = guest.session.session_key
    log_in(guest, "Ada")
    assert guest.session.session_key != old_key and me(guest)["nickname"] == "Ada"


@pytest.mark.parametrize("nickname", ["Ada", "Nobody"])
def test_a_wrong_password_or_unknown_nickname_get_the_same_answer(account, nickname):
    status, error = log_in(Client(), nickname, "not the password")
    assert (status, error) == (400, {"error": "wrong nickname or password", "code": "wrong_credentials"})


def test_a_guest_nickname_has_no_password_to_log_in_with():
    guest = Client()
    start(guest, mode="new")
    status, error = log_in(Client(), me(guest)["nickname"], "")
    assert status == 400 and error["code"] == "wrong_credentials"


def test_changing_the_password_keeps_this_session_and_logs_out_the_others(account):
    elsewhere = Client()
    log_in(elsewhere, "Ada")
    assert post_for_status(account, "/api/accounts/password", {"old": PASSWORD, "new": "a new secret"}) == 204
    assert me(account)["nickname"] == "Ada"
    assert elsewhere.get("/api/me").status_code == 404
    assert log_in(Client(), "Ada", "a new secret")[0] == 200


def test_changing_the_password_needs_the_current_one(account):
    status, error = post(account, "/api/accounts/password", {"old": "guess", "new": "a fresh secret phrase"})
    assert status == 400 and error["code"] == "wrong_password"
    assert log_in(Client(), "Ada")[0] == 200


def test_a_guest_has_no_password_to_change(client):
    status, error = post(client, "/api/accounts/password", {"old": "", "new": "a fresh secret phrase"})
    assert status == 403 and error["code"] == "not_signed_in"


def test_an_account_session_that_was_logged_out_is_no_longer_that_player(account):
    """The session cookie of a logged-out browser, replayed, does not act as the account."""
    stolen = Client()
    stolen.cookies = account.cookies
    log_out(account)
    assert stolen.get("/api/me").status_code == 404


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/accounts/signup", {"nickname": "Ada", "password": PASSWORD}),
        ("/api/accounts/login", {"nickname": "Ada", "password": PASSWORD}),
        ("/api/accounts/logout", {}),
    ],
)
def test_account_requests_without_the_csrf_token_are_refused(path, body):
    browser = Client(enforce_csrf_checks=True)
    status, error = post(browser, path, body)
    assert status == 403 and "CSRF" in error["error"]


def test_renaming_an_account_needs_the_csrf_token():
    browser = signed_up("Ada")
    careful = Client(enforce_csrf_checks=True)
    careful.cookies = browser.cookies
    response = careful.patch("/api/me", data='{"nickname": "Eve"}', content_type="application/json")
    assert response.status_code == 403 and Player.objects.get(pk=player_of(browser).pk).nickname == "Ada"


@pytest.mark.parametrize(
    ("language", "refusal"),
    [
        ("en", "This password is too short: it needs at least 8 characters."),
        ("fa", "این گذرواژه کوتاه است: دست‌کم ۸ نویسه لازم دارد."),
    ],
)
def test_a_password_too_short_is_refused_in_the_readers_language(language, refusal):
    status, error = post(
        Client(HTTP_ACCEPT_LANGUAGE=language), "/api/accounts/signup", {"nickname": "Ada", "password": "Zq9#vT"}
    )
    assert status == 400 and error == {"error": refusal, "code": "invalid_password"}
