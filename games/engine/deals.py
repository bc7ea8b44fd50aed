"""Deterministic deals: the daily deal of a UTC date, and deals named by a short code.

The derivation is documented in docs/rules.md so that anyone can reproduce a deal: a Fisher-Yates
shuffle of DECK driven by SHA-256 of a seed text.
"""

from __future__ import annotations

import datetime
import hashlib
import secrets

from .cards import DECK, describe

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


def daily_deal(date: datetime.date) -> list[str]:
    """The daily deal of a UTC date."""
    if not isinstance(date, datetime.date):
        raise ValueError("daily_deal needs a datetime.date")
    if isinstance(date, datetime.datetime):
        date = date.date()
    return shuffled_deck(daily_seed_text(date))
