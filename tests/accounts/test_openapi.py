"""The players API answers as the published OpenAPI schema says (the checker is the site's own)."""

from __future__ import annotations

import json

import pytest
from django.http import HttpResponse
from django.test import Client

from tests.api_client import start
from tests.site.test_openapi_contract import Contract, contract  # noqa: F401  (a fixture)

from .conftest import PASSWORD, signed_up

pytestmark = pytest.mark.django_db


def send(browser: Client, method: str, path: str, body: object) -> HttpResponse:
    return getattr(browser, method)(path, data=json.dumps(body), content_type="application/json")


def test_me_answers_as_documented(client: Client, contract: Contract) -> None:  # noqa: F811
    contract.check(client.get("/api/me"), method="get", path="/api/me")
    contract.check(Client().get("/api/me"), method="get", path="/api/me")


def test_renaming_answers_as_documented(client: Client, contract: Contract) -> None:  # noqa: F811
    contract.check(send(client, "patch", "/api/me", {"nickname": "Lovelace"}), method="patch", path="/api/me")
    contract.check(send(client, "patch", "/api/me", {"nickname": "<b>"}), method="patch", path="/api/me")


def test_sign_up_and_login_answer_as_documented(contract: Contract) -> None:  # noqa: F811
    body = {"nickname": "Lin", "password": PASSWORD}
    signup = send(Client(), "post", "/api/accounts/signup", body)
    login = send(Client(), "post", "/api/accounts/login", body)
    assert (signup.status_code, login.status_code) == (201, 200)
    contract.check(signup, method="post", path="/api/accounts/signup")
    contract.check(login, method="post", path="/api/accounts/login")
    wrong = {"nickname": "Lin", "password": "guess"}
    contract.check(send(Client(), "post", "/api/accounts/login", wrong), method="post", path="/api/accounts/login")


def test_a_profile_answers_as_documented(client: Client, contract: Contract, winning_game) -> None:  # noqa: F811
    game = start(client, mode="code", code=winning_game["deal_code"])
    send(client, "post", f"/api/games/{game['id']}/finish", {"moves": winning_game["moves"]})
    path = "/api/players/{nickname}"
    contract.check(Client().get("/api/players/Ada"), method="get", path=path)
    contract.check(Client().get("/api/players/Nobody"), method="get", path=path)


def test_a_password_change_refusal_answers_as_documented(contract: Contract) -> None:  # noqa: F811
    browser = signed_up("Lin")
    response = send(browser, "post", "/api/accounts/password", {"old": "guess", "new": "a new secret"})
    contract.check(response, method="post", path="/api/accounts/password")


def test_deleting_an_account_answers_as_documented(contract: Contract) -> None:  # noqa: F811
    path = "/api/accounts/delete"
    browser = signed_up("Lin")
    contract.check(send(browser, "post", path, {"password": "guess"}), method="post", path=path)
    contract.check(send(Client(), "post", path, {"password": PASSWORD}), method="post", path=path)
    contract.check(send(browser, "post", path, {"password": PASSWORD, "now": "1"}), method="post", path=path)
    deleted = send(browser, "post", path, {"password": PASSWORD})
    assert deleted.status_code == 204 and "204" in contract.document["paths"][path]["post"]["responses"]
