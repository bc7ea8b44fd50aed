"""Refusals are worded in the reader's language, over HTTP and over the sockets; their codes never change."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone

from accordion_site.asgi import application
from accounts.models import Player
from games import engine
from games.services import game_start
from tests.api_client import post, start
from tests.games.sockets import FROM_THE_SITE, refusal, session_cookie_for

MISSING_GAME = 987654321


async def persian_socket(path: str, player: Player, *, cookie: str = "", accept_language: bytes = b"") -> object:
    """An unconnected communicator for `path` carrying `player`'s session and the given language hints."""
    cookies = (await session_cookie_for(player)) + (f"; {cookie}".encode() if cookie else b"")
    headers = [*FROM_THE_SITE, (b"cookie", cookies)]
    if accept_language:
        headers.append((b"accept-language", accept_language))
    return WebsocketCommunicator(application, path, headers=headers)


@pytest.mark.django_db
def test_a_persian_browser_reads_an_api_refusal_in_persian_with_the_same_code(client: Client) -> None:
    answer = client.get(f"/api/games/{MISSING_GAME}", headers={"accept-language": "fa-IR,fa;q=0.9"})
    assert answer.status_code == 404
    assert answer.json() == {"error": f"بازی {MISSING_GAME} وجود ندارد", "code": "not_found"}


@pytest.mark.django_db
def test_an_illegal_finish_names_the_bad_move_in_persian(client: Client, winning_game: dict) -> None:
    client.cookies["django_language"] = "fa"
    game = start(client, mode="code", code=winning_game["deal_code"])
    status, error = post(client, f"/api/games/{game['id']}/finish", {"moves": [*winning_game["moves"][:2], [1, 3]]})
    assert status == 400 and error["code"] == "illegal_move" and error["index"] == 2
    assert error["error"] == "حرکت ۳ [1, 3]: هر دسته روی دستهٔ ۱ یا ۳ جایگاه سمت چپش می‌رود"  # noqa: RUF001


@pytest.mark.django_db
def test_a_refusals_counts_are_in_persian_digits_and_the_move_as_sent(client: Client, winning_game: dict) -> None:
    client.cookies["django_language"] = "fa"
    game = start(client, mode="code", code=winning_game["deal_code"])
    status, error = post(client, f"/api/games/{game['id']}/finish", {"moves": [[99, 98]]})
    assert status == 400 and error["code"] == "illegal_move"
    words = error["error"]
    assert words.startswith("حرکت ۱ [99, 98]:") and "۵۲ دسته" in words and "۵۱" in words  # noqa: RUF001


@pytest.mark.django_db
def test_a_deal_code_that_is_none_is_refused_in_persian(client: Client) -> None:
    client.cookies["django_language"] = "fa"
    status, error = post(client, "/api/games", {"mode": "code", "code": "0000-0000"})
    assert status == 400 and error["code"] == "invalid"
    assert error["error"].startswith("'0000-0000' کد دست نیست") and "۹ حرف" in error["error"]


@pytest.mark.django_db
def test_an_english_browser_still_reads_api_refusals_in_english(client: Client) -> None:
    answer = client.get(f"/api/games/{MISSING_GAME}", headers={"accept-language": "en-GB,en;q=0.9"})
    assert answer.json() == {"error": f"there is no game {MISSING_GAME}", "code": "not_found"}


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("socket_services_stopped")
async def test_a_socket_with_a_persian_browser_is_refused_in_persian(player: Player) -> None:
    socket = await persian_socket(f"/ws/games/{MISSING_GAME}/", player, accept_language=b"fa-IR,fa;q=0.9,en;q=0.5")
    close_code, message = await refusal(socket)
    assert close_code == 4404
    assert message == {"t": "refused", "error": f"بازی {MISSING_GAME} وجود ندارد", "code": "not_found"}


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("socket_services_stopped")
async def test_the_language_chosen_on_the_page_words_a_sockets_rejects(player: Player, winning_game: dict) -> None:
    game, _ = await sync_to_async(game_start)(
        player=player, mode="code", code=winning_game["deal_code"], now=timezone.now()
    )
    socket = await persian_socket(
        f"/ws/games/{game.pk}/?v={game.version}", player, cookie="django_language=fa", accept_language=b"en"
    )
    assert (await socket.connect())[0]
    deal = winning_game["deal"]
    bad = next([s, s - 1] for s in range(1, 52) if not engine.cards_match(deal[s], deal[s - 1]))
    await socket.send_json_to({"t": "move", "move": bad, "n": 1})
    answer = await socket.receive_json_from()
    assert answer["t"] == "reject" and answer["code"] == "illegal_move"
    assert "کارت‌ها جور نیستند" in answer["error"]  # noqa: RUF001
    await socket.send_json_to({"t": "undo", "n": 2})
    answer = await socket.receive_json_from()
    assert answer == {"t": "reject", "n": 2, "error": "حرکتی برای واگرد نیست", "code": "nothing_to_undo"}
    await socket.disconnect()


@pytest.mark.django_db
def test_a_nickname_too_short_is_refused_with_the_count_in_persian_digits(client: Client) -> None:
    client.cookies["django_language"] = "fa"
    response = client.patch("/api/me", data='{"nickname": "ab"}', content_type="application/json")
    assert response.status_code == 400 and "۳" in response.json()["error"]
