"""Properties that must hold for every deal and every line of play (hypothesis)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import DECK, IllegalMove, Position, apply_move, legal_moves, replay, validate_deal

deals = st.permutations(list(DECK))

# Anything a JSON body could hold, plus a few Python-only shapes (tuples, huge and negative ints).
json_junk = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**120), max_value=10**120)
    | st.floats()
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=12,
)
# Moves that look right often enough to get past the first few, then go wrong in any way.
almost_moves = st.lists(st.integers(min_value=-2, max_value=53), min_size=2, max_size=2)
move_lists = st.lists(almost_moves | json_junk, max_size=60)

relaxed = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def brute_force_legal_moves(position: Position) -> list[tuple[int, int]]:
    """The definition in docs/rules.md, by brute force over every pair of piles."""
    tops = [pile[-1] for pile in position.piles_cards]
    moves = []
    for source in range(len(tops)):
        for target in range(len(tops)):
            top, under = tops[source], tops[target]
            if source - target in (1, 3) and (top[0] == under[0] or top[1] == under[1]):
                moves.append((source, target))
    return sorted(moves, key=lambda move: (move[0], move[0] - move[1]))


def play_randomly(data: st.DataObject, deal: list[str]) -> tuple[list[list[int]], list[Position]]:
    """Play random legal moves until none is left (or hypothesis decides to stop); return the moves
    and every position on the way, the deal first."""
    positions = [Position.from_deal(deal)]
    moves: list[list[int]] = []
    while True:
        choices = legal_moves(positions[-1])
        if not choices or data.draw(st.integers(0, 30)) == 0:
            return moves, positions
        move = data.draw(st.sampled_from(choices))
        moves.append(list(move))
        positions.append(apply_move(positions[-1], move))


@relaxed
@given(deals, st.data())
def test_random_legal_play_always_replays_to_the_same_position(deal, data):
    moves, positions = play_randomly(data, deal)
    assert replay(deal, moves) == positions[-1]


@relaxed
@given(deals, st.data())
def test_each_move_removes_exactly_one_pile(deal, data):
    moves, positions = play_randomly(data, deal)
    assert [position.piles for position in positions] == [52 - played for played in range(len(moves) + 1)]
    assert replay(deal, moves).piles == 52 - len(moves)


@relaxed
@given(deals, st.data())
def test_no_card_is_ever_lost_or_duplicated(deal, data):
    _, positions = play_randomly(data, deal)
    final = positions[-1]
    assert Counter(card for pile in final.piles_cards for card in pile) == Counter(DECK)
    assert final.tops == tuple(pile[-1] for pile in final.piles_cards)


@relaxed
@given(deals, st.data())
def test_applying_a_move_never_changes_the_position_it_was_applied_to(deal, data):
    moves, positions = play_randomly(data, deal)
    snapshots = [position.piles_cards for position in positions]
    for position, move in zip(positions, moves, strict=False):
        apply_move(position, move)
    assert [position.piles_cards for position in positions] == snapshots


@relaxed
@given(deals, st.data())
def test_legal_moves_agree_with_the_brute_force_definition_along_random_play(deal, data):
    _, positions = play_randomly(data, deal)
    for position in positions:
        assert legal_moves(position) == brute_force_legal_moves(position)


@relaxed
@given(deals, st.data())
def test_every_move_outside_the_legal_list_is_refused(deal, data):
    _, positions = play_randomly(data, deal)
    position = data.draw(st.sampled_from(positions))
    legal = set(brute_force_legal_moves(position))
    for source in range(-1, position.piles + 1):
        for target in range(-4, position.piles + 1):
            if (source, target) in legal:
                assert apply_move(position, [source, target]).piles == position.piles - 1
            else:
                try:
                    apply_move(position, [source, target])
                except IllegalMove:
                    continue
                raise AssertionError(f"{[source, target]} was accepted on {position.tops}")


@relaxed
@given(deals, move_lists)
def test_replay_of_any_junk_either_succeeds_or_names_the_first_bad_move(deal, moves):
    try:
        position = replay(deal, moves)
    except IllegalMove as error:
        assert isinstance(error.index, int) and 0 <= error.index < max(len(moves), 1)
        assert len(str(error)) < 400
        # Everything before the named move was legal, and the named move itself is not.
        before = replay(deal, moves[: error.index])
        assert error.move is moves[error.index]
        with pytest.raises(IllegalMove):
            apply_move(before, error.move)
    else:
        assert position.piles == 52 - len(moves)


@relaxed
@given(deals, json_junk)
def test_replay_of_moves_that_are_any_json_value_never_raises_anything_but_illegal_move(deal, moves):
    try:
        position = replay(deal, moves)
    except IllegalMove as error:
        assert error.index == 0 or isinstance(moves, (list, tuple))
    else:
        assert position.piles == 52 - len(moves)


@relaxed
@given(json_junk | st.lists(st.sampled_from(list(DECK)) | json_junk, min_size=50, max_size=54))
def test_a_junk_deal_is_refused_with_value_error_and_nothing_else(deal):
    try:
        validated = validate_deal(deal)
    except ValueError:
        try:
            replay(deal, [])
        except ValueError as error:
            assert not isinstance(error, IllegalMove)
            return
        raise AssertionError("replay accepted a deal that validate_deal refused") from None
    assert sorted(validated) == sorted(DECK)
