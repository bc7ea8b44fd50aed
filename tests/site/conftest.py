"""Production's collected static files, made once for the tests of this folder that need them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.site.test_settings import manage, production


@pytest.fixture(scope="session")
def collected_static_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A STATIC_ROOT that `collectstatic` has filled with production's settings."""
    root = tmp_path_factory.mktemp("staticfiles")
    result = manage("collectstatic", "--noinput", "-v0", **production(STATIC_ROOT=str(root)))
    assert result.returncode == 0, result.stderr
    return root
