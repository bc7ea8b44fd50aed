"""The site as production runs it, prepared once per test session: the multi-process tests (tests/faults,
tests/races) start many clusters of Daphne processes on the same code, and migrating a database and
collecting the static files for each would cost seconds per cluster. Registered in
tests/conftest.py's `pytest_plugins`, so that every folder shares the one `production_site`, and the
static files' tests (tests/site) the one `collected_static_root`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from bench.cluster import ClusterError, PreparedSite, prepared_site
from tests.conftest import need_service
from tests.site.test_settings import manage, production


def postgres_server_url() -> str:
    """The PostgreSQL server of DATABASE_URL (its maintenance database), where clusters make their own."""
    parts = urlsplit(os.environ.get("DATABASE_URL", ""))
    if parts.scheme not in ("postgres", "postgresql"):
        need_service("DATABASE_URL does not name a PostgreSQL server")
    return urlunsplit(parts._replace(path="/postgres"))


@pytest.fixture(scope="session")
def collected_static_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A STATIC_ROOT that `collectstatic` has filled with production's settings."""
    root = tmp_path_factory.mktemp("staticfiles")
    result = manage("collectstatic", "--noinput", "-v0", **production(STATIC_ROOT=str(root)))
    assert result.returncode == 0, result.stderr
    return root


@pytest.fixture(scope="session")
def production_site(collected_static_root: Path) -> Iterator[PreparedSite]:
    """A migrated database for clusters to copy, and the collected static files for them to serve."""
    try:
        with prepared_site(
            postgres_url=postgres_server_url(),
            name=f"prepared_site_{os.getpid()}",
            redis_url=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            static_root=collected_static_root,
        ) as site:
            yield site
    except ClusterError as error:
        pytest.fail(str(error))
