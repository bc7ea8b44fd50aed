"""The session of an account opens its game sockets as it opens its pages; a session that has lost its
login (a password change on another device, a logout) no longer does, and its open sockets close."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from accordion_site.asgi import application
from accounts.signouts import CLOSE_SIGNED_OUT
from tests.api_client import post, start
from tests.games.sockets import FROM_THE_SITE, refusal

from .conftest import PASSWORD, post_for_status, signed_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("socket_services_stopped")]


@pytest.fixture
def ada_and_game(transactional_db: None) -> tuple[Client, int]:
    """A browser logged in to the account "Ada", which has a game in progress."""
    browser = signed_up("Ada")
    return browser, start(browser, mode="new")["id"]


def socket_of(browser: Client, game_id: int) -> WebsocketCommunicator:
    cookie = f"sessionid={browser.cookies['sessionid'].value}".encode()
    headers = [*FROM_THE_SITE, (b"cookie", cookie)]
    return WebsocketCommunicator(application, f"/ws/games/{game_id}/", headers=headers)


def change_password_elsewhere() -> None:
    elsewhere = Client()
    post(elsewhere, "/api/accounts/login", {"nickname": "Ada", "password": PASSWORD})
    assert post_for_status(elsewhere, "/api/accounts/password", {"old": PASSWORD, "new": "a new secret"}) == 204


async def test_a_logged_in_account_plays_its_game_over_the_socket(ada_and_game):
    browser, game_id = ada_and_game
    socket = socket_of(browser, game_id)
    accepted, _ = await socket.connect()
    assert accepted
    state = await socket.receive_json_from()
    assert state["t"] == "state" and state["game"]["id"] == game_id
    await socket.disconnect()


async def test_a_session_logged_out_by_a_password_change_elsewhere_is_refused(ada_and_game):
    browser, game_id = ada_and_game
    await sync_to_async(change_password_elsewhere)()
    code, message = await refusal(socket_of(browser, game_id))
    assert code == CLOSE_SIGNED_OUT and message is not None and message["code"] == "signed_out"


async def opened(socket: WebsocketCommunicator) -> WebsocketCommunicator:
    accepted, _ = await socket.connect()
    assert accepted
    assert (await socket.receive_json_from())["t"] == "state"
    return socket


async def signed_out(socket: WebsocketCommunicator) -> tuple[dict, int]:
    """The refusal an open socket receives within 2 s, and the close code after it."""
    message = await socket.receive_json_from(timeout=2)
    closing = await socket.receive_output(timeout=2)
    assert closing["type"] == "websocket.close", closing
    await socket.disconnect()
    return message, closing["code"]


async def test_a_password_change_elsewhere_closes_the_accounts_open_sockets_but_not_its_own(ada_and_game):
    browser, game_id = ada_and_game
    old_tab = await opened(socket_of(browser, game_id))
    elsewhere = Client()
    await sync_to_async(post)(elsewhere, "/api/accounts/login", {"nickname": "Ada", "password": PASSWORD})
    new_tab = await opened(socket_of(elsewhere, game_id))

    changed = await sync_to_async(post_for_status)(
        elsewhere, "/api/accounts/password", {"old": PASSWORD, "new": "a new secret"}
    )

    assert changed == 204
    message, code = await signed_out(old_tab)
    assert (message["t"], message["code"], code) == ("refused", "signed_out", CLOSE_SIGNED_OUT)
    assert await new_tab.receive_nothing(timeout=0.5)
    await new_tab.disconnect()


async def test_a_logout_closes_the_sockets_opened_with_that_session(ada_and_game):
    browser, game_id = ada_and_game
    tab = await opened(socket_of(browser, game_id))

    assert await sync_to_async(post_for_status)(browser, "/api/accounts/logout", {}) == 204

    message, code = await signed_out(tab)
    assert (message["code"], code) == ("signed_out", CLOSE_SIGNED_OUT)


async def test_the_sign_out_is_told_in_the_language_of_the_sockets_handshake(ada_and_game):
    browser, game_id = ada_and_game
    socket = socket_of(browser, game_id)
    socket.scope["headers"] = [*socket.scope["headers"], (b"accept-language", b"fa")]
    tab = await opened(socket)

    assert await sync_to_async(post_for_status)(browser, "/api/accounts/logout", {}) == 204

    message, _ = await signed_out(tab)
    assert message["error"].startswith("این نشست")
