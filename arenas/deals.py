"""An arena's deals, pure (no Django): deal k for everyone's k-th game, from the arena's seed.

The seed is 64 random hex digits fixed at the arena's creation; its SHA-256 (the commitment) is published
from the start and the seed itself once the arena is over, so anyone can check every deal (docs/rules.md,
"Arena deals"). Deal k, attempt a, is the deal code made of the first 40 bits of
SHA-256("arena:<seed>:<k>:<a>"), five bits a symbol of CODE_ALPHABET; the deal is the one that code names.
Attempts 0, 1, 2, … are tried until the solver proves the deal winnable, as for the daily deal.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from games.engine.deals import CERTIFY_POSITIONS, CODE_ALPHABET, CODE_LENGTH, deal_from_code, format_deal_code
from games.engine.position import Move
from games.engine.solver import solve


def new_seed() -> str:
    """A fresh arena seed: 64 lower-case hex digits."""
    return secrets.token_hex(32)


def arena_deal_code(seed: str, k: int, attempt: int) -> str:
    """The deal code of attempt `attempt` at deal `k` (1 for the first game), in its stored form."""
    bits = int.from_bytes(hashlib.sha256(f"arena:{seed}:{k}:{attempt}".encode()).digest()[:5], "big")
    symbols = [CODE_ALPHABET[(bits >> (5 * place)) & 31] for place in reversed(range(CODE_LENGTH))]
    return format_deal_code("".join(symbols))


@dataclass(frozen=True, slots=True)
class ArenaDeal:
    """Deal `k` of an arena: its code, the attempt that the solver certified winnable, a winning line."""

    k: int
    attempt: int
    code: str
    cards: tuple[str, ...]
    solution: tuple[Move, ...]


def certified_arena_deal(seed: str, k: int) -> ArenaDeal:
    """Deal `k` of the arena with `seed`: attempts 0, 1, 2, … until the solver proves a win within
    CERTIFY_POSITIONS positions (a count, not seconds, so every machine derives the same deal)."""
    if k < 1:
        raise ValueError("an arena's deals count from 1")
    attempt = 0
    while True:
        code = arena_deal_code(seed, k, attempt)
        cards = deal_from_code(code)
        result = solve(cards, time_limit=None, max_positions=CERTIFY_POSITIONS)
        if result.status == "win" and result.moves is not None:
            return ArenaDeal(k, attempt, code, tuple(cards), tuple(result.moves))
        attempt += 1
