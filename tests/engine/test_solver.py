"""The solver: its answers are checked against the engine's own rules and an exhaustive brute force."""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Sequence
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import DECK, IllegalMove, Position, analysis, apply_move, legal_moves, replay
from games.engine.cards import CARD_INDEX
from games.engine.deals import shuffled_deck
from games.engine.solver import HintResult, SolveResult, first_losing_move, hint, solve

# --- helpers ---------------------------------------------------------------------------------------


def row_position(cards: Sequence[str]) -> Position:
    return Position(tuple((card,) for card in cards))


@cache
def brute_force_winnable(tops: tuple[str, ...]) -> bool:
    """Exhaustive search with the engine's own legal_moves/apply_move, memoised on the top cards."""
    position = row_position(tops)
    if position.won:
        return True
    return any(brute_force_winnable(apply_move(position, move).tops) for move in legal_moves(position))


def play(position: Position, moves: Sequence[Sequence[int]]) -> Position:
    for move in moves:
        position = apply_move(position, move)
    return position


def winning_line(deal: list[str]) -> list[tuple[int, int]]:
    result = solve(deal, time_limit=None, max_positions=2_000_000)
    assert result.status == "win" and result.moves is not None
    return result.moves


@cache
def losing_game() -> tuple[list[str], list[tuple[int, int]], int]:
    """A deal, a line played from it that ends in a lost position, and the index of the move on that
    line that threw the game away, all established by brute force.

    The line follows a winning line down to 12 piles, plays a move that brute force says loses, then
    two more legal moves. Brute force then walks back from the end to find the last winnable
    position (it only ever has to look at rows of 12 piles or fewer)."""
    for seed in range(50):
        deal = shuffled_deck(f"test-solver:{seed}")
        line = winning_line(deal)
        prefix = line[:40]  # 52 - 40 = 12 piles
        position = replay(deal, prefix)
        for move in legal_moves(position):
            after = apply_move(position, move)
            if brute_force_winnable(after.tops):
                continue
            moves = [*prefix, move]
            for _ in range(2):
                follow = legal_moves(after)
                if not follow:
                    break
                after = apply_move(after, follow[0])
                moves.append(follow[0])
            positions = [replay(deal, moves[:k]) for k in range(len(moves) + 1)]
            last_winnable = max(k for k, p in enumerate(positions) if p.piles > 12 or brute_force_winnable(p.tops))
            assert last_winnable == len(prefix)
            return deal, moves, last_winnable
    raise AssertionError("no deal among 50 offered a losing move at 12 piles")


# Rows of random cards are mostly lost; rows drawn from few suits and ranks are mostly winnable.
FEW_SUITS_AND_RANKS = tuple(rank + suit for rank in "A2345" for suit in "CDH")

small_rows = st.one_of(
    st.lists(st.sampled_from(DECK), min_size=4, max_size=10, unique=True),
    st.lists(st.sampled_from(FEW_SUITS_AND_RANKS), min_size=4, max_size=10, unique=True),
)


# --- solve: answers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_a_winning_line_from_a_deal_replays_to_one_pile(seed):
    deal = shuffled_deck(f"bench:{seed}")
    result = solve(deal, time_limit=None)
    assert result.status == "win"
    assert result.moves is not None and len(result.moves) == 51
    assert replay(deal, result.moves).won


def test_a_winning_line_from_a_mid_game_position_replays_to_one_pile():
    deal = shuffled_deck("bench:7")
    # Part-way through a game: 20 moves of some winning line, then ask again from there.
    middle = replay(deal, winning_line(deal)[:20])
    assert middle.piles == 32
    result = solve(middle, time_limit=None)
    assert result.status == "win" and result.moves is not None
    assert len(result.moves) == 31
    assert play(middle, result.moves).won


def test_a_mid_game_position_with_tall_piles_is_solved_on_its_top_cards():
    deal = shuffled_deck("bench:3")
    middle = replay(deal, winning_line(deal)[:30])
    assert any(len(pile) > 1 for pile in middle.piles_cards)
    result = solve(middle, time_limit=None)
    assert result.status == "win" and result.moves is not None
    assert play(middle, result.moves).won


def test_an_already_won_position_is_a_win_with_no_moves():
    result = solve(Position((("TD", "9D"),)))
    assert result == SolveResult("win", [], 0, result.seconds)


def test_a_row_whose_cards_share_nothing_is_lost():
    result = solve(row_position(["AC", "2D", "3H", "4S"]))
    assert result.status == "lost" and result.moves is None


@settings(max_examples=300, deadline=None)
@given(small_rows)
def test_win_or_lost_agrees_with_brute_force_on_small_rows(cards):
    result = solve(row_position(cards), time_limit=None)
    assert result.status == ("win" if brute_force_winnable(tuple(cards)) else "lost")
    if result.status == "win":
        assert result.moves is not None and play(row_position(cards), result.moves).won


