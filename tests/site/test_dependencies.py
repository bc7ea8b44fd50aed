"""Imports go one way: leaderboards read games, games never reach up into leaderboards."""

from __future__ import annotations

import dis
from pathlib import Path
from types import CodeType

GAMES = Path(__file__).resolve().parents[2] / "games"


def imported_modules(source: Path) -> set[str]:
    """Every module `source` imports by absolute name (relative imports stay inside games).

    Read from the compiled code, not from ast.parse: in a process where an earlier test hit a
    RecursionError (the deeply nested JSON tests do), CPython 3.11's ast module fails with "AST
    constructor recursion depth mismatch"."""
    modules: set[str] = set()
    pending = [compile(source.read_text(), str(source), "exec")]
    while pending:
        code = pending.pop()
        pending.extend(const for const in code.co_consts if isinstance(const, CodeType))
        instructions = list(dis.get_instructions(code))
        for index, instruction in enumerate(instructions):
            # IMPORT_NAME follows the import's level (0: absolute) and its from-list.
            if instruction.opname == "IMPORT_NAME" and instructions[index - 2].argval == 0:
                modules.add(instruction.argval)
    return modules


def test_no_module_under_games_imports_leaderboards():
    offenders = [
        str(source.relative_to(GAMES.parent))
        for source in sorted(GAMES.rglob("*.py"))
        if any(module.partition(".")[0] == "leaderboards" for module in imported_modules(source))
    ]
    assert offenders == []
