"""A solver for Accordion: is a position winnable, and how.

Only the top cards decide what can happen next, so a search state is the row of top cards as bytes
(one card code, an index into DECK, per pile). The search is a depth-first search with:

- a table of rows already shown dead (every line from them was explored without a win), capped in
  size: when it is full it is cleared, which costs speed, never correctness;
- move ordering: a "sweeper" rank (chosen from where its cards lie in the row) and a second rank are
  covered only when nothing else will do; among the rest, leaps before slides, rightmost first;
- two sound prunings (docs/solver.md gives the arguments): the row's cards must stay connected by
  shared suits and ranks, and at most one card may be impossible to cover;
- restarts: short runs, each protecting another pair of ranks, in rounds whose run budget doubles;
  all runs share the dead table (a dead row is dead whatever the move order).

The answers are exact: "win" comes with a line that replays, "lost" means the whole reachable space
was searched. Budgets (time, positions, a cancel Event) turn into "unknown".

docs/solver.md says why these choices; bench/solver.py measures them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .cards import CARD_INDEX, MATCH
from .position import Move, Position, replay

__all__ = [
    "DEFAULT_DEAD_TABLE_CAP",
    "HintResult",
    "PositionJudge",
    "SolveResult",
    "Status",
    "first_losing_move",
    "hint",
    "solve",
]

# Rows kept in the dead table before it is cleared. A row is about 100 bytes in a set, so the
# default bounds the table near 100 MB; one second of search stores well under 400,000 rows.
DEFAULT_DEAD_TABLE_CAP = 1_000_000

# Restart schedule: runs go through every (sweeper, second) pair of protected ranks in turn, each
# examining at most _RUN_POSITIONS positions in the first round, _GROWTH times as many in each
# later round. Why: docs/solver.md; `bench/solver.py --time-limit none` compares schedules by positions.
_RUN_POSITIONS = 300
_GROWTH = 2.0
_SECOND_OFFSETS = (1, -1, 2, -2, 3)

# How often (in positions examined) the clock and the cancel Event are looked at.
_CHECK_EVERY = 512

# The prunings only pay for themselves on short rows: longer rows never fail them in practice.
_CONNECTED_CHECK_PILES = 14
_UNCOVERABLE_CHECK_PILES = 12

# Ordering keys: a move's key is _PROTECT[level] + (_SLIDE if a slide) + (63 - source index);
# smaller keys are tried first.
_PROTECT = (0, 128, 256)
_SLIDE = 64

# Card code c = suit * 13 + rank (DECK is clubs A..K, diamonds A..K, ...).
_SUIT_BITS = [((1 << 13) - 1) << (13 * suit) for suit in range(4)]
_RANK_BITS = [sum(1 << (13 * suit + rank) for suit in range(4)) for rank in range(13)]
# _NEIGHBOURS[c]: bit set of the cards that share a suit or a rank with card c (c itself excluded).
_NEIGHBOURS = [(_SUIT_BITS[c // 13] | _RANK_BITS[c % 13]) & ~(1 << c) for c in range(52)]
_SUIT_FLAG = [1 << (c // 13) for c in range(52)]
_ALL_SUITS = 15

Status = Literal["win", "lost", "unknown"]


@dataclass(frozen=True, slots=True)
class SolveResult:
    """What solve() found.

    status: "win" (moves is a complete winning line from the given state, [] if it is already won),
    "lost" (the whole reachable space was searched: no win), "unknown" (budget spent or cancelled).
    positions: positions examined; seconds: wall time spent.
    """

    status: Status
    moves: list[Move] | None
    positions: int
    seconds: float


@dataclass(frozen=True, slots=True)
class HintResult:
    """What hint() advises.

    status:
      "move"    - `move` keeps the game winnable (the first move of a winning line);
      "undo"    - the position is lost; undoing `undo` moves (at least 1) reaches the latest winnable
                  position of the line played;
      "won"     - the game is already won (one pile): nothing to advise;
      "lost"    - not even the deal is winnable: no undo helps;
      "unknown" - the budget ran out before an answer was proven.
    """

    status: Literal["move", "undo", "won", "lost", "unknown"]
    move: Move | None = None
    undo: int | None = None
    positions: int = 0
    seconds: float = 0.0


class _OutOfBudget(Exception):
    """The caller's budget (time, positions, cancel) is spent."""


class _RunOver(Exception):
    """One restart run has used its own position budget."""


def _row_of(deal_or_state: Sequence[str] | Position) -> bytes:
    """The row of top cards as card codes; a ValueError for anything that is not a deal or Position."""
    if isinstance(deal_or_state, Position):
        try:
            row = bytes(CARD_INDEX[card] for card in deal_or_state.tops)
        except (KeyError, TypeError, IndexError):
            raise ValueError("the position holds an empty pile or something that is not a card") from None
        if not row:
            raise ValueError("the position has no piles")
        return row
    return bytes(CARD_INDEX[card] for card in replay(deal_or_state, []).tops)


