"""Deterministic deals: the daily deal of a UTC date, and deals named by a short code.

The derivation is documented in docs/rules.md so that anyone can reproduce a deal: a Fisher-Yates
shuffle of DECK driven by SHA-256 of a seed text. A daily deal's seed comes from the date and the
server's secret, so nobody can compute a day's deal before it is handed out; the seed is published
once the day is over (and its SHA-256, the commitment, before the day begins).
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from .cards import DECK, describe
from .position import Move
from .solver import solve

# Deal codes use 32 symbols that cannot be confused when read aloud or copied by hand (no 0/O, 1/I).
CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
# The symbols that name a deal; a code as shared carries one more, its check symbol (docs/rules.md).
CODE_LENGTH = 8
CHECKED_CODE_LENGTH = CODE_LENGTH + 1


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


class DealCodeTypo(ValueError):
    """A code of 9 symbols whose check symbol does not fit the other 8: a symbol was mistyped. `corrections`
    are the canonical codes one slip away (one symbol changed, or two neighbours swapped) that pass the
    check, the check symbol's own correction first."""

    def __init__(self, code: str, corrections: tuple[str, ...]) -> None:
        super().__init__(f"{describe(code)} is not a deal code: a symbol is mistyped (its check symbol does not fit)")
        self.corrections = corrections


def deal_code_check_symbol(canonical: str) -> str:
    """The check symbol of 8 canonical symbols: Luhn mod 32 over the symbols' places in CODE_ALPHABET (the
    rightmost doubled, then every other one; a doubled value v counts v // 32 + v % 32), plus one, so that
    2222-2222 (all zeros) does not check itself. It catches every single mistyped symbol and every swap of
    two neighbours but Z and 2 (docs/rules.md)."""
    total = 1
    for place, symbol in enumerate(reversed(canonical)):
        value = CODE_ALPHABET.index(symbol)
        if place % 2 == 0:
            value *= 2
            value = value // len(CODE_ALPHABET) + value % len(CODE_ALPHABET)
        total += value
    return CODE_ALPHABET[-total % len(CODE_ALPHABET)]


def _checks(symbols: str) -> bool:
    return deal_code_check_symbol(symbols[:CODE_LENGTH]) == symbols[CODE_LENGTH]


def _one_slip_away(symbols: str) -> tuple[str, ...]:
    """The canonical codes whose checked form is one mistyped symbol, or one swap of neighbours, from
    `symbols`, the check symbol's correction first."""
    found: list[str] = []
    for place in reversed(range(CHECKED_CODE_LENGTH)):
        for symbol in CODE_ALPHABET:
            changed = symbols[:place] + symbol + symbols[place + 1 :]
            if changed != symbols and _checks(changed):
                found.append(changed[:CODE_LENGTH])
    for place in range(CHECKED_CODE_LENGTH - 1):
        swapped = symbols[:place] + symbols[place + 1] + symbols[place] + symbols[place + 2 :]
        if swapped != symbols and _checks(swapped):
            found.append(swapped[:CODE_LENGTH])
    return tuple(dict.fromkeys(found))


def normalize_deal_code(code: str) -> str:
    """Return the canonical code (the 8 symbols that name the deal: upper case, no separators, no check
    symbol) of a typed code, or raise ValueError. A code of 9 symbols must end in its check symbol
    (DealCodeTypo when not); one of 8, as codes were first shared, is read as it is."""
    if not isinstance(code, str):
        raise ValueError("a deal code is text such as 'K7QD-M2XP-X'")
    cleaned = code.strip().upper().replace("-", "").replace(" ", "")
    if len(cleaned) not in (CODE_LENGTH, CHECKED_CODE_LENGTH) or any(symbol not in CODE_ALPHABET for symbol in cleaned):
        raise ValueError(
            f"{describe(code)} is not a deal code: a deal code is {CHECKED_CODE_LENGTH} letters and digits"
            f" such as K7QD-M2XP-X (no 0, 1, I or O)"
        )
    if len(cleaned) == CHECKED_CODE_LENGTH and not _checks(cleaned):
        raise DealCodeTypo(code, _one_slip_away(cleaned))
    return cleaned[:CODE_LENGTH]


