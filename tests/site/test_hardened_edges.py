"""The HTTP edges a public site needs: JSON errors under /api/, a health check, security headers, and a
503 "try again" (never a 500) while the database or Redis is away."""

from __future__ import annotations

import json
import logging
import socket
from unittest import mock

import pytest
import redis
from django.db import OperationalError
from django.test import Client

from accordion_site.logs import ContextFilter, JsonFormatter

pytestmark = pytest.mark.django_db


def test_an_unknown_api_path_answers_json_404(client):
    response = client.get("/api/no-such-thing")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_deeply_nested_json_body_is_a_400_not_a_500(client):
    response = client.post("/api/games", "[" * 60_000, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"


def test_a_database_outage_answers_json_503_with_retry_after(client):
    client.raise_request_exception = False
    with mock.patch("games.api.selectors.game_get", side_effect=OperationalError("connection refused")):
        response = client.get("/api/games/1")
    assert response.status_code == 503
    assert response.json()["code"] == "unavailable"
    assert response["Retry-After"]


def test_a_redis_outage_answers_json_503(redis_url):
    visitor = Client(raise_request_exception=False)  # a new guest is counted in Redis, by address
    with mock.patch("redis.Redis.execute_command", side_effect=redis.ConnectionError("Redis is down")):
        response = visitor.post("/api/games", {"mode": "new"}, content_type="application/json")
    assert response.status_code == 503
    assert response.json()["code"] == "unavailable"


def test_a_server_error_under_api_is_json_and_names_no_settings(client):
    client.raise_request_exception = False
    with mock.patch("games.api.selectors.game_get", side_effect=RuntimeError("REDIS_URL=secret")):
        response = client.get("/api/games/1")
    assert response.status_code == 500
    assert response.json() == {"error": "the server failed; the error is logged", "code": "server_error"}


def test_the_health_check_reports_the_database_and_redis_with_their_times(client, settings, redis_url):
    settings.REDIS_URL = redis_url
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    for service in ("database", "redis"):
        assert body["checks"][service]["ok"] is True and body["checks"][service]["ms"] >= 0


def test_the_health_check_answers_503_when_the_database_is_down(client):
    with mock.patch("accordion_site.views._database_ping", side_effect=OperationalError("down")):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"] == {
        "ok": False,
        "ms": response.json()["checks"]["database"]["ms"],
        "error": "OperationalError",
    }


def closed_port() -> int:
    """A loopback port nothing listens on: one the system just gave out and took back."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_health_check_answers_503_naming_redis_when_redis_is_unreachable(client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["redis"]["ok"] is False and body["checks"]["redis"]["error"] == "ConnectionError"
    assert body["checks"]["database"]["ok"] is True  # only Redis is named down


def test_pages_carry_a_content_security_policy_without_inline_scripts(client):
    policy = client.get("/")["Content-Security-Policy"]
    script_source = next(part for part in policy.split(";") if part.strip().startswith("script-src"))
    assert "'self'" in script_source
    assert "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy


def directive(policy: str, name: str) -> str:
    return next(part.strip() for part in policy.split(";") if part.strip().startswith(name + " "))


def test_the_api_docs_page_may_have_inline_styles_for_swagger_ui_but_never_inline_scripts(client):
    policy = client.get("/api/docs/")["Content-Security-Policy"]
    assert directive(policy, "style-src") == "style-src 'self' 'unsafe-inline'"
    assert directive(policy, "script-src") == "script-src 'self'"
    assert "unsafe-inline" not in client.get("/api/schema/")["Content-Security-Policy"]


def test_pages_deny_framing_and_keep_referrers_on_the_site(client):
    response = client.get("/")
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"


def test_every_response_names_its_request_id(client):
    assert len(client.get("/api/no-such-thing")["X-Request-ID"]) >= 8


def test_each_request_is_one_json_log_line_with_its_ids_status_and_duration(client, player, caplog):
    caplog.handler.addFilter(ContextFilter())  # as the site's log handler has it
    with caplog.at_level(logging.INFO, logger="accordion_site.access"):
        client.get("/api/me", headers={"X-Request-ID": "access-line-test-1"})
    [record] = [record for record in caplog.records if record.name == "accordion_site.access"]
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "GET /api/me 200" and line["status"] == 200 and line["ms"] >= 0
    assert line["request_id"] == "access-line-test-1" and line["player_id"] == player.pk


def test_a_request_on_a_game_logs_a_json_line_naming_that_game_and_the_next_request_does_not(client, caplog):
    game = client.post("/api/games", {"mode": "new"}, content_type="application/json").json()
    caplog.handler.addFilter(ContextFilter())  # as the site's log handler has it
    with caplog.at_level(logging.INFO, logger="accordion_site.access"):
        client.get(f"/api/games/{game['id']}")
        client.get("/healthz")  # reaches no view that names a game or reads the session
    on_game, health = (
        json.loads(JsonFormatter().format(record))
        for record in caplog.records
        if record.name == "accordion_site.access"
    )
    assert on_game["message"] == f"GET /api/games/{game['id']} 200"
    assert on_game["game_id"] == game["id"] and on_game["player_id"] is not None
    assert health["message"] == "GET /healthz 200"
    assert health.get("game_id") is None and health.get("player_id") is None


def test_a_load_balancer_polls_healthz_by_address_over_plain_http(settings):
    settings.ALLOWED_HOSTS = ["accordion.example"]
    settings.SECURE_SSL_REDIRECT = True
    probe = Client(HTTP_HOST="10.0.0.5:8001")  # a process's own address, not the site's name
    response = probe.get("/healthz")
    assert response.status_code == 200 and response.json()["status"] == "ok"
    assert probe.get("/").status_code == 400  # every other path still checks the host


def test_a_request_id_from_the_proxy_is_kept(client):
    response = client.get("/healthz", headers={"X-Request-ID": "proxy-given-id-42"})
    assert response["X-Request-ID"] == "proxy-given-id-42"
