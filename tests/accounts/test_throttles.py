"""Login and sign-up attempts are limited per client address and per nickname."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client

from tests.api_client import post

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada(account):
    """The account "Ada", its own sign-up no longer counted against the allowances."""
    cache.clear()
    return account


def allowed(scope: str) -> int:
    """How many attempts the setting allows in its period ("20/minute" → 20)."""
    return int(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][scope].split("/")[0])


def attempt(nickname: str, *, address: str, path: str = "/api/accounts/login") -> tuple[int, dict]:
    return post(Client(REMOTE_ADDR=address), path, {"nickname": nickname, "password": "guess"})


def test_one_address_trying_many_nicknames_is_slowed_down(ada):
    answers = [attempt(f"name{index}", address="203.0.113.7") for index in range(allowed("accounts_address") + 1)]
    assert {status for status, _ in answers[:-1]} == {400}
    status, error = answers[-1]
    assert status == 429 and error["code"] == "rate_limited"


def test_another_address_is_not_slowed_down_by_the_first(ada):
    for index in range(allowed("accounts_address") + 1):
        attempt(f"name{index}", address="203.0.113.7")
    assert attempt("Ada", address="198.51.100.1")[0] == 400


def test_many_addresses_trying_one_nickname_are_slowed_down(ada):
    limit = allowed("accounts_nickname")
    for index in range(limit):
        assert attempt("Ada", address=f"10.0.{index // 250}.{index % 250 + 1}")[0] == 400
    status, error = attempt("ADA", address="192.0.2.200")
    assert status == 429 and error["code"] == "rate_limited"


def test_a_throttled_nickname_cannot_log_in_even_with_the_right_password(ada):
    for index in range(allowed("accounts_nickname")):
        attempt("Ada", address=f"10.1.{index // 250}.{index % 250 + 1}")
    status, _ = post(
        Client(REMOTE_ADDR="192.0.2.201"), "/api/accounts/login", {"nickname": "Ada", "password": PASSWORD}
    )
    assert status == 429


def test_sign_up_is_throttled_per_address_too(db):
    answers = [
        attempt(f"new{index}", address="203.0.113.9", path="/api/accounts/signup")
        for index in range(allowed("accounts_address") + 1)
    ]
    assert answers[-1][0] == 429
