"""A visitor who meets an error meets the site's own page, in their language, on a phone too; never
Django's debug page (the server runs as `make run` does) nor the browser's own."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from .player import fits_the_width, inside_the_screen, visitor_page

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("language", ["fa", "en"])
def test_a_mistyped_address_on_a_phone_shows_the_sites_page_with_the_way_home_on_screen(
    browser: Browser, site_url: str, language: str
) -> None:
    with visitor_page(browser, site_url, language=language, size="phone") as page:
        response = page.goto("/gamez/12")
        assert response is not None and response.status == 404
        expect(page.locator("html")).to_have_attribute("dir", "rtl" if language == "fa" else "ltr")
        expect(page.locator("h1")).to_have_text("صفحه پیدا نشد" if language == "fa" else "Page not found")
        assert "URLconf" not in page.content()
        home = page.get_by_test_id("error-home")
        # The site's stylesheet is applied: the way home is a gold button, on screen without scrolling.
        assert "gradient" in home.evaluate("button => getComputedStyle(button).backgroundImage")
        assert inside_the_screen(page, home)
        assert fits_the_width(page)
        home.click()
        expect(page.get_by_test_id("daily")).to_be_visible()


def test_a_form_sent_to_a_page_that_takes_no_form_gets_the_sites_405_page_in_persian(
    browser: Browser, site_url: str
) -> None:
    with visitor_page(browser, site_url, language="fa", size="phone") as page:
        page.goto("/")
        token = page.locator("input[name=csrfmiddlewaretoken]").first.input_value()
        page.evaluate(
            """(token) => {
                const form = Object.assign(document.createElement("form"), {method: "post", action: "/how-to-play"});
                const field = Object.assign(document.createElement("input"), {name: "csrfmiddlewaretoken"});
                field.value = token;
                form.append(field);
                document.body.append(form);
                form.submit();
            }""",
            token,
        )
        expect(page.locator("h1")).to_have_text("اینجا در دسترس نیست")
        assert inside_the_screen(page, page.get_by_test_id("error-home"))


def test_a_form_sent_without_its_security_token_gets_the_sites_403_page_in_persian(
    browser: Browser, site_url: str
) -> None:
    with visitor_page(browser, site_url, language="fa", size="phone") as page:
        page.goto("/")
        page.evaluate(
            """() => {
                const form = Object.assign(document.createElement("form"), {method: "post", action: "/race"});
                document.body.append(form);
                form.submit();
            }"""
        )
        expect(page.locator("h1")).to_have_text("دسترسی ندارید")
        assert "CSRF" not in page.content()
        assert inside_the_screen(page, page.get_by_test_id("error-home"))


def test_typing_race_in_the_address_bar_offers_a_race_room_that_opens(browser: Browser, site_url: str) -> None:
    with visitor_page(browser, site_url, language="en", size="phone") as page:
        response = page.goto("/race")
        assert response is not None and response.status == 200
        offer = page.get_by_test_id("race-a-friend")
        assert inside_the_screen(page, offer)
        offer.click()
        page.wait_for_url(re.compile(r"/race/[0-9A-Z]{6}$"))
        expect(page.get_by_test_id("invite-link")).not_to_have_value("")
