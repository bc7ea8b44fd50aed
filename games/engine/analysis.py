"""Questions the web layer asks the solver about a game, each one pure function of the deal and the
move line so that it can run in a worker process: is the position still winnable, and, after the
game, could the deal be won, where did the line go wrong and how could it have been won from there."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .position import Move, replay
from .solver import HintResult, Status, first_losing_move, hint, solve

# The rows this process has proven lost, kept from one question to the next: a solver worker is asked
# about one game position after position (each move of a watched game, each hint), and a row proven
# lost is lost in every game. About 100 bytes a row: the cap keeps the table under some 40 MB.
REMEMBERED_DEAD_ROWS = 400_000
_dead_rows: set[bytes] = set()


def position_status(deal: Sequence[str], moves: Sequence[Sequence[int]], time_limit: float) -> Status:
    """ "win" if the position after `moves` can still be won, "lost" if not, "unknown" past the budget."""
    position = replay(deal, moves)
    return solve(position, time_limit=time_limit, dead_rows=_dead_rows, dead_table_cap=REMEMBERED_DEAD_ROWS).status


def position_hint(deal: Sequence[str], moves: Sequence[Sequence[int]], time_limit: float) -> HintResult:
    """`solver.hint` for the position after `moves`, with the rows this process remembers as lost."""
    return hint(deal, moves, time_limit, dead_rows=_dead_rows, dead_table_cap=REMEMBERED_DEAD_ROWS)


@dataclass(frozen=True, slots=True)
class LineAnalysis:
    """deal_status / deal_line: whether and how the deal can be won from the start.
    first_losing_move: index into the line of the move after which no win was possible (None if the
    line never lost a winnable game, or the budget ran out). line_from_there: a winning line from the
    position just before that move."""

    deal_status: Status
    deal_line: list[Move] | None
    first_losing_move: int | None
    line_from_there: list[Move] | None


def analyse_line(
    deal: Sequence[str],
    moves: Sequence[Sequence[int]],
    time_limit: float,
    known_deal_line: Sequence[Sequence[int]] | None = None,
) -> LineAnalysis:
    """Analyse a finished game. Each of the (up to three) searches gets `time_limit` seconds."""
    if known_deal_line is not None:
        deal_status: Status = "win"
        deal_line: list[Move] | None = [(move[0], move[1]) for move in known_deal_line]
    else:
        solved = solve(deal, time_limit=time_limit)
        deal_status, deal_line = solved.status, solved.moves
    if deal_status != "win" or replay(deal, moves).won:
        return LineAnalysis(deal_status, deal_line, None, None)
    losing = first_losing_move(deal, moves, time_limit=time_limit)
    if losing is None:
        return LineAnalysis(deal_status, deal_line, None, None)
    from_there = solve(replay(deal, moves[:losing]), time_limit=time_limit)
    return LineAnalysis(deal_status, deal_line, losing, from_there.moves)
