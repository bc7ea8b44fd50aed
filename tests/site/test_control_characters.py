"""A NUL or another control character in a request's path, query string, headers or JSON body is a 400
(a socket handshake: refused with 4400), and in the session cookie a fresh anonymous session: never a
500, which PostgreSQL's refusal of NUL in text would make of it."""

from __future__ import annotations

import json

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from accordion_site.asgi import application
from accordion_site.control_characters import CLOSE_BAD_REQUEST
from tests.games.sockets import FROM_THE_SITE, refusal

pytestmark = pytest.mark.django_db

NUL_SESSION_COOKIE = 'sessionid="abcdefgh\\000ijkl"'  # the cookie parser unquotes \000 into a NUL


@pytest.mark.parametrize(
    "path", ["/api/players/Guest%00", "/api/players/Guest%07x", "/api/leaderboards/all-time?x=%00"]
)
def test_a_control_character_in_an_api_path_is_a_json_400(path):
    response = Client().get(path)
    assert response.status_code == 400 and response.json()["code"] == "bad_request"


def test_a_control_character_in_a_page_path_is_a_400():
    assert Client().get("/players/Guest%00").status_code == 400


def test_a_control_character_in_a_header_is_a_400():
    assert Client(HTTP_ACCEPT_LANGUAGE="en\x00").get("/api/leaderboards/all-time").status_code == 400


def test_a_control_character_in_a_json_body_is_a_400():
    body = json.dumps({"nickname": "Ada\u0000", "password": "anything at all"})
    response = Client().post("/api/accounts/login", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "parse_error"


def test_a_session_cookie_holding_a_nul_is_a_fresh_visitor_on_every_page_and_call():
    browser = Client(HTTP_COOKIE=NUL_SESSION_COOKIE)
    assert browser.get("/").status_code == 200
    assert browser.get("/api/me").json()["code"] == "not_found"  # a visitor who has not played
    response = browser.post("/api/games", json.dumps({"mode": "new"}), content_type="application/json")
    assert response.status_code == 201


@pytest.mark.django_db(transaction=True)
async def test_a_socket_handshake_with_a_control_character_in_its_path_is_refused_with_4400():
    socket = WebsocketCommunicator(application, "/ws/games/1\x00/", headers=FROM_THE_SITE)
    code, message = await refusal(socket)
    assert code == CLOSE_BAD_REQUEST and message is not None and message["code"] == "bad_request"


@pytest.mark.django_db(transaction=True)
async def test_a_socket_handshake_with_a_nul_session_cookie_is_a_visitors():
    headers = [*FROM_THE_SITE, (b"cookie", NUL_SESSION_COOKIE.encode())]
    socket = WebsocketCommunicator(application, "/ws/live/", headers=headers)
    accepted, _ = await socket.connect()
    assert accepted
    await socket.disconnect()