def _rank_order(row: bytes) -> list[int]:
    """Ranks present in the row, best sweeper first: the ranks whose cards lie furthest right.

    A rank's score is the sum of the positions of its cards except the leftmost one, so a rank with
    three cards near the end scores high even when its fourth card is early in the row.
    """
    positions: list[list[int]] = [[] for _ in range(13)]
    for index, code in enumerate(row):
        positions[code % 13].append(index)
    present = [rank for rank in range(13) if positions[rank]]
    return sorted(present, key=lambda rank: (-sum(positions[rank][1:]), rank))


def _protection_pairs(ranks: list[int]) -> list[tuple[int, int]]:
    """The (sweeper, second) rank pairs that successive runs protect: each rank in turn as the sweeper
    (best first), and as the second the ranks at _SECOND_OFFSETS from it in `ranks` (the next, the
    previous, ...). -1 protects nothing (rows with a single rank)."""
    count = len(ranks)
    pairs: list[tuple[int, int]] = []
    for k, sweeper in enumerate(ranks):
        for offset in _SECOND_OFFSETS:
            second = ranks[(k + offset) % count]
            pair = (sweeper, second if second != sweeper else -1)
            if pair not in pairs:
                pairs.append(pair)
    return pairs or [(-1, -1)]


class _Search:
    """Budgets and a dead table shared by one or more searches (hint() walks back along a line with
    one of these, so rows proven dead on the way stay known)."""

    def __init__(
        self,
        time_limit: float | None,
        max_positions: int | None,
        cancel: threading.Event | None,
        dead_table_cap: int,
        dead_rows: set[bytes] | None = None,
    ) -> None:
        if dead_table_cap < 1:
            raise ValueError("dead_table_cap must be at least 1")
        if max_positions is not None and max_positions < 0:
            raise ValueError("max_positions must not be negative")
        self.started = time.perf_counter()
        self.deadline = None if time_limit is None else self.started + max(0.0, time_limit)
        self.max_positions = max_positions
        self.cancel = cancel
        self.cap = dead_table_cap
        self.dead: set[bytes] = set() if dead_rows is None else dead_rows
        self.positions = 0

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def check(self) -> None:
        """Raise _OutOfBudget when the time is up or the search was cancelled."""
        if self.cancel is not None and self.cancel.is_set():
            raise _OutOfBudget
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise _OutOfBudget

    def solve_row(self, row: bytes) -> list[Move] | None:
        """A winning line from `row`, or None when none exists. Raise _OutOfBudget when the budget
        is spent first."""
        if len(row) == 1:
            return []
        self.check()
        distinct = len(set(row)) == len(row)
        pairs = _protection_pairs(_rank_order(row))
        run = 0
        while True:
            sweeper, second = pairs[run % len(pairs)]
            protect = [
                _PROTECT[2] if code % 13 == sweeper else _PROTECT[1] if code % 13 == second else _PROTECT[0]
                for code in range(52)
            ]
            run_budget = int(_RUN_POSITIONS * _GROWTH ** (run // len(pairs)))
            try:
                return self._run(row, protect, run_budget, distinct)
            except _RunOver:
                run += 1

    def _run(self, start: bytes, protect: list[int], run_budget: int, distinct: bool) -> list[Move] | None:
        """One depth-first search with one move ordering; raise _RunOver past `run_budget` positions."""
        match = MATCH
        dead = self.dead
        cap = self.cap
        neighbours = _NEIGHBOURS
        suit_flag = _SUIT_FLAG
        connected = _connected
        # The prunings read the set of cards present as a 52-bit int; with repeated cards (never in a
        # real game, but a Position may be built by hand) that set says too little, so they are off.
        connected_piles = _CONNECTED_CHECK_PILES + 1 if distinct else 0
        uncoverable_piles = _UNCOVERABLE_CHECK_PILES if distinct else 0
        run_end = self.positions + run_budget
        hard_end = run_end if self.max_positions is None else min(run_end, self.max_positions)
        positions = self.positions
        next_check = min(positions + _CHECK_EVERY, hard_end)
        path: list[Move] = []

        def dfs(row: bytes, present: int) -> bool:
            # `row` is not dead, not won, and connected (its parent checked).
            nonlocal positions, next_check
            positions += 1
            if positions > next_check:
                self.positions = positions - 1
                self.check()
                if positions > hard_end:
                    if self.max_positions is not None and positions > self.max_positions:
                        raise _OutOfBudget
                    raise _RunOver
                next_check = min(positions + _CHECK_EVERY, hard_end)
            n = len(row)
            if n <= uncoverable_piles:
                # A card with no match to its right can only be covered after it leaps over a match
                # (landing on another): it needs two matches to its left and room to leap. Two cards
                # that can never be covered cannot both vanish, so such a row is lost.
                right = 0
                suits = 0
                stuck = 0
                for index in range(n - 1, -1, -1):
                    card = row[index]
                    if not right & neighbours[card] and (
                        index < 3 or (present & ~right & neighbours[card]).bit_count() < 2
                    ):
                        stuck += 1
                        if stuck == 2:
                            if len(dead) >= cap:
                                dead.clear()
                            dead.add(row)
                            return False
                    right |= 1 << card
                    suits |= suit_flag[card]
                    if suits == _ALL_SUITS:
                        break
            keys = [
                protect[left] + 127 - index
                for index, card, left in zip(range(1, n), row[1:], row, strict=False)
                if match[card * 52 + left]
            ]
            keys += [
                protect[left] + 63 - index
                for index, card, left in zip(range(3, n), row[3:], row, strict=False)
                if match[card * 52 + left]
            ]
            keys.sort()
            if n == 2 and keys:
                path.append((1, 0))
                return True
            check_children = n <= connected_piles
            for key in keys:
                index = 63 - (key & 63)
                if key & _SLIDE:
                    target = index - 1
                    child = row[:target] + row[index:]
                else:
                    target = index - 3
                    child = row[:target] + row[index : index + 1] + row[target + 1 : index] + row[index + 1 :]
                if child in dead:
                    continue
                child_present = present & ~(1 << row[target])
                if check_children and not connected(child_present):
                    continue
                if dfs(child, child_present):
                    path.append((index, target))
                    return True
            if len(dead) >= cap:
                dead.clear()
            dead.add(row)
            return False

        present = _present(start)
        if distinct and not _connected(present):
            return None
        try:
            won = dfs(start, present)
        finally:
            self.positions = min(positions, hard_end)
        if won:
            path.reverse()
            return path
        return None


def _present(row: bytes) -> int:
    bits = 0
    for code in row:
        bits |= 1 << code
    return bits


def _connected(present: int) -> bool:
    """Whether the cards in `present` form one group when cards sharing a suit or rank are linked."""
    a = present & 8191
    b = (present >> 13) & 8191
    c = (present >> 26) & 8191
    d = present >> 39
    if a:
        reached = a
        if b & reached:
            reached |= b
        if c & reached:
            reached |= c
        if d & reached:
            reached |= d
        if b & reached:
            reached |= b
        if c & reached:
            reached |= c
        return not ((b and not b & reached) or (c and not c & reached) or (d and not d & reached))
    if b:
        reached = b
        if c & reached:
            reached |= c
        if d & reached:
            reached |= d
        if c & reached:
            reached |= c
        return not ((c and not c & reached) or (d and not d & reached))
    return not (c and d and not c & d)


def solve(
    deal_or_state: Sequence[str] | Position,
    time_limit: float | None = 1.0,
    *,
    max_positions: int | None = None,
    cancel: threading.Event | None = None,
    dead_table_cap: int = DEFAULT_DEAD_TABLE_CAP,
    dead_rows: set[bytes] | None = None,
) -> SolveResult:
    """Solve a deal (a list of 52 cards) or a Position part-way through a game.

    A "win" carries `moves`, a complete winning line from that state in the API's notation (from, to)
    with 0-based positions in the current row. time_limit (seconds, None for no limit), max_positions
    and `cancel` (checked every few hundred positions) bound the work; when one is reached the
    status is "unknown". `dead_rows`: a dead table to share with other searches, read and added to
    (a row proven dead is dead in any game). Raise ValueError for a malformed deal.
    """
    row = _row_of(deal_or_state)
    search = _Search(time_limit, max_positions, cancel, dead_table_cap, dead_rows)
    try:
        line = search.solve_row(row)
    except _OutOfBudget:
        return SolveResult("unknown", None, search.positions, search.elapsed())
    if line is None:
        return SolveResult("lost", None, search.positions, search.elapsed())
    return SolveResult("win", line, search.positions, search.elapsed())


def _rows_along(deal: Sequence[str], moves: Sequence[Sequence[int]]) -> list[bytes]:
    """The rows of top cards before the first move and after each move (validating them all)."""
    final = replay(deal, moves)  # raises IllegalMove / ValueError with the engine's messages
    del final
    row = bytearray(CARD_INDEX[card] for card in deal)
    rows = [bytes(row)]
    for source, target in moves:
        row[target] = row[source]
        del row[source]
        rows.append(bytes(row))
    return rows


def _last_winnable(search: _Search, rows: list[bytes]) -> tuple[int, list[Move]] | None:
    """(k, line): the latest k with rows[k] winnable and a winning line from it; None when even rows[0]
    is lost. Winnability can only be lost along a line, never regained (a later row is reachable from
    every earlier one), so walking back from the end finds the boundary; the shared dead table
    makes each step cheap: the row just proven dead is one of the next row's children."""
    for k in range(len(rows) - 1, -1, -1):
        line = search.solve_row(rows[k])
        if line is not None:
            return k, line
    return None


def hint(
    deal: Sequence[str],
    moves: Sequence[Sequence[int]],
    time_limit: float | None = 1.0,
    *,
    max_positions: int | None = None,
    cancel: threading.Event | None = None,
    dead_table_cap: int = DEFAULT_DEAD_TABLE_CAP,
    dead_rows: set[bytes] | None = None,
) -> HintResult:
    """Advice for the game that played `moves` from `deal`: a move that keeps it winnable, or how many
    moves to undo to get back to a winnable position. See HintResult for every status. The budget
    (time_limit, max_positions, cancel) covers the whole computation; `dead_rows` as for `solve`.
    Raise IllegalMove when `moves` does not replay, ValueError for a malformed deal."""
    rows = _rows_along(deal, moves)
    if len(rows[-1]) == 1:
        return HintResult("won")
    search = _Search(time_limit, max_positions, cancel, dead_table_cap, dead_rows)
    try:
        found = _last_winnable(search, rows)
    except _OutOfBudget:
        return HintResult("unknown", positions=search.positions, seconds=search.elapsed())
    if found is None:
        return HintResult("lost", positions=search.positions, seconds=search.elapsed())
    k, line = found
    if k == len(rows) - 1:
        return HintResult("move", move=line[0], positions=search.positions, seconds=search.elapsed())
    return HintResult("undo", undo=len(rows) - 1 - k, positions=search.positions, seconds=search.elapsed())


def first_losing_move(
    deal: Sequence[str],
    moves: Sequence[Sequence[int]],
    time_limit: float | None = 1.0,
    *,
    max_positions: int | None = None,
    cancel: threading.Event | None = None,
    dead_table_cap: int = DEFAULT_DEAD_TABLE_CAP,
) -> int | None:
    """The 0-based index i into `moves` of the move that threw the game away: the position before
    moves[i] was winnable and the position after it was not (so replaying moves[:i] still leaves a
    winnable game, moves[:i + 1] does not).

    None when there is no such move: the position after all of `moves` is still winnable (or already
    won), the deal itself cannot be won, or the budget ran out before the answer was proven. Raise
    IllegalMove when `moves` does not replay, ValueError for a malformed deal.
    """
    rows = _rows_along(deal, moves)
    search = _Search(time_limit, max_positions, cancel, dead_table_cap)
    try:
        found = _last_winnable(search, rows)
    except _OutOfBudget:
        return None
    if found is None:
        return None
    k, _line = found
    return None if k == len(rows) - 1 else k


class PositionJudge:
    """Winnability of many positions of one game, each question with its own budget of positions and
    all of them with one shared time limit: a fair-play assessment asks about every position a line
    visited and every position one move away from it. They share the dead table, and every row along a
    winning line found is known winnable from then on, so the positions along a line cost little more
    than the first. Once the time limit is spent every answer is "unknown"."""

    def __init__(
        self, time_limit: float | None, *, positions_each: int, dead_table_cap: int = DEFAULT_DEAD_TABLE_CAP
    ) -> None:
        self.search = _Search(time_limit, None, None, dead_table_cap)
        self.positions_each = positions_each
        self.winnable: set[bytes] = set()
        self.lost: set[bytes] = set()
        self.undecided: set[bytes] = set()  # out of positions: asking again would spend as many

    def winnable_from_now_on(self, position: Sequence[str] | Position) -> None:
        """Record a position known winnable otherwise (it comes before a winnable one on a line)."""
        self.winnable.add(_row_of(position))

    def status(self, position: Sequence[str] | Position) -> Status:
        row = _row_of(position)
        if row in self.winnable or len(row) == 1:
            return "win"
        if row in self.lost or row in self.search.dead:
            return "lost"
        if row in self.undecided:
            return "unknown"
        self.search.max_positions = self.search.positions + self.positions_each
        try:
            line = self.search.solve_row(row)
        except _OutOfBudget:
            if self.search.max_positions <= self.search.positions:
                self.undecided.add(row)
            return "unknown"
        if line is None:
            self.lost.add(row)
            return "lost"
        along = bytearray(row)
        self.winnable.add(row)
        for source, target in line:
            along[target] = along[source]
            del along[source]
            self.winnable.add(bytes(along))
        return "win"
