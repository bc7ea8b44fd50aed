"""Moving the test database between migrations, for the tests of data migrations."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets: Sequence[tuple[str, str | None]]) -> Any:
    """Migrate the test database to `targets` (`(app, None)`: all of the app's migrations unapplied);
    return the apps (historical models) as the named migrations leave them."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state([target for target in targets if target[1] is not None]).apps


def newest_migrations() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


@pytest.fixture
def schema_restored(transactional_db: None) -> Iterator[None]:
    """Whatever happens in the test, the database ends on the newest migrations again."""
    yield
    migrate(newest_migrations())
