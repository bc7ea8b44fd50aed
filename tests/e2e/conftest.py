"""Fixtures for the browser tests: a real Daphne server on a fresh database of its own, and Chromium.

The tests talk to the server only over HTTP and WebSocket, like a player's browser; they never touch
pytest-django's test database.

Playwright's sync API marks its event loop as running in the main thread for as long as it is started
(see `wait_for_future` in playwright/_impl/_greenlets.py). While it is, pytest-asyncio cannot run an
async test and Django refuses ORM calls from sync tests (SynchronousOnlyOperation). So the browser
lives in a package-scoped fixture: it is stopped when the last test of this folder has run, before
the rest of the suite goes on.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from bench.cluster import ClusterError, daphne_process, manage
from bench.cluster import fresh_database as cluster_database

ROOT = Path(__file__).resolve().parents[2]
# The README's pictures, written only by a run with SCREENSHOTS=1 (`make screenshots`).
SCREENSHOTS = ROOT / "docs" / "screenshots"
# Every browser context is a new guest from 127.0.0.1: the per-address allowances would stop the suite,
# so the server lifts them (tests/games/test_fair_play.py covers them).
LIFTED_ALLOWANCES = {
    "RANKED_ATTEMPTS_PER_ADDRESS": "10000",
    "API_VISITOR_RATE": "100000/minute",
    "SOLVER_REQUESTS_PER_MINUTE_PER_ADDRESS": "100000",
}
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
POSTGRES_SCHEMES = {"postgres", "postgresql", "pgsql"}


def unavailable(reason: str) -> NoReturn:
    """Fail under CI, skip elsewhere (the same rule as the real services in tests/conftest.py)."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def shared_channel_layer() -> None:
    """For a test whose `server_shell` code (tests/e2e/player.py) announces to the server's sockets: an
    announcement crosses from that process to the server's only through Redis."""
    if not os.environ.get("REDIS_URL"):
        unavailable("REDIS_URL is not set: what server_shell announces reaches the server only through Redis")


@pytest.fixture(autouse=True)
def empty_in_memory_channel_layer() -> None:
    """The site under test runs in a Daphne process of its own, so nothing here uses this process's
    channel layer; and with Playwright's loop marked running in this thread, tests/conftest.py's flush
    of it (`async_to_sync`) would fail every test's teardown when no REDIS_URL is set."""


@contextmanager
def fresh_database(workdir: Path) -> Iterator[str]:
    """Yield the DATABASE_URL of an empty database: on the PostgreSQL server DATABASE_URL names (as CI
    sets it), a database of its own, dropped afterwards; otherwise a SQLite file in `workdir`."""
    url = os.environ.get("DATABASE_URL", "")
    if urlsplit(url).scheme not in POSTGRES_SCHEMES:
        yield f"sqlite:///{workdir / 'e2e.sqlite3'}"
        return
    with ExitStack() as stack:
        try:
            database_url = stack.enter_context(cluster_database(url, f"accordion_e2e_{os.getpid()}"))
        except ClusterError as error:
            unavailable(str(error))
        yield database_url


@pytest.fixture(scope="session")
def site_database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The DATABASE_URL of the e2e server's own fresh database (a test that must let a day pass moves
    the server's data there: see test_leaderboard_in_browser.py)."""
    with fresh_database(tmp_path_factory.mktemp("e2e-database")) as database_url:
        yield database_url


@pytest.fixture(scope="session")
def site_url(site_database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Daphne serving the site on a free port, on a fresh database; REDIS_URL passes through,
    so under CI the sockets go through the real Redis channel layer. Its log stays after the run, in
    pytest's temporary directory (`e2e-server0/daphne.log` under /tmp/pytest-of-<user>/pytest-<n>/)."""
    database_url = site_database_url
    tmp = tmp_path_factory.mktemp("e2e-server")
    with ExitStack() as stack:
        env = {
            **os.environ,
            # As `make run`: static files from their sources, and the site's own error pages, not Django's
            # debug pages (tests/settings.py puts DEBUG=1 in this process's environment).
            "DEVELOPMENT": "1",
            "DEBUG": "0",
            "DATABASE_URL": database_url,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "CHANNELS_PREFIX": f"e2e-{os.getpid()}",
            "DJANGO_SETTINGS_MODULE": "accordion_site.settings",
            "PYTHONUNBUFFERED": "1",
            **LIFTED_ALLOWANCES,
        }
        try:
            manage(env, "migrate", "--noinput")
            daphne = stack.enter_context(daphne_process(env, tmp / "daphne.log"))
        except ClusterError as error:
            pytest.fail(f"the e2e server did not start: {error}")
        yield daphne.origin


def save_screenshot(page: Page, name: str, *, full_page: bool = False) -> None:
    """Refresh docs/screenshots/<name> only when asked (SCREENSHOTS=1, `make screenshots`): a plain test run
    leaves the tracked pictures alone."""
    if os.environ.get("SCREENSHOTS") == "1":
        page.screenshot(path=SCREENSHOTS / name, full_page=full_page)


def screenshot_digests() -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in SCREENSHOTS.glob("*.png")}


@pytest.fixture(scope="package", autouse=True)
def screenshots_left_alone() -> Iterator[None]:
    """A plain test run leaves the checkout as it found it: the tracked screenshots change only when a run
    was asked to refresh them (SCREENSHOTS=1, `make screenshots`)."""
    before = screenshot_digests()
    yield
    if os.environ.get("SCREENSHOTS") != "1":
        assert screenshot_digests() == before, "a browser test rewrote docs/screenshots/ without SCREENSHOTS=1"


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """Chromium from the system; package-scoped so that Playwright stops with the last e2e test
    (see this module's docstring)."""
    if not Path(CHROMIUM).exists():
        unavailable(f"{CHROMIUM} is missing: install the chromium package (make check-system-deps)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@contextmanager
def player_page(
    browser: Browser,
    site_url: str,
    *,
    width: int = 1280,
    height: int = 800,
    locale: str = "en-GB",
    touch: bool = False,
) -> Iterator[Page]:
    """A page in a fresh browser context: its own cookies, so its own guest player; `locale` is the
    browser's language (its Accept-Language); `touch` makes it a phone's (a touch screen, mobile
    viewport). A script error on any page of the context fails the test. The page's
    Content-Security-Policy is bypassed only so the accessibility test can inject axe-core."""
    context = browser.new_context(
        base_url=site_url,
        viewport={"width": width, "height": height},
        locale=locale,
        bypass_csp=True,
        has_touch=touch,
        is_mobile=touch,
    )
    context.set_default_timeout(10_000)
    errors: list[str] = []

    def watch(opened: Page) -> None:
        opened.on("pageerror", lambda error: errors.append(f"{error.name}: {error.message}"))

    context.on("page", watch)
    try:
        yield context.new_page()
    finally:
        context.close()
    assert not errors, f"the page threw: {errors}"


@pytest.fixture
def page(browser: Browser, site_url: str) -> Iterator[Page]:
    """The player's page; `page.context.new_page()` opens another tab of the same player."""
    with player_page(browser, site_url) as opened:
        yield opened


@pytest.fixture
def other_player_page(browser: Browser, site_url: str) -> Iterator[Page]:
    """A page of someone else: a browser context of its own, with no cookies yet."""
    with player_page(browser, site_url) as opened:
        yield opened