def test_brute_force_comparison_sees_both_outcomes_on_a_fixed_sample():
    rng = random.Random(20240601)
    outcomes = {"win": 0, "lost": 0}
    for _ in range(400):
        cards = rng.sample(rng.choice([DECK, FEW_SUITS_AND_RANKS]), rng.randint(4, 10))
        result = solve(row_position(cards), time_limit=None)
        assert result.status == ("win" if brute_force_winnable(tuple(cards)) else "lost"), cards
        outcomes[result.status] += 1
    assert outcomes["win"] >= 40 and outcomes["lost"] >= 40, outcomes


def test_a_malformed_deal_is_refused_with_a_value_error():
    with pytest.raises(ValueError, match="52 cards"):
        solve(["AC", "2C"])
    with pytest.raises(ValueError, match="twice"):
        solve(["AC"] * 52)


# --- solve: budgets ---------------------------------------------------------------------------------


def test_a_budget_of_one_position_gives_unknown_on_a_full_deal():
    result = solve(shuffled_deck("bench:21"), max_positions=1)
    assert result.status == "unknown" and result.moves is None
    assert result.positions <= 1


def test_a_time_limit_of_zero_gives_unknown_on_a_full_deal():
    result = solve(shuffled_deck("bench:21"), time_limit=0)
    assert result.status == "unknown"


def test_an_already_set_cancel_event_returns_unknown_promptly():
    cancel = threading.Event()
    cancel.set()
    started = time.perf_counter()
    result = solve(shuffled_deck("bench:21"), time_limit=None, cancel=cancel)
    assert result.status == "unknown"
    assert time.perf_counter() - started < 0.5


class EventSetOnItsThirdLook(threading.Event):
    """Reports itself set from the third time the solver looks at it: shows it is checked while
    the search runs, not only at the start."""

    def __init__(self) -> None:
        super().__init__()
        self.looks = 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks >= 3


def test_a_cancel_event_is_checked_periodically_during_the_search():
    # Its proof needs far more positions than a few cancellation checks allow.
    row = lost_row_that_takes_long_to_prove()
    cancel = EventSetOnItsThirdLook()
    result = solve(row_position(row), time_limit=None, cancel=cancel)
    assert result.status == "unknown"
    assert cancel.looks == 3
    assert result.positions < 10_000


def test_a_cancel_event_set_from_another_thread_stops_the_search():
    row = lost_row_that_takes_long_to_prove()
    cancel = threading.Event()
    timer = threading.Timer(0.05, cancel.set)
    timer.start()
    started = time.perf_counter()
    result = solve(row_position(row), time_limit=None, cancel=cancel)
    timer.cancel()
    assert result.status == "unknown"
    assert time.perf_counter() - started < 1.0


def test_a_tiny_dead_table_cap_still_gives_correct_answers():
    rng = random.Random(7)
    for _ in range(60):
        cards = rng.sample(rng.choice([DECK, FEW_SUITS_AND_RANKS]), rng.randint(6, 10))
        result = solve(row_position(cards), time_limit=None, dead_table_cap=2)
        assert result.status == ("win" if brute_force_winnable(tuple(cards)) else "lost"), cards
    deal = shuffled_deck("bench:1")
    result = solve(deal, time_limit=None, dead_table_cap=16)
    assert result.status == "win" and result.moves is not None and replay(deal, result.moves).won


def test_the_dead_table_never_grows_past_its_cap():
    from games.engine import solver

    search = solver._Search(None, None, None, 50)
    sizes: list[int] = []

    class WatchedSet(set):
        def add(self, row):
            super().add(row)
            sizes.append(len(self))

    search.dead = WatchedSet()
    row = bytes(CARD_INDEX[card] for card in lost_row_that_takes_long_to_prove()[:20])
    search.max_positions = 20_000
    with contextlib.suppress(solver._OutOfBudget):
        search.solve_row(row)
    assert len(sizes) > 100  # the table filled up and was cleared several times
    assert max(sizes) <= 50


def test_a_shared_dead_table_answers_a_lost_position_again_without_searching_it():
    rows: set[bytes] = set()
    position = row_position(lost_row_that_takes_long_to_prove())
    first = solve(position, time_limit=None, dead_rows=rows)
    again = solve(position, time_limit=None, dead_rows=rows)
    assert first.status == again.status == "lost"
    assert first.positions > 1_000 and again.positions <= 1


