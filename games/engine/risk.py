"""How likely a finished game was not played by a person's own hand: a risk score (0-100) with its
reasons, from the timed events of the game, the solver's verdict on every position it visited, and the
player's history.

Every card is face up, so no single rule about legality or a fixed time can tell a solver from a
person; behaviour over the whole line can. A person who wins nearly always plays moves that lose and
takes them back, usually only once stuck; thinks longer where most moves lose; pauses unevenly, with
quick runs of obvious moves and a few long thinks. A program replaying a solver's line does none of
this unless it is built to, and every disguise it adds is one more thing to get exactly right.

`judge_play` asks the solver about the game (within a time budget); `assess` is pure arithmetic on its
answers, so it is tested and tuned on simulated players (tests/simulated_players.py, bench/fair_play.py).
docs/fair-play.md explains each signal and its weight.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from .position import Move, Position, apply_move, legal_moves
from .solver import PositionJudge, Status

MOVE = "move"
UNDO = "undo"
FINISH = "finish"


@dataclass(frozen=True, slots=True)
class TimedEvent:
    """One stored change of a game: `kind` move, undo or finish; `move` the move played (a move, or a
    finish by a winning move) or taken back (an undo); `line` the whole line a finish brought with it
    (a REST finish whose line is not the stored one); `seconds` after the start, by the server's clock."""

    kind: str
    seconds: float
    move: Move | None = None
    line: tuple[Move, ...] | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    """The solver on one event: `status` of the position after it, and `dead_end` when that position has
    more than one pile and no legal move; for a move, `choices` (legal moves where it was played) and
    `losing` (how many of them lose; -1 when not all were decided)."""

    status: Status
    choices: int = 0
    losing: int = -1
    dead_end: bool = False

    def as_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class History:
    """The player's past as the assessment sees it: no finished game before this one, account age in
    days, and earlier results staff confirmed (not played by hand) or cleared."""

    first_game: bool = False
    account_days: float = 365.0
    confirmed: int = 0
    cleared: int = 0


@dataclass(frozen=True, slots=True)
class Reason:
    """One signal that raised (or lowered) the risk: `code` for programs, `detail` for the staff."""

    code: str
    points: int
    detail: str

    def as_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Assessment:
    risk: int
    reasons: list[Reason] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Weights:
    """Points per signal. The defaults are the site's (tuned with bench/fair_play.py); the review
    threshold itself is a setting (FAIR_PLAY_REVIEW_RISK)."""

    perfect_line: int = 40
    undos_that_did_not_lose: int = 25
    losses_known_at_once: int = 35
    steady_pace: int = 30
    even_pauses: int = 15
    no_thought_where_it_matters: int = 20
    fast_for_the_deal: int = 15
    fast_win: int = 60
    fast_moves: int = 60
    unseen_moves: int = 50
    same_line: int = 40
    first_game: int = 10
    new_account: int = 5
    confirmed_before: int = 40
    cleared_before: int = -10


@dataclass(frozen=True, slots=True)
class Limits:
    """The thresholds the signals compare with."""

    min_win_seconds: float = 30
    min_median_move_ms: float = 150
    max_unseen_moves: int = 3
    # The spread of the log of think times below which a pace is steady, or merely even.
    steady_log_spread: float = 0.35
    even_log_spread: float = 0.6
    # A person's longest thinks (90th percentile) run past this multiple of their median think.
    even_tail_ratio: float = 2.2
    # Median think where most moves lose over the median elsewhere, at or below which thought did not
    # follow the danger.
    danger_think_ratio: float = 1.25
    min_danger_moves: int = 3
    min_timed_moves: int = 15
    # A win faster than this many seconds, plus so many a move and a decision where most moves lose.
    quick_base_seconds: float = 30
    quick_seconds_per_move: float = 2.0
    quick_seconds_per_danger: float = 10.0


@dataclass(slots=True)
class _Walk:
    """The game replayed event by event: the line at each event and what each event did."""

    lines_before: list[tuple[Move, ...]] = field(default_factory=list)
    final_line: tuple[Move, ...] = ()
    unseen_moves: int = 0


def _walk(events: Sequence[TimedEvent]) -> _Walk:
    walk = _Walk()
    line: list[Move] = []
    for event in events:
        walk.lines_before.append(tuple(line))
        if event.kind == UNDO:
            if line:
                line.pop()
        elif event.move is not None:
            line.append((event.move[0], event.move[1]))
        elif event.line is not None:
            shared = 0
            for stored, finished in zip(line, event.line, strict=False):
                if stored != finished:
                    break
                shared += 1
            walk.unseen_moves += len(event.line) - shared
            line = list(event.line)
    walk.final_line = tuple(line)
    return walk


