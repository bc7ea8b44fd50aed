"""Allowances are counted atomically in the shared cache (Redis when REDIS_URL is set, as in production):
of a burst of concurrent requests exactly the allowance passes, never more. The counts hold both ways
of counting: the one the cache in use takes (`window_count`: one script on Redis) and the cache's own
add, increment and get (`count_with_cache_calls`, the in-process cache's way)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections
from django.test import Client

from accordion_site.throttles import count_with_cache_calls, window_count
from tests.api_client import start

BURST = 40
Count = Callable[..., tuple[int, float]]
ways_of_counting = pytest.mark.parametrize("count", [window_count, count_with_cache_calls])


@ways_of_counting
def test_concurrent_counts_let_exactly_the_allowance_through(count: Count) -> None:
    allowance = 15
    with ThreadPoolExecutor(max_workers=BURST) as threads:
        counts = list(threads.map(lambda _: count("test:burst", period=60)[0], range(BURST)))
    assert sorted(counts) == list(range(1, BURST + 1))
    assert sum(number <= allowance for number in counts) == allowance


@ways_of_counting
def test_the_count_says_when_its_window_ends(count: Count) -> None:
    _, first_left = count("test:window", period=60)
    _, later_left = count("test:window", period=60)
    assert 0 < later_left <= first_left <= 60


@ways_of_counting
def test_another_key_has_a_count_of_its_own(count: Count) -> None:
    for _ in range(3):
        count("test:one", period=60)
    assert count("test:other", period=60)[0] == 1


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_one_players_requests_gets_exactly_the_players_allowance(settings):
    settings.API_PLAYER_RATE = "10/minute"
    player = Client()
    start(player, mode="new")  # made by this request, so not yet counted as the player

    def ask(_: int) -> int:
        tab = Client()
        tab.cookies = player.cookies
        try:
            return tab.get("/api/me").status_code
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=8) as threads:
        answers = list(threads.map(ask, range(BURST)))
    assert answers.count(200) == 10 and answers.count(429) == BURST - 10


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_one_players_solver_requests_gets_exactly_the_solver_allowance(settings, winning_game):
    settings.SOLVER_REQUESTS_PER_MINUTE = 5
    player = Client()
    game = start(player, mode="code", code=winning_game["deal_code"])

    def ask(_: int) -> int:
        tab = Client()
        tab.cookies = player.cookies
        try:
            return tab.get(f"/api/games/{game['id']}/winnable").status_code
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=8) as threads:
        answers = list(threads.map(ask, range(BURST)))
    assert answers.count(429) == BURST - 5  # the 5 let through are answered, or told the pool is busy