def test_a_shared_dead_table_speeds_up_the_next_positions_of_a_game_and_changes_no_answer():
    rng = random.Random(3)
    deal = shuffled_deck("test-solver:shared")
    position, rows = replay(deal, []), set[bytes]()
    alone = shared = 0
    for _ in range(12):
        fresh = solve(position, time_limit=None, max_positions=300_000)
        warm = solve(position, time_limit=None, max_positions=300_000, dead_rows=rows)
        assert fresh.status == warm.status
        alone, shared = alone + fresh.positions, shared + warm.positions
        moves = legal_moves(position)
        if not moves:
            break
        position = apply_move(position, rng.choice(moves))
    assert rows and shared < alone


def test_a_hint_with_a_shared_dead_table_gives_the_same_advice():
    deal, moves, last_winnable = losing_game()
    rows: set[bytes] = set()
    for k in range(last_winnable - 2, len(moves) + 1):
        fresh, warm = hint(deal, moves[:k], time_limit=None), hint(deal, moves[:k], time_limit=None, dead_rows=rows)
        assert (fresh.status, fresh.undo) == (warm.status, warm.undo), k
        if warm.move is not None:  # perhaps another move than the fresh search's, one that keeps a win too
            after = replay(deal, [*moves[:k], warm.move])
            assert after.won or solve(after, time_limit=None).status == "win", k


def test_the_sites_questions_remember_the_rows_they_proved_lost(monkeypatch):
    monkeypatch.setattr(analysis, "_dead_rows", set())
    deal, moves, last_winnable = losing_game()
    advice = analysis.position_hint(deal, moves, 5.0)
    assert advice.status == "undo" and advice.undo == len(moves) - last_winnable
    assert analysis._dead_rows  # the next question about this game starts from them
    assert analysis.position_status(deal, moves[: last_winnable + 1], 5.0) == "lost"


def test_a_dead_table_cap_below_one_is_refused():
    with pytest.raises(ValueError):
        solve(shuffled_deck("bench:0"), dead_table_cap=0)


# --- hint -----------------------------------------------------------------------------------------


def test_a_hint_from_every_position_along_a_winning_line_keeps_the_game_winnable():
    deal = shuffled_deck("bench:2")
    line = winning_line(deal)
    for k in range(len(line)):
        advice = hint(deal, line[:k], time_limit=None)
        assert advice.status == "move" and advice.move is not None, k
        after = replay(deal, [*line[:k], advice.move])
        assert after.won or solve(after, time_limit=None).status == "win", k
    assert hint(deal, line).status == "won"


def test_a_hint_in_a_lost_position_counts_the_moves_to_undo():
    deal, moves, last_winnable = losing_game()
    advice = hint(deal, moves, time_limit=None)
    assert advice == HintResult(
        "undo", undo=len(moves) - last_winnable, positions=advice.positions, seconds=advice.seconds
    )
    assert advice.undo == 3


def test_a_hint_right_after_the_losing_move_says_undo_one():
    deal, moves, last_winnable = losing_game()
    advice = hint(deal, moves[: last_winnable + 1], time_limit=None)
    assert advice.status == "undo" and advice.undo == 1


def test_a_hint_out_of_budget_is_unknown():
    deal, moves, _ = losing_game()
    assert hint(deal, moves[:5], max_positions=1).status == "unknown"


def test_a_hint_on_moves_that_do_not_replay_raises_illegal_move():
    deal = shuffled_deck("bench:2")
    with pytest.raises(IllegalMove):
        hint(deal, [[0, 1]])


# --- first_losing_move ----------------------------------------------------------------------------


def test_first_losing_move_names_the_move_that_threw_the_game_away():
    deal, moves, last_winnable = losing_game()
    assert first_losing_move(deal, moves, time_limit=None) == last_winnable
    assert first_losing_move(deal, moves[: last_winnable + 1], time_limit=None) == last_winnable


def test_first_losing_move_is_none_while_the_game_is_still_winnable():
    deal, moves, last_winnable = losing_game()
    assert first_losing_move(deal, moves[:last_winnable], time_limit=None) is None
    assert first_losing_move(deal, [], time_limit=None) is None


def test_first_losing_move_is_none_when_the_budget_runs_out():
    deal, moves, _ = losing_game()
    assert first_losing_move(deal, moves, max_positions=0) is None


# --- a hard lost row, found once -----------------------------------------------------------------


def lost_row_that_takes_long_to_prove() -> tuple[str, ...]:
    """24 random cards (found by sampling rows) that cannot be brought down to one pile; the solver
    examines about 190,000 positions (1-2 s) to prove it, so a search on it runs long enough to
    be cancelled or cut short."""
    return (
        *("8D", "2C", "QC", "KS", "2D", "TS", "4D", "7S", "7D", "6H", "AH", "AC"),
        *("6D", "JC", "AS", "4C", "8C", "2H", "9H", "AD", "5D", "JS", "QD", "8S"),
    )