def format_deal_code(code: str) -> str:
    """The name a deal is stored under: its canonical code in two groups of four, 'K7QD-M2XP'."""
    canonical = normalize_deal_code(code)
    return f"{canonical[:4]}-{canonical[4:]}"


def checked_deal_code(code: str) -> str:
    """The code as shown and shared: the two groups of four and the check symbol, 'K7QD-M2XP-X'."""
    canonical = normalize_deal_code(code)
    return f"{canonical[:4]}-{canonical[4:]}-{deal_code_check_symbol(canonical)}"


def new_deal_code() -> str:
    """A fresh random deal code (40 bits), in the form its deal is stored under."""
    return format_deal_code("".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)))


def deal_from_code(code: str) -> list[str]:
    """The deal a code names: shuffled_deck("code:" + canonical code)."""
    return shuffled_deck(f"code:{normalize_deal_code(code)}")


# A day's seed is 64 lower-case hex digits: HMAC-SHA256 of the date under the server's secret.
SEED_SHAPE = re.compile(r"[0-9a-f]{64}")


def _utc_date(date: datetime.date) -> datetime.date:
    if not isinstance(date, datetime.date):
        raise ValueError("a daily deal needs a datetime.date")
    return date.date() if isinstance(date, datetime.datetime) else date


def daily_seed(date: datetime.date, *, secret: str) -> str:
    """The seed of a UTC date's deal: HMAC-SHA256(key = secret, message = "daily:YYYY-MM-DD"), in hex.
    Without the secret it cannot be computed, so neither can the deal."""
    if not isinstance(secret, str) or not secret:
        raise ValueError("the daily secret must be non-empty text")
    message = f"daily:{_utc_date(date).isoformat()}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def seed_commitment(seed: str) -> str:
    """SHA-256 of a seed, in hex: published before the day, it proves the seed was fixed in advance."""
    return hashlib.sha256(_valid_seed(seed).encode()).hexdigest()


def _valid_seed(seed: str) -> str:
    if not isinstance(seed, str) or not SEED_SHAPE.fullmatch(seed):
        raise ValueError("a daily seed is 64 lower-case hexadecimal digits")
    return seed


def daily_seed_text(date: datetime.date, seed: str, attempt: int = 0) -> str:
    """The text whose shuffle is attempt `attempt` at the deal of `date`: "daily:YYYY-MM-DD:<seed>:<attempt>"."""
    return f"daily:{_utc_date(date).isoformat()}:{_valid_seed(seed)}:{attempt}"


# A daily deal must be proven winnable by the solver within this many positions. The budget counts
# positions, not seconds, so the derivation gives the same deal on every machine.
CERTIFY_POSITIONS = 2_000_000


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """A certified daily deal: `cards` is shuffled_deck(daily_seed_text(date, seed, attempt)), the first
    attempt whose deal the solver proved winnable; `solution` is the winning line it found."""

    date: datetime.date
    seed: str
    attempt: int
    cards: tuple[str, ...]
    solution: tuple[Move, ...]


@functools.lru_cache(maxsize=512)
def certified_daily_deal(date: datetime.date, seed: str) -> DailyDeal:
    """The daily deal of a UTC date from its seed: attempts 0, 1, 2, ... until the solver proves a win.
    Anyone holding a published seed reproduces the day's deal with it."""
    date = _utc_date(date)
    attempt = 0
    while True:
        cards = shuffled_deck(daily_seed_text(date, seed, attempt))
        result = solve(cards, time_limit=None, max_positions=CERTIFY_POSITIONS)
        if result.status == "win" and result.moves is not None:
            return DailyDeal(date, seed, attempt, tuple(cards), tuple(result.moves))
        attempt += 1


def daily_deal(date: datetime.date, seed: str) -> list[str]:
    """The daily deal of a UTC date from its seed, certified winnable (see certified_daily_deal)."""
    return list(certified_daily_deal(date, seed).cards)
