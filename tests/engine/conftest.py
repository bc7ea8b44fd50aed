"""Fixtures for the engine tests: the committed rule vectors in tests/vectors/."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import VECTORS


def load_vectors(name: str) -> Any:
    """The parsed contents of tests/vectors/<name>."""
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def winning_deal(winning_game: dict[str, Any]) -> list[str]:
    return list(winning_game["deal"])


@pytest.fixture(scope="session")
def winning_line(winning_game: dict[str, Any]) -> list[list[int]]:
    return [list(move) for move in winning_game["moves"]]
