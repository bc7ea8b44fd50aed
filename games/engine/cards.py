"""Cards in the project's notation: two characters, rank then suit ("TD" is the ten of diamonds)."""

from __future__ import annotations

import reprlib

RANKS = "A23456789TJQK"
SUITS = "CDHS"

# A full deck in a fixed, documented order: clubs A..K, diamonds A..K, hearts A..K, spades A..K.
DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
CARD_INDEX: dict[str, int] = {card: index for index, card in enumerate(DECK)}


def cards_match(left: str, right: str) -> bool:
    """Two top cards match when they share a rank or a suit."""
    return left[0] == right[0] or left[1] == right[1]


# MATCH[a * 52 + b] is 1 when cards a and b (indices into DECK) share a rank or a suit. The hot
# paths (replay, legal moves, solver) look this table up instead of comparing strings.
MATCH: bytes = bytes(1 if cards_match(a, b) else 0 for a in DECK for b in DECK)


class _ShortRepr(reprlib.Repr):
    """reprlib's bounded repr, also safe for integers too long to print (Python refuses > 4300 digits)."""

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 128:
            return f"<a {x.bit_length()}-bit integer>"
        return super().repr_int(x, level)


_SHORT_REPR = _ShortRepr()


def describe(value: object) -> str:
    """A short, always-printable repr of untrusted input for error messages: bounded in length and
    nesting depth, so junk such as 10**5000 or a list nested 100,000 deep cannot crash the message."""
    try:
        return _SHORT_REPR.repr(value)
    except Exception:  # a hostile __repr__; never let the error message itself fail
        return f"<{type(value).__name__}>"


def validate_deal(deal: object) -> tuple[str, ...]:
    """Return the deal as a tuple, or raise ValueError saying what is wrong with it."""
    if not isinstance(deal, (list, tuple)):
        raise ValueError("a deal must be a list of 52 cards")
    if len(deal) != 52:
        raise ValueError(f"a deal must have 52 cards, not {len(deal)}")
    seen: set[str] = set()
    for position, card in enumerate(deal):
        if not isinstance(card, str) or card not in CARD_INDEX:
            raise ValueError(f"position {position} holds {describe(card)}, which is not a card such as 'TD'")
        if card in seen:
            raise ValueError(f"card {card} appears twice in the deal")
        seen.add(card)
    return tuple(deal)
