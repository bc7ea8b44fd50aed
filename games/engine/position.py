"""Positions (immutable), moves and the rules that connect them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from .cards import CARD_INDEX, MATCH, cards_match, describe, validate_deal

Move = tuple[int, int]

# Indices beyond this are rejected before any arithmetic, so junk like 10**100 costs nothing.
_MAX_INDEX = 51


def gettext_noop(text: str) -> str:
    """Marks a reason for the site's translation catalogues (makemessages finds this name); the engine
    itself speaks English and knows nothing of translations."""
    return text


class IllegalMove(ValueError):
    """A move that the rules do not allow. `index` is its place in a submitted list (0-based, or
    None for a single move) and `reason` says why, in words a player understands: the English
    `template` filled with `details`, so that the site can fill a translated template instead."""

    def __init__(self, move: object, template: str, index: int | None = None, **details: object) -> None:
        self.move = move
        self.template = template
        self.details = details
        self.reason = template % details
        self.index = index
        where = f"move {index + 1} " if index is not None else "move "
        super().__init__(f"{where}{describe(move)}: {self.reason}")


@dataclass(frozen=True)
class Position:
    """A row of piles, left to right; each pile is listed bottom to top."""

    piles_cards: tuple[tuple[str, ...], ...]

    @classmethod
    def from_deal(cls, deal: Sequence[str]) -> Position:
        return cls(tuple((card,) for card in validate_deal(deal)))

    @property
    def piles(self) -> int:
        """How many piles are on the row."""
        return len(self.piles_cards)

    @cached_property
    def tops(self) -> tuple[str, ...]:
        """The top card of each pile, left to right."""
        return tuple(pile[-1] for pile in self.piles_cards)

    @property
    def won(self) -> bool:
        return len(self.piles_cards) == 1


def _check_move_shape(move: object, piles: int, index: int | None) -> Move:
    """Return (from, to) as ints, or raise IllegalMove for junk, out-of-range or wrong-distance moves."""
    if not isinstance(move, (list, tuple)) or len(move) != 2:
        raise IllegalMove(move, gettext_noop("a move is a pair [from, to]"), index)
    source, target = move
    # type() rather than isinstance(): True and False are ints to isinstance.
    if type(source) is not int or type(target) is not int:
        raise IllegalMove(move, gettext_noop("positions must be whole numbers"), index)
    if piles == 1:
        raise IllegalMove(move, gettext_noop("the row is a single pile: the game is won and no move remains"), index)
    if not 0 <= source < piles or not 0 <= target < piles or source > _MAX_INDEX:
        raise IllegalMove(
            move,
            gettext_noop("position out of range: the row has %(piles)s piles (0 to %(last)s)"),
            index,
            piles=piles,
            last=piles - 1,
        )
    if target != source - 1 and target != source - 3:
        raise IllegalMove(move, gettext_noop("a pile moves onto the pile 1 or 3 places to its left"), index)
    return source, target


def _mismatch(move: object, tops: Sequence[str], source: int, target: int, index: int | None) -> IllegalMove:
    return IllegalMove(
        move,
        gettext_noop("cards do not match: %(source)s onto %(target)s share neither suit nor rank"),
        index,
        source=tops[source],
        target=tops[target],
    )


def apply_move(position: Position, move: Sequence[int]) -> Position:
    """Return the position after `move`; `position` is unchanged. Raise IllegalMove if not allowed."""
    piles = position.piles_cards
    source, target = _check_move_shape(move, len(piles), None)
    if not cards_match(piles[source][-1], piles[target][-1]):
        raise _mismatch(move, position.tops, source, target, None)
    merged = piles[target] + piles[source]
    return Position(piles[:target] + (merged,) + piles[target + 1 : source] + piles[source + 1 :])


def legal_moves(position: Position) -> list[Move]:
    """Every legal move, ordered by source pile then by distance (1 before 3)."""
    codes = [CARD_INDEX[card] for card in position.tops]
    moves: list[Move] = []
    for source in range(1, len(codes)):
        row = codes[source] * 52
        if MATCH[row + codes[source - 1]]:
            moves.append((source, source - 1))
        if source >= 3 and MATCH[row + codes[source - 3]]:
            moves.append((source, source - 3))
    return moves


def replay(deal: Sequence[str], moves: Sequence[Sequence[int]]) -> Position:
    """Play `moves` from the deal and return the final position.

    Raise IllegalMove (with `index`, the 0-based place of the first bad move) or ValueError for a
    bad deal. This is the server's referee, so it is written for speed: it works on card codes and
    lists, and builds the immutable Position once at the end.
    """
    validate_deal(deal)
    if not isinstance(moves, (list, tuple)):
        raise IllegalMove(moves, gettext_noop("the moves must be a list of [from, to] pairs"), 0)
    # No length check up front: a 52nd move always fails (one pile is left), so the loop below stops
    # by index 51 at the latest, and it names the first bad move even in an over-long list.
    codes = [CARD_INDEX[card] for card in deal]
    piles: list[list[str]] = [[card] for card in deal]
    match = MATCH
    for index, move in enumerate(moves):
        # Fast path for the JSON shape the API receives; anything else goes through the checker,
        # which either raises with a reason or returns a well-formed (from, to).
        if (type(move) is list or type(move) is tuple) and len(move) == 2:
            source, target = move
            if not (
                type(source) is int
                and type(target) is int
                and 0 <= target < source < len(codes)
                and (source - target == 1 or source - target == 3)
            ):
                source, target = _check_move_shape(move, len(codes), index)
        else:
            source, target = _check_move_shape(move, len(codes), index)
        if not match[codes[source] * 52 + codes[target]]:
            raise _mismatch(move, [pile[-1] for pile in piles], source, target, index)
        codes[target] = codes[source]
        del codes[source]
        piles[target].extend(piles[source])
        del piles[source]
    return Position(tuple(tuple(pile) for pile in piles))
