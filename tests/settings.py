"""Settings for the test suite and the type checker: the site's own, in development mode unless the
environment says otherwise (the site itself defaults to DEBUG off, which needs a real SECRET_KEY).
Tests of production behaviour start processes with DEBUG=0 and their own keys (tests/site, tests/faults)."""

import atexit
import os
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("DEBUG", "1")


def worker_redis_url(url: str, worker: str) -> str:
    """The suite runs on two pytest-xdist workers (`make test`); each clears its cache between tests
    (tests/conftest.py), which empties its whole Redis database, so worker N takes database base+N of
    the same server. The servers a worker starts inherit it through the environment."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(base + int(worker.removeprefix('gw'))) % 16}"))


if worker := os.environ.get("PYTEST_XDIST_WORKER"):
    if os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"] = worker_redis_url(os.environ["REDIS_URL"], worker)
    # Channel names and presence keys carry the prefix; pub/sub is shared by every database of a server.
    os.environ["CHANNELS_PREFIX"] = f"accordion-tests-{worker}"

from accordion_site.settings import *  # noqa: E402, F403

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file, not Django's in-memory test database: there a connection that writes a table another one
    # is reading fails at once ("database table is locked") instead of waiting, which `make run`'s
    # file never does; tests of concurrent sockets would fail now and then for that alone.
    test_database = Path(tempfile.gettempdir()) / f"accordion-live-tests-{os.getpid()}.sqlite3"
    DATABASES["default"]["TEST"] = {"NAME": str(test_database)}  # noqa: F405

    @atexit.register
    def remove_test_database() -> None:
        """Django deletes the file itself, but not the WAL journal's files beside it."""
        for end in ("", "-wal", "-shm"):
            Path(f"{test_database}{end}").unlink(missing_ok=True)


# A finish's full fair-play assessment runs where a test says (services.game_assess, manage.py
# assess_games), not on a background thread racing the test's own reads and its database's teardown.
FAIR_PLAY_ASSESS_IN_BACKGROUND = False

# An arena's next deal is certified in the request that first needs it, not on a background thread
# racing the test's database teardown.
ARENA_DEALS_AHEAD = False
