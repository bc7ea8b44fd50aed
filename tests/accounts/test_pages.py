"""The profile and account pages, and nicknames shown inert wherever a page prints them."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Player
from tests.conftest import player_client

from .conftest import signed_up

pytestmark = pytest.mark.django_db

# Nicknames the rule refuses, as an older row or a slip elsewhere could still hold them.
HOSTILE = ["<script>alert(1)", '"><b>x', "x' onmouseover='y", "\u202egnp.exe"]


@pytest.mark.parametrize("nickname", HOSTILE)
def test_a_profile_page_prints_a_hostile_nickname_as_text(nickname):
    Player.objects.create(nickname=nickname)
    response = Client().get(f"/players/{nickname}")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<script>alert" not in html and '"><b>' not in html and "' onmouseover='" not in html
    assert html.count("<bdi>") >= 1


@pytest.mark.parametrize("nickname", HOSTILE)
def test_the_page_header_and_account_page_print_the_players_own_nickname_as_text(nickname):
    browser = player_client(Player.objects.create(nickname=nickname))
    for path in ("/", "/account"):
        html = browser.get(path).content.decode()
        assert "<script>alert" not in html and '"><b>' not in html and "' onmouseover='" not in html


def test_a_bidi_override_in_a_nickname_is_isolated_from_the_text_around_it():
    browser = player_client(Player.objects.create(nickname="\u202egnp.exe"))
    assert "<bdi>\u202egnp.exe</bdi>" in browser.get("/").content.decode()


def test_a_profile_of_nobody_is_a_404_page():
    assert Client().get("/players/Nobody").status_code == 404


def test_the_header_links_a_player_to_their_profile(client):
    html = client.get("/").content.decode()
    assert 'href="/players/Ada"' in html and 'data-testid="nav-profile"' in html


def test_a_visitor_is_offered_sign_up_and_login(db):
    html = Client().get("/account").content.decode()
    assert 'data-form="signup"' in html and 'data-form="login"' in html and 'data-form="rename"' not in html


def test_an_account_is_offered_nickname_password_and_logout(db):
    html = signed_up("Ada").get("/account").content.decode()
    assert all(f'data-form="{form}"' in html for form in ("rename", "password", "logout"))
    assert 'data-form="signup"' not in html


def test_the_pages_set_the_csrf_cookie_their_forms_need(db):
    assert "csrftoken" in Client().get("/account").cookies
