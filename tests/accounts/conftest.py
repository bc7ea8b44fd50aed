"""Fixtures for the players tests: fast password hashing and accounts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from accounts.models import Player
from tests.api_client import post

PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    """The real hasher takes a good part of a second per check, on purpose; tests check hundreds."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def signed_up(nickname: str, password: str = PASSWORD) -> Client:
    """A new browser that signs up as `nickname`; it stays logged in."""
    browser = Client()
    status, answer = post(browser, "/api/accounts/signup", {"nickname": nickname, "password": password})
    assert status == 201, answer
    return browser


@pytest.fixture
def account(db: None) -> Client:
    """A browser logged in to the account "Ada"."""
    return signed_up("Ada")


def post_for_status(browser: Client, path: str, body: object) -> int:
    """POST for an endpoint that answers 204 No Content when it succeeds; return the status code."""
    return browser.post(path, data=json.dumps(body), content_type="application/json").status_code


def me(browser: Client) -> dict[str, Any]:
    response = browser.get("/api/me")
    assert response.status_code == 200, response.content
    return response.json()  # type: ignore[no-any-return]


def rename(browser: Client, nickname: str) -> tuple[int, dict]:
    """PATCH /api/me with a new nickname; return the status code and the decoded answer."""
    response = browser.patch("/api/me", data=json.dumps({"nickname": nickname}), content_type="application/json")
    return response.status_code, response.json()


def player_of(browser: Client) -> Player:
    return Player.objects.get(pk=me(browser)["id"])
