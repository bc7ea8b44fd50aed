"""Fixtures for the players tests: fast password hashing, accounts, and finished games made to measure
(with hand-picked piles, times and dates) for the statistics."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import Player
from games import engine
from games.models import Deal, Game
from tests.api_client import post

PASSWORD = "correct horse battery"
NOON = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)


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


FinishedGame = Callable[..., Game]


@pytest.fixture
def finished_game(winning_game: dict[str, Any]) -> FinishedGame:
    """finished_game(player, piles=…, seconds=…, day=date (a ranked daily) or none (a new deal),
    ranked=…, finished_at=…): a finished game stored as the server stores a verified one."""

    def make(
        player: Player,
        *,
        piles: int,
        seconds: int = 100,
        day: datetime.date | None = None,
        ranked: bool | None = None,
        finished_at: datetime.datetime | None = None,
    ) -> Game:
        if day is not None:
            deal, _ = Deal.objects.get_or_create(daily_date=day, defaults={"cards": winning_game["deal"]})
            finished_at = finished_at or datetime.datetime.combine(day, datetime.time(12), tzinfo=datetime.UTC)
        else:
            deal = Deal.objects.create(code=engine.new_deal_code(), cards=winning_game["deal"])
            finished_at = finished_at or NOON
        return Game.objects.create(
            player=player,
            deal=deal,
            mode=Game.Mode.DAILY if day is not None else Game.Mode.NEW,
            ranked=day is not None if ranked is None else ranked,
            status=Game.Status.FINISHED,
            started_at=finished_at - datetime.timedelta(seconds=seconds),
            finished_at=finished_at,
            piles=piles,
            seconds=seconds,
            score=engine.score(piles, seconds),
        )

    return make
