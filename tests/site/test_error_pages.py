"""Pages that went wrong say what happened, in the visitor's language, and offer the way home."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation


@pytest.mark.django_db
def test_a_bad_address_gets_a_styled_not_found_page_with_the_way_home(client: Client) -> None:
    response = client.get("/no-such-page")
    assert response.status_code == 404
    page = response.content.decode()
    assert "Page not found" in page
    assert 'href="/" data-testid="error-home"' in page


@pytest.mark.django_db
def test_a_persian_visitor_reads_the_not_found_page_in_persian(client: Client) -> None:
    page = client.get("/players/nobody-here", headers={"accept-language": "fa"}).content.decode()
    assert 'dir="rtl"' in page
    assert "صفحه پیدا نشد" in page


def test_the_server_error_page_needs_no_request_and_offers_the_way_home() -> None:
    with translation.override("en"):
        page = render_to_string("500.html")
    assert "Something went wrong" in page
    assert 'href="/"' in page


@pytest.mark.django_db
def test_the_how_to_play_page_tells_the_history_in_both_languages(client: Client) -> None:
    english = client.get("/how-to-play", headers={"accept-language": "en"}).content.decode()
    persian = client.get("/how-to-play", headers={"accept-language": "fa"}).content.decode()
    assert "1883" in english
    assert "برج بابل" in persian


@pytest.mark.django_db
def test_a_page_asked_with_a_method_it_does_not_take_answers_the_sites_405_page_in_persian(client: Client) -> None:
    response = client.post("/how-to-play", headers={"accept-language": "fa"})
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"
    page = response.content.decode()
    assert 'dir="rtl"' in page and 'data-testid="error-page"' in page
    assert "اینجا در دسترس نیست" in page


@pytest.mark.django_db
def test_the_api_keeps_its_json_405(client: Client) -> None:
    response = client.get("/api/games")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


@pytest.mark.django_db
def test_a_post_without_its_csrf_token_gets_the_sites_403_page_in_the_visitors_language() -> None:
    response = Client(enforce_csrf_checks=True).post("/race", headers={"accept-language": "fa"})
    assert response.status_code == 403
    page = response.content.decode()
    assert 'dir="rtl"' in page and 'data-testid="error-page"' in page


@pytest.mark.django_db
def test_typing_race_in_the_address_bar_offers_to_open_a_race_room(client: Client) -> None:
    response = client.get("/race")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'data-testid="race-new-page"' in page
    assert 'action="/race"' in page and 'data-testid="race-a-friend"' in page