def judge_play(
    deal: Sequence[str],
    events: Sequence[TimedEvent],
    time_limit: float | None,
    positions_each: int,
    *,
    judge: PositionJudge | None = None,
) -> list[Verdict]:
    """The solver's verdict on each event of a game (see Verdict), within `time_limit` seconds in all
    and `positions_each` positions a question; past the budget answers are "unknown". The positions
    after each event are judged first, then the choices at each move, since those cost the most.
    `judge` may be shared by many games of one deal (the bench does)."""
    judge = judge or PositionJudge(time_limit, positions_each=positions_each)
    walk = _walk(events)
    start = Position.from_deal(deal)
    positions: dict[tuple[Move, ...], Position] = {(): start}

    def position_of(line: tuple[Move, ...]) -> Position:
        found = positions.get(line)
        if found is None:
            found = positions[line] = apply_move(position_of(line[:-1]), line[-1])
        return found

    after_lines = [*walk.lines_before[1:], walk.final_line]
    statuses = _line_statuses(after_lines, lambda line: judge.status(position_of(line)))
    for line, status in statuses.items():
        if status == "win":
            judge.winnable_from_now_on(position_of(line))  # the choices below meet these positions again
    verdicts = []
    for event, before, after in zip(events, walk.lines_before, after_lines, strict=True):
        choices, losing = 0, -1
        if event.kind != UNDO and event.move is not None:
            children = [
                judge.status(apply_move(position_of(before), move)) for move in legal_moves(position_of(before))
            ]
            choices = len(children)
            losing = children.count("lost") if "unknown" not in children else -1
        reached = position_of(after)
        dead_end = reached.piles > 1 and not legal_moves(reached)
        verdicts.append(Verdict(status=statuses[after], choices=choices, losing=losing, dead_end=dead_end))
    return verdicts


def _line_statuses(
    lines: Sequence[tuple[Move, ...]], ask: Callable[[tuple[Move, ...]], Status]
) -> dict[tuple[Move, ...], Status]:
    """The status of each line's position, asking as few questions as the rules allow: a position
    before a winnable one is winnable, and one after a lost one is lost. The longest lines are asked
    first, so a winning line answers for every position along it."""
    statuses: dict[tuple[Move, ...], Status] = {}
    for line in sorted(set(lines), key=len, reverse=True):
        if line in statuses:
            continue
        if any(statuses.get(line[:end]) == "lost" for end in range(len(line))):
            statuses[line] = "lost"
            continue
        statuses[line] = ask(line)
        if statuses[line] == "win":
            for end in range(len(line)):
                statuses[line[:end]] = "win"
    for line in sorted(statuses, key=len):
        if statuses[line] == "unknown" and any(statuses.get(line[:end]) == "lost" for end in range(len(line))):
            statuses[line] = "lost"
    return statuses


def _think_times(events: Sequence[TimedEvent]) -> list[tuple[int, float]]:
    """(event index, seconds since the event before) for each move, the finishing move included."""
    times = []
    previous = 0.0
    for index, event in enumerate(events):
        if event.kind == MOVE or (event.kind == FINISH and event.move is not None):
            times.append((index, max(event.seconds - previous, 0.001)))
        previous = event.seconds
    return times


def _quantile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def assess(
    *,
    events: Sequence[TimedEvent],
    verdicts: Sequence[Verdict] | None,
    won: bool,
    seconds: float,
    history: History,
    same_line: int = 0,
    weights: Weights | None = None,
    limits: Limits | None = None,
) -> Assessment:
    """The risk that the game was not played by hand, with the reasons. `verdicts` (from judge_play,
    one per event) may be None before the solver has been asked: the assessment then rests on timing
    and history alone, and adding the verdicts can only raise it. `same_line` counts other results on
    the deal with exactly this line."""
    weights = weights or Weights()
    limits = limits or Limits()
    reasons: list[Reason] = []
    walk = _walk(events)
    moves = len(walk.final_line)
    think = _think_times(events)
    gaps = [gap for _, gap in think]

    if won and seconds < limits.min_win_seconds:
        reasons.append(Reason("fast_win", weights.fast_win, f"won in {seconds:.0f} s"))
    if len(gaps) >= limits.min_timed_moves:
        median_ms = statistics.median(gaps) * 1000
        if median_ms < limits.min_median_move_ms:
            reasons.append(
                Reason("fast_moves", weights.fast_moves, f"median think between {len(gaps)} moves {median_ms:.0f} ms")
            )
        spread = statistics.pstdev(math.log(gap) for gap in gaps)
        tail = _quantile(gaps, 0.9) / statistics.median(gaps)
        if spread < limits.steady_log_spread:
            reasons.append(
                Reason(
                    "steady_pace",
                    weights.steady_pace,
                    f"a steady pace: {len(gaps)} thinks, typically a factor {math.exp(spread):.2f} apart",
                )
            )
        elif spread < limits.even_log_spread or tail < limits.even_tail_ratio:
            reasons.append(
                Reason(
                    "even_pauses",
                    weights.even_pauses,
                    f"even pauses: the longest thinks only {tail:.1f} times the median, no quick runs of obvious "
                    f"moves (log spread {spread:.2f})",
                )
            )
    if walk.unseen_moves > limits.max_unseen_moves:
        reasons.append(
            Reason(
                "unseen_moves",
                weights.unseen_moves,
                f"{walk.unseen_moves} moves arrived only in the finish, never one by one",
            )
        )
    if same_line:
        reasons.append(
            Reason("same_line", weights.same_line, f"the same {moves}-move line as {same_line} other result(s)")
        )
    if verdicts is not None:
        reasons += _verdict_reasons(events, verdicts, think, won=won, seconds=seconds, weights=weights, limits=limits)
    if history.first_game:
        reasons.append(Reason("first_game", weights.first_game, "the player's first finished game"))
    elif history.account_days < 1:
        reasons.append(Reason("new_account", weights.new_account, "a player made less than a day ago"))
    if history.confirmed:
        reasons.append(
            Reason(
                "confirmed_before",
                weights.confirmed_before,
                f"{history.confirmed} earlier result(s) confirmed as not played by hand",
            )
        )
    if history.cleared:
        reasons.append(
            Reason(
                "cleared_before",
                max(-20, weights.cleared_before * history.cleared),
                f"{history.cleared} earlier result(s) reviewed and cleared",
            )
        )
    risk = max(0, min(100, sum(reason.points for reason in reasons)))
    return Assessment(risk=risk, reasons=reasons)


