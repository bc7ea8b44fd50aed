"""replay(deal, moves): the server's referee for a submitted game."""

from __future__ import annotations

import collections
import copy

import pytest

from games.engine import DECK, IllegalMove, Position, apply_move, legal_moves, replay, score


def test_the_winning_line_replays_to_a_single_pile(winning_deal, winning_line):
    position = replay(winning_deal, winning_line)
    assert position.won
    assert position.piles == 1
    assert sorted(position.piles_cards[0]) == sorted(DECK)


def test_a_verified_win_after_90_seconds_scores_2120(winning_deal, winning_line):
    position = replay(winning_deal, winning_line)
    assert score(position.piles, 90) == 10 * 51 + 500 + (1200 - 90)


def test_replaying_no_moves_gives_the_deal(winning_deal):
    assert replay(winning_deal, []) == Position.from_deal(winning_deal)


def test_replay_agrees_with_applying_the_moves_one_by_one(winning_deal, winning_line):
    position = Position.from_deal(winning_deal)
    for played, move in enumerate(winning_line, start=1):
        position = apply_move(position, move)
        assert replay(winning_deal, winning_line[:played]) == position


def test_replay_accepts_moves_as_tuples(winning_deal, winning_line):
    as_tuples = tuple(tuple(move) for move in winning_line)
    assert replay(tuple(winning_deal), as_tuples).won


def test_replay_accepts_moves_from_list_subclasses_and_named_tuples(winning_deal, winning_line):
    class MoveList(list):
        pass

    NamedMove = collections.namedtuple("NamedMove", "source target")
    moves = [MoveList(move) if k % 2 else NamedMove(*move) for k, move in enumerate(winning_line)]
    assert replay(winning_deal, moves).won


def test_replay_does_not_modify_the_deal_or_the_moves(winning_deal, winning_line):
    deal, moves = copy.deepcopy(winning_deal), copy.deepcopy(winning_line)
    replay(deal, moves)
    assert deal == winning_deal
    assert moves == winning_line


def test_the_first_illegal_move_is_named_by_its_index_move_and_reason(winning_deal, winning_line):
    position = replay(winning_deal, winning_line[:10])
    tops = position.tops
    bad = next([s, s - 1] for s in range(1, len(tops)) if (s, s - 1) not in legal_moves(position))
    with pytest.raises(IllegalMove) as caught:
        replay(winning_deal, winning_line[:10] + [bad] + winning_line[11:])
    error = caught.value
    assert error.index == 10
    assert error.move == bad
    assert f"{tops[bad[0]]} onto {tops[bad[1]]}" in error.reason
    assert str(error).startswith(f"move 11 {bad}")


def test_a_move_after_the_win_is_illegal_and_named(winning_deal, winning_line):
    with pytest.raises(IllegalMove) as caught:
        replay(winning_deal, winning_line + [[1, 0]])
    assert caught.value.index == 51
    assert "single pile" in caught.value.reason


def test_an_early_illegal_move_is_named_even_in_an_over_long_list(winning_deal):
    with pytest.raises(IllegalMove) as caught:
        replay(winning_deal, [[5, 1]] + [[1, 0]] * 10_000)
    assert caught.value.index == 0


def test_a_bad_deal_is_reported_as_a_bad_deal_not_as_an_illegal_move(winning_line):
    with pytest.raises(ValueError, match="appears twice") as caught:
        replay(list(DECK[:51]) + ["AC"], winning_line)
    assert not isinstance(caught.value, IllegalMove)


def _deeply_nested(depth: int) -> list[object]:
    nested: list[object] = [1, 0]
    for _ in range(depth):
        nested = [nested]
    return nested


def _self_containing() -> list[object]:
    loop: list[object] = [1]
    loop.append(loop)
    return loop


JUNK_MOVE_LISTS = {
    "null": None,
    "text": "[[1, 0]]",
    "bytes": b"\x01\x00",
    "a number": 7,
    "a dict": {0: [1, 0]},
    "a set": {(1, 0)},
    "a generator": ((1, 0) for _ in range(3)),
}

JUNK_MOVES = {
    "text": "1,0",
    "a number": 1,
    "null": None,
    "a dict": {"from": 1, "to": 0},
    "a set": {1, 0},
    "bytes": b"\x01\x00",
    "one position": [1],
    "three positions": [1, 0, 0],
    "empty": [],
    "booleans": [True, False],
    "integral floats": [1.0, 0.0],
    "fractional floats": [1.5, 0.5],
    "infinities": [float("inf"), float("-inf")],
    "not a number": [float("nan"), 0],
    "text positions": ["1", "0"],
    "null positions": [None, None],
    "nested positions": [[1], [0]],
    "negative": [-1, -2],
    "huge": [10**100, 10**100 - 1],
    "too long to print": [10**5000, 10**5000 - 1],
    "nested 100,000 deep": _deeply_nested(100_000),
    "containing itself": _self_containing(),
    "a position past the end": [52, 51],
}


@pytest.mark.parametrize("moves", list(JUNK_MOVE_LISTS.values()), ids=list(JUNK_MOVE_LISTS))
def test_moves_that_are_not_a_list_are_an_illegal_move_at_index_0(winning_deal, moves):
    with pytest.raises(IllegalMove) as caught:
        replay(winning_deal, moves)
    assert caught.value.index == 0


@pytest.mark.parametrize("junk", list(JUNK_MOVES.values()), ids=list(JUNK_MOVES))
def test_junk_in_place_of_a_move_is_an_illegal_move_naming_its_index(winning_deal, winning_line, junk):
    with pytest.raises(IllegalMove) as caught:
        replay(winning_deal, winning_line[:3] + [junk])
    assert caught.value.index == 3
    assert caught.value.move is junk
    assert len(str(caught.value)) < 300
