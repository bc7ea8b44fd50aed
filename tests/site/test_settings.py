from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def environment(**env: str) -> dict[str, str]:
    """This process's environment without its settings switches, with `env` over it. Without the test
    suite's DJANGO_SETTINGS_MODULE too: the process reads the site's own settings, as a deployment does
    (tests/settings.py turns DEBUG on when the environment does not say)."""
    clean = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DJANGO_SETTINGS_MODULE", "DEBUG", "DEVELOPMENT", "SECRET_KEY", "DAILY_SECRET", "ALLOWED_HOSTS"}
    }
    return {**clean, **env}


def production(**env: str) -> dict[str, str]:
    """Production settings with fresh secrets, and `env` over them."""
    keys = {"SECRET_KEY": secrets.token_urlsafe(60), "DAILY_SECRET": secrets.token_hex(32)}
    return {"DEBUG": "0", **keys, "ALLOWED_HOSTS": "accordion.example", **env}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "manage.py", *args]
    return subprocess.run(command, cwd=ROOT, env=environment(**env), capture_output=True, text=True, timeout=60)


def test_the_deployment_check_is_clean_with_production_settings_from_the_environment(collected_static_root: Path):
    settings = production(STATIC_ROOT=str(collected_static_root))
    result = manage("check", "--deploy", "--fail-level", "WARNING", **settings)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_real_secret_key():
    result = manage("check", DEBUG="0", DAILY_SECRET=secrets.token_hex(32), ALLOWED_HOSTS="accordion.example")
    assert result.returncode != 0 and "SECRET_KEY" in result.stderr


def test_with_debug_unset_the_site_runs_without_debug_and_refuses_to_start_without_a_secret_key():
    # DEBUG is not in the environment at all (environment() leaves it out): a forgotten variable fails closed.
    keys = {"DAILY_SECRET": secrets.token_hex(32), "ALLOWED_HOSTS": "accordion.example"}
    read = "from django.conf import settings; print(settings.DEBUG)"
    shown = manage("shell", "--no-imports", "-c", read, SECRET_KEY=secrets.token_urlsafe(60), **keys)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "False"
    refused = manage("check", **keys)
    assert refused.returncode != 0 and "SECRET_KEY" in refused.stderr


def test_make_runs_settings_serve_static_files_and_the_sites_own_error_pages_not_the_debug_page():
    # `make run` sets DEVELOPMENT=1 and nothing else: no secrets, no hosts, no DEBUG.
    visit = (
        "from django.conf import settings; from django.test import Client; client = Client(HTTP_HOST='localhost');"
        "missing = client.get('/no-such-page'); style = client.get('/static/css/site.css');"
        "print(settings.DEBUG, missing.status_code, b'Page not found' in missing.content,"
        " b'URLconf' in missing.content, style.status_code)"
    )
    shown = manage("shell", "--no-imports", "-c", visit, DEVELOPMENT="1")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == ["False", "404", "True", "False", "200"]


def test_make_dev_shows_djangos_debug_page_to_the_developer_who_asks_for_it():
    visit = (
        "from django.test import Client; missing = Client(HTTP_HOST='localhost').get('/no-such-page');"
        "print(missing.status_code, b'URLconf' in missing.content)"
    )
    shown = manage("shell", "--no-imports", "-c", visit, DEBUG="1")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == ["404", "True"]


def test_production_refuses_to_start_with_the_example_files_placeholder_secrets():
    example = dict(
        line.split("=", 1)
        for line in (ROOT / "deploy" / "accordion-live.env.example").read_text().splitlines()
        if line.startswith(("SECRET_KEY=", "DAILY_SECRET="))
    )
    real = {"SECRET_KEY": secrets.token_urlsafe(60), "DAILY_SECRET": secrets.token_hex(32)}
    for placeholder in ("SECRET_KEY", "DAILY_SECRET"):
        values = {**real, placeholder: example[placeholder]}
        result = manage("check", DEBUG="0", ALLOWED_HOSTS="accordion.example", **values)
        assert result.returncode != 0 and placeholder in result.stderr


def test_production_refuses_to_start_without_a_daily_secret():
    result = manage("check", DEBUG="0", SECRET_KEY=secrets.token_urlsafe(60), ALLOWED_HOSTS="accordion.example")
    assert result.returncode != 0 and "DAILY_SECRET" in result.stderr


def test_the_log_format_is_read_whatever_its_case_and_a_wrong_one_is_named():
    production = {"DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(60), "DAILY_SECRET": secrets.token_hex(32)}
    assert manage("check", ALLOWED_HOSTS="accordion.example", LOG_FORMAT="JSON", **production).returncode == 0
    wrong = manage("check", ALLOWED_HOSTS="accordion.example", LOG_FORMAT="xml", **production)
    assert wrong.returncode != 0 and "LOG_FORMAT is json or plain, not 'xml'" in wrong.stderr


def test_a_malformed_gc_thresholds_stops_the_start_and_names_itself():
    result = manage("check", DEBUG="1", GC_THRESHOLDS="50000,20")
    assert result.returncode != 0 and "GC_THRESHOLDS takes three whole numbers, not '50000,20'" in result.stderr


def test_a_server_process_freezes_its_start_up_objects_and_collects_at_the_set_thresholds():
    # A fresh interpreter, as Daphne is: it imports the ASGI application and serves from it.
    script = "import gc, accordion_site.asgi; print(gc.get_freeze_count(), *gc.get_threshold())"
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=environment(DEBUG="1", GC_THRESHOLDS="40000,15,90"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    frozen, *thresholds = (int(number) for number in result.stdout.split())
    assert thresholds == [40000, 15, 90]
    assert frozen > 50_000  # Django, the site's modules and their objects: never scanned again
