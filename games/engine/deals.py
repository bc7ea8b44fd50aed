"""Deterministic deals: the daily deal of a UTC date, and deals named by a short code.

The derivation is documented in docs/rules.md so that anyone can reproduce a deal: a Fisher-Yates
shuffle of DECK driven by SHA-256 of a seed text.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import secrets
from dataclasses import dataclass

from .cards import DECK, describe
from .position import Move
from .solver import solve

# Deal codes use 32 symbols that cannot be confused when read aloud or copied by hand (no 0/O, 1/I).
CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 8


def _random_words(seed_text: str):  # type: ignore[no-untyped-def]
    """Endless stream of 32-bit unsigned integers: SHA-256(seed_text + "/" + block), 8 words a block."""
    block = 0
    while True:
        digest = hashlib.sha256(f"{seed_text}/{block}".encode()).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(digest[offset : offset + 4], "big")
        block += 1


def shuffled_deck(seed_text: str) -> list[str]:
    """DECK shuffled by Fisher-Yates (i from 51 down to 1, swap i with j in 0..i), where j is a
    32-bit word modulo i+1, words at or above the largest multiple of i+1 being skipped (no bias)."""
    cards = list(DECK)
    words = _random_words(seed_text)
    for i in range(51, 0, -1):
        span = i + 1
        limit = (1 << 32) - (1 << 32) % span
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % span
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def normalize_deal_code(code: str) -> str:
    """Return the canonical form of a deal code (upper case, no separators) or raise ValueError."""
    if not isinstance(code, str):
        raise ValueError("a deal code is text such as 'K7QD-M2XP'")
    cleaned = code.strip().upper().replace("-", "").replace(" ", "")
    if len(cleaned) != CODE_LENGTH or any(symbol not in CODE_ALPHABET for symbol in cleaned):
        raise ValueError(
            f"{describe(code)} is not a deal code: a deal code is {CODE_LENGTH} letters and digits"
            f" such as K7QD-M2XP (no 0, 1, I or O)"
        )
    return cleaned


def format_deal_code(code: str) -> str:
    """The code as shown to people: two groups of four, 'K7QD-M2XP'."""
    canonical = normalize_deal_code(code)
    return f"{canonical[:4]}-{canonical[4:]}"


def new_deal_code() -> str:
    """A fresh random deal code (40 bits), in its display form."""
    return format_deal_code("".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)))


def deal_from_code(code: str) -> list[str]:
    """The deal a code names: shuffled_deck("code:" + canonical code)."""
    return shuffled_deck(f"code:{normalize_deal_code(code)}")


def daily_seed_text(date: datetime.date, attempt: int = 0) -> str:
    return f"daily:{date.isoformat()}:{attempt}"


# A daily deal must be proven winnable by the solver within this many positions. The budget counts
# positions, not seconds, so the derivation gives the same deal on every machine.
CERTIFY_POSITIONS = 2_000_000


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """A certified daily deal: `cards` is shuffled_deck(daily_seed_text(date, attempt)), the first
    attempt whose deal the solver proved winnable; `solution` is the winning line it found."""

    date: datetime.date
    attempt: int
    cards: tuple[str, ...]
    solution: tuple[Move, ...]


@functools.lru_cache(maxsize=512)
def certified_daily_deal(date: datetime.date) -> DailyDeal:
    """The daily deal of a UTC date: seed attempts 0, 1, 2, ... until the solver proves a win."""
    if not isinstance(date, datetime.date):
        raise ValueError("a daily deal needs a datetime.date")
    if isinstance(date, datetime.datetime):
        date = date.date()
    attempt = 0
    while True:
        cards = shuffled_deck(daily_seed_text(date, attempt))
        result = solve(cards, time_limit=None, max_positions=CERTIFY_POSITIONS)
        if result.status == "win" and result.moves is not None:
            return DailyDeal(date, attempt, tuple(cards), tuple(result.moves))
        attempt += 1


def daily_deal(date: datetime.date) -> list[str]:
    """The daily deal of a UTC date, certified winnable (see certified_daily_deal)."""
    return list(certified_daily_deal(date).cards)
