"""Positions, legal moves and applying one move."""

from __future__ import annotations

import dataclasses

import pytest

from games.engine import DECK, IllegalMove, Position, apply_move, legal_moves


def row(*tops: str) -> Position:
    """A position of one-card piles. Cards not named are never looked at by these tests."""
    return Position(tuple((card,) for card in tops))


def test_a_fresh_deal_is_52_one_card_piles_showing_the_deal():
    deal = list(DECK)
    position = Position.from_deal(deal)
    assert position.piles == 52
    assert position.tops == tuple(deal)
    assert not position.won


def test_a_pile_moves_onto_its_left_neighbour_when_the_suits_match():
    after = apply_move(row("2C", "9C", "KH"), (1, 0))
    assert after.piles_cards == (("2C", "9C"), ("KH",))


def test_a_pile_moves_three_places_left_when_the_ranks_match():
    after = apply_move(row("9D", "2C", "3H", "9S", "KH"), (3, 0))
    assert after.piles_cards == (("9D", "9S"), ("2C",), ("3H",), ("KH",))


def test_the_whole_pile_moves_and_lands_on_top_of_the_target():
    start = Position((("AC", "5D"), ("2H", "8D"), ("7S", "KD"), ("4C",)))
    after = apply_move(start, [2, 1])
    assert after.piles_cards == (("AC", "5D"), ("2H", "8D", "7S", "KD"), ("4C",))
    assert after.tops == ("5D", "KD", "4C")


def test_applying_a_move_leaves_the_original_position_unchanged():
    before = row("2C", "9C", "KH")
    apply_move(before, [1, 0])
    assert before.piles_cards == (("2C",), ("9C",), ("KH",))
    assert before.tops == ("2C", "9C", "KH")


def test_a_position_cannot_be_modified_in_place():
    position = row("2C", "9C")
    with pytest.raises(dataclasses.FrozenInstanceError):
        position.piles_cards = ()  # type: ignore[misc]


def test_a_single_pile_is_a_win():
    assert Position((tuple(DECK),)).won
    assert not row("AC", "2C").won


def test_a_move_between_cards_sharing_neither_suit_nor_rank_names_both_cards():
    with pytest.raises(IllegalMove, match="JS onto TD") as caught:
        apply_move(row("TD", "JS"), [1, 0])
    assert caught.value.move == [1, 0]
    assert caught.value.index is None
    assert "share neither suit nor rank" in caught.value.reason


@pytest.mark.parametrize(
    "move",
    [[2, 0], [4, 0], [0, 1], [1, 1], [0, -1], [-1, -2], [5, 4], [True, False], [1.0, 0.0], ["1", "0"]],
)
def test_a_move_that_is_not_one_or_three_places_left_within_the_row_is_illegal(move):
    # Every card here is a club, so only the shape of the move can make it illegal.
    with pytest.raises(IllegalMove):
        apply_move(row("AC", "2C", "3C", "4C", "5C"), move)


def test_an_illegal_move_is_a_value_error_for_callers_that_catch_those():
    with pytest.raises(ValueError):
        apply_move(row("TD", "JS"), [1, 0])


def test_no_move_is_legal_once_the_game_is_won():
    won = Position((tuple(DECK),))
    assert legal_moves(won) == []
    with pytest.raises(IllegalMove, match="single pile"):
        apply_move(won, [0, 0])


def test_legal_moves_are_listed_by_source_pile_then_one_place_before_three():
    #          0     1     2     3     4
    position = row("AC", "AD", "2D", "AH", "3H")
    assert legal_moves(position) == [(1, 0), (2, 1), (3, 0), (4, 3)]


def test_legal_moves_look_only_at_the_top_cards():
    # Bottom cards that would match must not create moves.
    position = Position((("KD", "AC"), ("KD", "2H")))
    assert legal_moves(position) == []


def test_a_row_where_nothing_matches_has_no_legal_moves():
    assert legal_moves(row("AC", "2D", "3H", "4S")) == []


def test_every_listed_legal_move_can_be_applied():
    position = Position.from_deal(list(DECK))
    moves = legal_moves(position)
    assert moves
    for move in moves:
        assert apply_move(position, move).piles == 51
