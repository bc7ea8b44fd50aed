"""The score (docs/rules.md): 10 a removed pile; a win adds 500 and max(0, 1200 - seconds)."""

from __future__ import annotations

from .cards import describe

POINTS_PER_REMOVED_PILE = 10
WIN_BONUS = 500
TIME_BONUS_SECONDS = 1200
GOOD_GAME_PILES = 5


def score(piles: int, seconds: int | None) -> int:
    """Score of a game ending with `piles` piles after `seconds` whole seconds (None: no time bonus)."""
    if type(piles) is not int or not 1 <= piles <= 52:
        raise ValueError(f"piles must be a whole number from 1 to 52, not {describe(piles)}")
    if seconds is not None and (type(seconds) is not int or seconds < 0):
        raise ValueError(f"seconds must be a whole number of at least 0, not {describe(seconds)}")
    points = POINTS_PER_REMOVED_PILE * (52 - piles)
    if piles == 1:
        points += WIN_BONUS + max(0, TIME_BONUS_SECONDS - seconds) if seconds is not None else WIN_BONUS
    return points
