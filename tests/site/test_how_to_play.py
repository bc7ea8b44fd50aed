"""How to play: its pictures say true things about their rows, there are at least six tips, the share of
deals won comes from the solver's command, and the history is told in both languages."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from accordion_site.languages import local_figure
from frontend import odds
from games.engine import Position, apply_move, legal_moves

pytestmark = pytest.mark.django_db


class Pictures(HTMLParser):
    """The page's row pictures ([data-cards]) and the testids of the blocks around them, in page order."""

    def __init__(self) -> None:
        super().__init__()
        self.pictures: list[dict[str, str]] = []
        self.tips = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        if "data-cards" in attributes:
            self.pictures.append(attributes)
        if attributes.get("data-testid") == "tip":
            self.tips += 1


def read_page(client: Client, language: str = "en") -> tuple[str, Pictures]:
    page = client.get("/how-to-play", headers={"accept-language": language}).content.decode()
    pictures = Pictures()
    pictures.feed(page)
    return page, pictures


def row(picture: dict[str, str]) -> Position:
    return Position(tuple((card,) for card in picture["data-cards"].split()))


def places(picture: dict[str, str], name: str) -> list[int]:
    return [int(place) for place in picture.get(name, "").split()]


def test_every_picture_shows_a_legal_move_or_a_pile_that_truly_cannot_move(client: Client) -> None:
    _, pictures = read_page(client)
    assert pictures.pictures
    for picture in pictures.pictures:
        position = row(picture)
        moves = legal_moves(position)
        if "data-from" in picture:
            source = int(picture["data-from"])
            assert {(source, target) for target in places(picture, "data-to")} == {
                move for move in moves if move[0] == source
            }, picture
        for pile in places(picture, "data-stuck"):
            assert not any(pile in move for move in moves), picture


def test_the_worked_example_plays_its_row_down_to_one_pile_move_by_move(client: Client) -> None:
    page, _ = read_page(client)
    example = page[page.index('data-testid="worked-example"') : page.index('id="keys-title"')]
    steps = Pictures()
    steps.feed(example)
    assert len(steps.pictures) >= 4
    for before, after in zip(steps.pictures, steps.pictures[1:], strict=False):
        moved = apply_move(row(before), (int(before["data-from"]), places(before, "data-to")[0]))
        assert moved.tops == row(after).tops
    last = steps.pictures[-1]
    assert apply_move(row(last), (int(last["data-from"]), places(last, "data-to")[0])).won


def test_there_are_at_least_six_tips_each_with_its_picture(client: Client) -> None:
    page, pictures = read_page(client)
    assert pictures.tips >= 6
    tips = page[page.index('data-testid="tips"') : page.index('data-testid="odds"')]
    assert tips.count("data-cards=") == pictures.tips


def test_the_share_of_deals_won_is_the_solvers_figure_in_the_readers_digits(client: Client) -> None:
    english, _ = read_page(client, "en")
    assert f"won {odds.WON_DEALS:,} of {odds.SAMPLE_DEALS:,} random deals" in english
    persian, _ = read_page(client, "fa")
    with translation.override("fa"):
        assert local_figure(f"{odds.SAMPLE_DEALS:,}") in persian


def test_the_odds_command_counts_every_deal_of_its_sample_once() -> None:
    out = StringIO()
    call_command("winnable_share", "--deals", "12", stdout=out)
    counts = re.search(r"won (\d+) \([\d.]+%\), lost (\d+), unknown (\d+)", out.getvalue())
    assert counts is not None, out.getvalue()
    assert sum(int(count) for count in counts.groups()) == 12
    assert "shuffled_deck('odds:0' … 'odds:11')" in out.getvalue()


def test_the_history_names_the_idle_year_as_the_games_old_name_and_the_1883_book_in_both_languages(
    client: Client,
) -> None:
    english, _ = read_page(client, "en")
    assert "under the game's old name, The Idle Year, in William Brisbane Dick's book" in english
    assert "Dick&#x27;s Games of Patience" in english or "Dick's Games of Patience" in english
    persian, _ = read_page(client, "fa")
    assert "۱۸۸۳" in persian and "Dick" in persian and "برج بابل" in persian
