"""Fixtures shared by every test folder: players, signed-in clients, deals with known lines, and the
rule that under CI the real PostgreSQL and Redis must be there (a missing service fails, never skips)."""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import translation

from accounts.models import Player
from accounts.selectors import SESSION_PLAYER_KEY
from games import engine
from games.models import Deal, Game
from realtime.bus import running_bus

# The data-migration tests' `schema_restored` fixture; production's collected static files and the
# multi-process tests' `production_site`.
pytest_plugins = ["tests.schema", "tests.production"]

VECTORS = Path(__file__).parent / "vectors"
UNDER_CI = bool(os.environ.get("CI"))


def pytest_configure(config: pytest.Config) -> None:
    if UNDER_CI:
        missing = [name for name in ("DATABASE_URL", "REDIS_URL") if not os.environ.get(name)]
        if missing:
            raise pytest.UsageError(f"CI runs against the real services: set {', '.join(missing)}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`make test` runs the suite on two pytest-xdist workers (`--dist loadgroup`): the browser tests
    as one group, so that one worker drives the one Chromium and e2e server while the other runs the
    rest, and every other module as a group of its own, so that a module's fixtures start once. The
    browser tests, the longest group, go first."""
    for item in items:
        group = "e2e" if item.get_closest_marker("e2e") else item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=lambda item: item.get_closest_marker("e2e") is None)


def need_service(reason: str) -> None:
    """Fail under CI, skip elsewhere: a developer without Redis can still run the rest."""
    if UNDER_CI:
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("REDIS_URL", "")
    if not url:
        need_service("REDIS_URL is not set")
    import redis

    try:
        redis.Redis.from_url(url, socket_timeout=2).ping()
    except redis.RedisError as error:
        need_service(f"Redis at {url} does not answer: {error}")
    return url


@pytest.fixture(scope="session", autouse=True)
def close_database_pools(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """Tests reach the database from other threads (sync_to_async, the sockets' database threads),
    whose connections outlive them; end those before the test database is dropped, or PostgreSQL
    refuses to drop a database still in use."""
    yield
    from django.db import DatabaseError, connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock():
        connection.close_pool()
        try:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
        except DatabaseError:
            return  # no test database was made (a run of browser tests only): nothing to end
        finally:
            connection.close()


@pytest.fixture
def postgres() -> None:
    """For tests of PostgreSQL's row locking: SQLite locks the whole database instead."""
    from django.db import connection

    if connection.vendor != "postgresql":
        need_service("DATABASE_URL does not name a PostgreSQL database")


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    """Rate-limit counters live in the cache; every test starts with none."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def empty_in_memory_channel_layer() -> Iterator[None]:
    """Without Redis every test's bus follows its groups in the one in-memory channel layer of the
    process: a bus of an earlier test's event loop, closed since, would still be in a group, and sending
    to the group would wake it on that closed loop."""
    yield
    layer = get_channel_layer()
    if isinstance(layer, InMemoryChannelLayer):
        async_to_sync(layer.flush)()


@pytest.fixture(autouse=True)
def site_language_after_each_test() -> Iterator[None]:
    """Every test starts in the site's default language. A language left active by an earlier test (a
    request through LocaleMiddleware can leave one: it activates each request's language and nothing
    deactivates it) made `tests/games/test_protocol.py` read its refusals in Persian when it ran after
    the Persian socket tests (`pytest tests/games tests/races tests/site`)."""
    yield
    translation.deactivate()


@pytest.fixture(scope="session")
def winning_game() -> dict[str, Any]:
    """A deal code, its deal and a 51-move winning line (tests/vectors/winning_game.json)."""
    return json.loads((VECTORS / "winning_game.json").read_text())


@pytest.fixture
def today() -> datetime.date:
    return datetime.datetime.now(datetime.UTC).date()


def player_client(player: Player) -> Client:
    client = Client()
    session = client.session
    session[SESSION_PLAYER_KEY] = player.pk
    session.save()
    return client


@pytest.fixture
def player(db: None) -> Player:
    return Player.objects.create(nickname="Ada")


@pytest.fixture
def other_player(db: None) -> Player:
    return Player.objects.create(nickname="Grace")


@pytest.fixture
def client(player: Player) -> Client:
    """A browser session belonging to `player`."""
    return player_client(player)


@pytest.fixture
def other_client(other_player: Player) -> Client:
    return player_client(other_player)


def user_client(*, staff: bool) -> Client:
    """A browser logged in to a site user (the admin's kind, not a player), staff or not."""
    client = Client()
    user = get_user_model().objects.create_user(username="staff" if staff else "visitor", password="x" * 20)
    user.is_staff = staff
    user.save()
    client.force_login(user)
    return client


@pytest.fixture
def staff(db: None) -> Client:
    """A browser logged in as staff, who review held results."""
    return user_client(staff=True)


@pytest.fixture
async def socket_services_stopped() -> AsyncIterator[None]:
    """After a socket test, stop what its sockets started on the test's event loop: the process's bus
    (its services, reader and publisher). Each socket test runs on a loop of its own, and their tasks
    must not outlive it."""
    yield
    bus = running_bus()
    if bus is not None:
        await bus.stop()


FinishedGame = Callable[..., Game]
FINISHED_AT_NOON = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)


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
            finished_at = finished_at or FINISHED_AT_NOON
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
