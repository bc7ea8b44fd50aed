"""Production's static files: every page module, and every module it imports, is served under a name
that carries a hash of its content, so a browser never runs an old module beside a new one."""

from __future__ import annotations

import re
import secrets
from pathlib import Path

from tests.site.test_settings import manage

IMPORT = re.compile(r"""(?:import|export)\b[^;]*?\bfrom\s*["']([./][^"']+)["']|import\(["']([./][^"']+)["']\)""")
HASHED = re.compile(r"\.[0-9a-f]{12}\.js$")


def test_every_module_a_page_loads_imports_the_others_by_their_hashed_names(tmp_path: Path):
    result = manage(
        "collectstatic", "--noinput", "-v0",
        DEBUG="0", SECRET_KEY=secrets.token_urlsafe(60), DAILY_SECRET=secrets.token_hex(32),
        ALLOWED_HOSTS="accordion.example", STATIC_ROOT=str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    modules = [path for path in (tmp_path / "js").rglob("*.js") if HASHED.search(path.name)]
    assert len(modules) > 20
    imports = {
        (module.relative_to(tmp_path).as_posix(), match[0] or match[1])
        for module in modules
        for match in IMPORT.findall(module.read_text())
    }
    assert imports and {pair for pair in imports if not HASHED.search(pair[1])} == set()
