"""Login, sign-up and password attempts are limited per client address and per pair (address, account),
never per account alone: guessing from anywhere never locks the owner out. Attempts are counted before
any password is hashed, atomically, so a burst gets exactly its allowance checked."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.test import Client

from tests.api_client import post

from .conftest import PASSWORD, signed_up

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada(account):
    """The account "Ada", its own sign-up no longer counted against the allowances."""
    cache.clear()
    return account


def allowed(scope: str) -> int:
    """How many attempts the setting allows in its period ("20/minute" → 20)."""
    return int(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][scope].split("/")[0])


def attempt(nickname: str, *, address: str, path: str = "/api/accounts/login", password: str = "guess") -> int:
    return post(Client(REMOTE_ADDR=address), path, {"nickname": nickname, "password": password})[0]


def test_one_address_trying_many_nicknames_is_slowed_down(ada):
    answers = [attempt(f"name{index}", address="203.0.113.7") for index in range(allowed("accounts_address") + 1)]
    assert set(answers[:-1]) == {400} and answers[-1] == 429


def test_another_address_is_not_slowed_down_by_the_first(ada):
    for index in range(allowed("accounts_address") + 1):
        attempt(f"name{index}", address="203.0.113.7")
    assert attempt("Ada", address="198.51.100.1") == 400


def test_one_address_guessing_one_account_is_slowed_down_before_its_address_allowance(ada):
    answers = [attempt("Ada", address="203.0.113.8") for _ in range(allowed("accounts_pair") + 1)]
    assert set(answers[:-1]) == {400} and answers[-1] == 429
    assert attempt("Bob", address="203.0.113.8") == 400  # other nicknames from there are still checked


def test_the_pair_counts_a_nickname_whatever_its_case(ada):
    for index in range(allowed("accounts_pair")):
        attempt("Ada" if index % 2 else "ADA", address="203.0.113.8")
    assert attempt("ada", address="203.0.113.8") == 429


def test_wrong_guesses_from_many_addresses_never_lock_the_owner_out(ada):
    for index in range(5 * allowed("accounts_pair")):
        attempt("Ada", address=f"10.0.0.{index % 5 + 1}")
    assert attempt("Ada", address="192.0.2.200", password=PASSWORD) == 200


def test_sign_up_is_throttled_per_address_too(db):
    answers = [
        attempt(f"new{index}", address="203.0.113.9", path="/api/accounts/signup")
        for index in range(allowed("accounts_address") + 1)
    ]
    assert answers[-1] == 429


def test_new_accounts_from_one_address_are_limited_while_another_address_signs_up(db, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "accounts_signup": "2/hour"},
    }
    made = [
        post(Client(REMOTE_ADDR="203.0.113.10"), "/api/accounts/signup", {"nickname": name, "password": PASSWORD})[0]
        for name in ("Maya", "Nico", "Omar")
    ]
    assert made == [201, 201, 429]
    assert (
        post(Client(REMOTE_ADDR="198.51.100.2"), "/api/accounts/signup", {"nickname": "Omar", "password": PASSWORD})[0]
        == 201
    )


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_wrong_logins_has_exactly_the_allowance_of_passwords_checked():
    signed_up("Ada")
    cache.clear()

    def wrong_login(_: int) -> int:
        try:
            return attempt("Ada", address="203.0.113.11")
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=8) as threads:
        answers = list(threads.map(wrong_login, range(3 * allowed("accounts_pair"))))
    assert answers.count(400) == allowed("accounts_pair")
    assert answers.count(429) == 2 * allowed("accounts_pair")


def test_a_password_change_is_counted_against_the_sessions_own_account_whatever_nickname_it_sends(ada):
    guesses = [
        post(ada, "/api/accounts/password", {"old": f"guess {index}", "new": "a new secret", "nickname": f"x{index}"})[
            0
        ]
        for index in range(allowed("accounts_pair") + 1)
    ]
    assert set(guesses[:-1]) == {400} and guesses[-1] == 429
