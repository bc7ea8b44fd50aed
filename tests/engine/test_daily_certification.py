"""Every daily deal is certified winnable by the solver, deterministically (docs/rules.md)."""

from __future__ import annotations

import datetime

from games.engine import certified_daily_deal, daily_seed, deals, replay
from games.engine.deals import daily_seed_text, shuffled_deck
from games.engine.solver import SolveResult, solve

YEAR = [datetime.date(2027, 1, 1) + datetime.timedelta(days=n) for n in range(365)]
SECRET = "example secret: never use it on a server"


def seed(date: datetime.date) -> str:
    return daily_seed(date, secret=SECRET)


def test_every_daily_deal_of_a_year_comes_with_a_winning_line_that_replays_to_one_pile():
    for date in YEAR:
        daily = certified_daily_deal(date, seed(date))
        assert list(daily.cards) == shuffled_deck(daily_seed_text(date, seed(date), daily.attempt)), date
        assert replay(list(daily.cards), list(daily.solution)).won, date


def test_a_deal_the_solver_cannot_prove_winnable_is_skipped_for_the_next_attempt(monkeypatch):
    date = datetime.date(2027, 3, 14)
    unprovable = shuffled_deck(daily_seed_text(date, seed(date), 0))

    def solve_but_give_up_on_attempt_0(cards, **budget):
        if list(cards) == unprovable:
            return SolveResult("unknown", None, budget["max_positions"], 0.0)
        return solve(cards, **budget)

    monkeypatch.setattr(deals, "solve", solve_but_give_up_on_attempt_0)
    certified_daily_deal.cache_clear()
    try:
        daily = certified_daily_deal(date, seed(date))
    finally:
        certified_daily_deal.cache_clear()
    assert daily.attempt == 1
    assert list(daily.cards) == shuffled_deck(daily_seed_text(date, seed(date), 1))
    assert replay(list(daily.cards), list(daily.solution)).won


def test_the_derivation_is_deterministic():
    dates = YEAR[:20]
    first = [certified_daily_deal(date, seed(date)) for date in dates]
    certified_daily_deal.cache_clear()
    assert [certified_daily_deal(date, seed(date)) for date in dates] == first
