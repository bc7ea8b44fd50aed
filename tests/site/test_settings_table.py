"""docs/deploy.md's table of environment variables is the whole list a deployment may set: every variable
the settings read is in it, and it names none the settings do not read."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ROOT / "accordion_site" / "settings.py"
DEPLOY = ROOT / "docs" / "deploy.md"


def read_by_settings() -> set[str]:
    """The names the settings read through django-environ: `env.int("NAME", …)`, `env("NAME")`, and the
    settings' own helpers that take the name first (`env_list("NAME", …)`)."""
    names = set()
    for node in ast.walk(ast.parse(SETTINGS.read_text())):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
            continue
        function = node.func
        reads = (
            isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "env"
        ) or (isinstance(function, ast.Name) and function.id.startswith("env"))
        if reads and isinstance(node.args[0].value, str):
            names.add(node.args[0].value)
    return names


def listed_in_deploy_md() -> set[str]:
    """The first column of the table under "## Environment"."""
    section = DEPLOY.read_text().split("\n## Environment\n", 1)[1].split("\n## ", 1)[0]
    return {match for line in section.splitlines() for match in re.findall(r"^\| `([A-Z0-9_]+)` \|", line)}


def test_the_settings_read_their_variables_through_django_environ_only() -> None:
    text = SETTINGS.read_text()
    assert "os.environ" not in text and "getenv" not in text
    assert len(read_by_settings()) > 40  # the parser above still finds what the settings read


def test_every_variable_the_settings_read_is_in_the_deploy_table() -> None:
    assert sorted(read_by_settings() - listed_in_deploy_md()) == []


def test_the_deploy_table_lists_no_variable_the_settings_do_not_read() -> None:
    assert sorted(listed_in_deploy_md() - read_by_settings()) == []
