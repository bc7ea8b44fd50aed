"""Dependencies run one way: races use games, and nothing else under games/ imports races."""

from __future__ import annotations

import ast
from pathlib import Path

GAMES = Path(__file__).resolve().parents[2] / "games"
RACES = GAMES / "races"


def imports_races(source: Path) -> bool:
    for node in ast.walk(ast.parse(source.read_text(), filename=str(source))):
        if isinstance(node, ast.Import) and any(alias.name.startswith("games.races") for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom):
            absolute = node.level == 0 and (node.module or "").startswith("games.races")
            relative = node.level == 1 and source.parent == GAMES and (node.module or "").startswith("races")
            if absolute or relative or any(alias.name == "races" for alias in node.names if node.level <= 1):
                return True
    return False


def test_no_module_of_games_outside_races_imports_races():
    outside = [source for source in sorted(GAMES.rglob("*.py")) if RACES not in source.parents]
    assert outside and [str(source.relative_to(GAMES.parent)) for source in outside if imports_races(source)] == []
