"""Imports go one way: leaderboards read games, games never reach up into leaderboards."""

from __future__ import annotations

import ast
from pathlib import Path

GAMES = Path(__file__).resolve().parents[2] / "games"


def imported_modules(source: Path) -> set[str]:
    """Every module `source` imports by absolute name (relative imports stay inside games)."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(), filename=str(source))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def test_no_module_under_games_imports_leaderboards():
    offenders = [
        str(source.relative_to(GAMES.parent))
        for source in sorted(GAMES.rglob("*.py"))
        if any(module.partition(".")[0] == "leaderboards" for module in imported_modules(source))
    ]
    assert offenders == []