def _verdict_reasons(
    events: Sequence[TimedEvent],
    verdicts: Sequence[Verdict],
    think: Sequence[tuple[int, float]],
    *,
    won: bool,
    seconds: float,
    weights: Weights,
    limits: Limits,
) -> list[Reason]:
    reasons = []
    statuses = [verdict.status for verdict in verdicts]
    undos = [index for index, event in enumerate(events) if event.kind == UNDO]
    # An undo leaves the position the event before it reached.
    undone_from = [statuses[index - 1] if index else "win" for index in undos]
    if won and "lost" not in statuses and statuses.count("unknown") <= 1:
        reasons.append(
            Reason(
                "perfect_line",
                weights.perfect_line,
                f"won without ever reaching a lost position ({len(events)} events, {len(undos)} undos)",
            )
        )
        if len(undos) >= 2 and "lost" not in undone_from:
            reasons.append(
                Reason(
                    "undos_that_did_not_lose",
                    weights.undos_that_did_not_lose,
                    f"{len(undos)} undos, each taking back a move that had not lost",
                )
            )
    known_at_once = 0
    losing_moves = 0
    for index, event in enumerate(events[:-1]):
        previous = statuses[index - 1] if index else "win"
        if event.kind == MOVE and statuses[index] == "lost" and previous == "win":
            losing_moves += 1
            # Taken back at once while moves were left: a person sees a dead end and undoes it, but only
            # a program knows that a position with moves left is lost.
            if events[index + 1].kind == UNDO and not verdicts[index].dead_end:
                known_at_once += 1
    if known_at_once and known_at_once == losing_moves:
        reasons.append(
            Reason(
                "losses_known_at_once",
                weights.losses_known_at_once,
                f"each of the {losing_moves} move(s) that lost the game taken back at once, before play showed it",
            )
        )
    danger = [gap for index, gap in think if _most_lose(verdicts[index])]
    calm = [gap for index, gap in think if verdicts[index].losing >= 0 and not _most_lose(verdicts[index])]
    if len(danger) >= limits.min_danger_moves and len(calm) >= limits.min_danger_moves:
        ratio = statistics.median(danger) / statistics.median(calm)
        if ratio <= limits.danger_think_ratio:
            reasons.append(
                Reason(
                    "no_thought_where_it_matters",
                    weights.no_thought_where_it_matters,
                    f"thought {ratio:.2f} times as long where most moves lose ({len(danger)} moves) as elsewhere",
                )
            )
    if won:
        walk = _walk(events)
        final = walk.final_line
        # The decisions of the winning line itself, each counted once however often it was reached.
        decisions = {
            len(walk.lines_before[index])
            for index, _ in think
            if _most_lose(verdicts[index])
            and len(walk.lines_before[index]) < len(final)
            and walk.lines_before[index] == final[: len(walk.lines_before[index])]
            and events[index].move == final[len(walk.lines_before[index])]
        }
        on_line = len(decisions)
        quick = (
            limits.quick_base_seconds
            + limits.quick_seconds_per_move * len(final)
            + limits.quick_seconds_per_danger * on_line
        )
        if seconds < quick:
            reasons.append(
                Reason(
                    "fast_for_the_deal",
                    weights.fast_for_the_deal,
                    f"won in {seconds:.0f} s, with {on_line} decisions where most moves lose",
                )
            )
    return reasons


def _most_lose(verdict: Verdict) -> bool:
    return verdict.losing >= 0 and verdict.choices > 1 and 2 * verdict.losing > verdict.choices
