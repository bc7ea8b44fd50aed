"""A socket opens only from the site's own pages: the Origin must be the origin the handshake's Host
names (a port left out is the scheme's default) or one of CSRF_TRUSTED_ORIGINS, so a page another
program serves on the same host but another port cannot open a player's socket with the player's
cookies. A refused handshake is closed unaccepted, as for any foreign origin."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings
from django.utils import timezone

from accordion_site.asgi import application
from accounts.models import Player
from games.models import Game
from games.services import game_start

from .sockets import session_cookie_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("example_hosts"),
]


@pytest.fixture
def example_hosts(settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["127.0.0.1", "example.com", ".example.org"]


@pytest.fixture
async def game(player: Player) -> Game:
    game, _ = await sync_to_async(game_start)(player=player, mode="new", now=timezone.now())
    return game


async def opens(game: Game, player: Player, *, origin: str, host: str | None) -> bool:
    """Whether the player's socket, opened by a page at `origin` on the site reached as `host` (no Host
    header when None), is accepted and sends the game."""
    headers = [(b"origin", origin.encode()), (b"cookie", await session_cookie_for(player))]
    if host is not None:
        headers.append((b"host", host.encode()))
    socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=headers)
    accepted, _ = await socket.connect()
    if accepted:
        assert (await socket.receive_json_from())["t"] == "state"
    await socket.disconnect()
    return accepted


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000"),  # make run
        ("https://example.com", "example.com"),  # behind deploy/nginx.conf, which forwards the Host
        ("http://example.com:80", "example.com"),
        ("https://example.com:443", "example.com"),
        ("http://example.com", "example.com:80"),
        ("https://EXAMPLE.com", "example.COM"),
    ],
)
async def test_a_page_of_the_site_opens_its_socket_whichever_way_it_writes_a_default_port(game, player, origin, host):
    assert await opens(game, player, origin=origin, host=host)


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("http://127.0.0.1:9999", "127.0.0.1:8000"),
        ("http://127.0.0.1", "127.0.0.1:8000"),
        ("http://example.com:8443", "example.com"),
        ("https://example.com:8443", "example.com"),
        ("http://example.com:443", "example.com"),
    ],
)
async def test_a_page_on_another_port_of_the_same_host_cannot_open_a_players_socket(game, player, origin, host):
    assert not await opens(game, player, origin=origin, host=host)


async def test_an_origin_in_csrf_trusted_origins_opens_the_socket_whatever_host_the_proxy_forwards(
    game, player, settings
):
    # The site is public at https://example.com:8443; nginx forwards Host "example.com" without the port.
    assert not await opens(game, player, origin="https://example.com:8443", host="example.com")
    settings.CSRF_TRUSTED_ORIGINS = ["https://example.com:8443"]
    assert await opens(game, player, origin="https://example.com:8443", host="example.com")


@override_settings(CSRF_TRUSTED_ORIGINS=["https://*.example.org"])
@pytest.mark.parametrize(
    ("origin", "opened"),
    [
        ("https://play.example.org", True),
        ("https://example.org", True),
        ("http://play.example.org", False),
        ("https://play.example.org:8443", False),
    ],
)
async def test_a_wildcard_csrf_trusted_origin_admits_its_subdomains_on_its_scheme_and_port(
    game, player, origin, opened
):
    assert await opens(game, player, origin=origin, host="example.com") is opened


@override_settings(CSRF_TRUSTED_ORIGINS=["example.com:8443"])
async def test_a_csrf_trusted_origin_without_a_scheme_admits_nothing_as_in_django(game, player):
    assert not await opens(game, player, origin="https://example.com:8443", host="example.com")


@override_settings(CSRF_TRUSTED_ORIGINS=["https://elsewhere.example"])
async def test_a_trusted_origin_outside_allowed_hosts_is_still_refused(game, player):
    assert not await opens(game, player, origin="https://elsewhere.example", host="example.com")


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("http://127.0.0.1:8000", None),
        ("null", "127.0.0.1:8000"),
        ("http://127.0.0.1:port", "127.0.0.1:8000"),
        ("http://127.0.0.1:8000", "127.0.0.1:99999"),
        ("http://[::1", "127.0.0.1:8000"),
    ],
)
async def test_a_handshake_without_a_host_or_with_a_malformed_origin_is_refused_not_failed(game, player, origin, host):
    assert not await opens(game, player, origin=origin, host=host)
