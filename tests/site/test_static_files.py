"""Production's static files: every page module, and every module it imports, is served under a name
that carries a hash of its content, so a browser never runs an old module beside a new one; and until
`collectstatic` has written those names, the deployment check says so and the site refuses to start
(every page would answer 500)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.request import urlopen

import pytest

from bench.cluster import ClusterError, daphne_process
from tests.site.test_settings import environment, manage, production

IMPORT = re.compile(r"""(?:import|export)\b[^;]*?\bfrom\s*["']([./][^"']+)["']|import\(["']([./][^"']+)["']\)""")
HASHED = re.compile(r"\.[0-9a-f]{12}\.js$")


def test_every_module_a_page_loads_imports_the_others_by_their_hashed_names(collected_static_root: Path):
    modules = [path for path in (collected_static_root / "js").rglob("*.js") if HASHED.search(path.name)]
    assert len(modules) > 20
    imports = {
        (module.relative_to(collected_static_root).as_posix(), match[0] or match[1])
        for module in modules
        for match in IMPORT.findall(module.read_text())
    }
    assert imports and {pair for pair in imports if not HASHED.search(pair[1])} == set()


def test_the_deployment_check_says_to_run_collectstatic_before_it_has_run(tmp_path: Path):
    result = manage("check", "--deploy", **production(STATIC_ROOT=str(tmp_path)))
    assert result.returncode != 0
    assert "(accordion.E001) The static files are not collected" in result.stderr
    assert "Run `python manage.py collectstatic --noinput`" in result.stderr


def test_the_deployment_check_names_a_file_the_collected_ones_lack_after_an_upgrade(
    collected_static_root: Path, tmp_path: Path
):
    manifest = json.loads((collected_static_root / "staticfiles.json").read_text())
    del manifest["paths"]["js/pages/game.js"]  # as if the module were new since the last collectstatic
    (tmp_path / "staticfiles.json").write_text(json.dumps(manifest))
    result = manage("check", "--deploy", **production(STATIC_ROOT=str(tmp_path)))
    assert result.returncode != 0
    assert "staticfiles.json lacks js/pages/game.js" in result.stderr
    assert "manage.py collectstatic" in result.stderr


def test_daphne_refuses_to_start_before_collectstatic_and_serves_pages_after_it(
    collected_static_root: Path, tmp_path: Path
):
    served = {"SECURE_SSL_REDIRECT": "0", "ALLOWED_HOSTS": "127.0.0.1"}
    uncollected = environment(**production(STATIC_ROOT=str(tmp_path / "empty"), **served))
    refused = r"static files are not collected.*manage\.py collectstatic"
    with pytest.raises(ClusterError, match=refused), daphne_process(uncollected, tmp_path / "refused.log"):
        pass

    collected = environment(**production(STATIC_ROOT=str(collected_static_root), **served))
    with daphne_process(collected, tmp_path / "daphne.log") as daphne, urlopen(f"{daphne.origin}/how-to-play") as page:
        assert page.status == 200
        assert re.search(r"/static/css/site\.[0-9a-f]{12}\.css", page.read().decode())
