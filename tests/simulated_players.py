"""Simulated players for the fair-play assessment (games/engine/risk.py): a person, and programs that
replay a solver's line in the disguises the assessment must see through. The tests and bench/fair_play.py
use them; each returns the game as the server would store it (timed events), so the same events can
also be played through the real services.

The person is a model, not a recording: it thinks longer where most moves lose (it senses danger,
often), overlooks moves, plays moves that lose without knowing and, once stuck, takes back a few moves
(sometimes straight back to where it went wrong), regrets a move now and then, pauses unevenly, is
distracted at times, and gives up when its patience runs out.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from games.engine import Position, apply_move, legal_moves
from games.engine.position import Move
from games.engine.risk import FINISH, MOVE, UNDO, Assessment, History, TimedEvent, assess, judge_play
from games.engine.solver import PositionJudge, solve

# Every question the simulated players ask the solver: enough for every position of a daily deal.
JUDGE_POSITIONS = 500


def judge_for(deal: Sequence[str]) -> PositionJudge:
    """One judge per deal: the players and the assessment of many games on it share what it proved."""
    return PositionJudge(None, positions_each=JUDGE_POSITIONS)


@dataclass(slots=True)
class Play:
    """A finished game as stored: its events, whether it was won, its seconds, and the player's history."""

    events: list[TimedEvent]
    won: bool
    seconds: float
    history: History = field(default_factory=History)

    @property
    def line(self) -> list[Move]:
        line: list[Move] = []
        for event in self.events:
            if event.kind == UNDO:
                line.pop()
            elif event.move is not None:
                line.append(event.move)
            elif event.line is not None:
                line = list(event.line)
        return line


class _Clock:
    def __init__(self) -> None:
        self.events: list[TimedEvent] = []
        self.seconds = 0.0

    def add(self, kind: str, gap: float, move: Move | None = None, line: Sequence[Move] | None = None) -> None:
        self.seconds += gap
        self.events.append(
            TimedEvent(kind=kind, seconds=round(self.seconds, 3), move=move, line=tuple(line) if line else None)
        )


def _position(deal: Sequence[str], line: Sequence[Move]) -> Position:
    position = Position.from_deal(deal)
    for move in line:
        position = apply_move(position, move)
    return position


def _history(rng: random.Random) -> History:
    first = rng.random() < 0.15
    return History(first_game=first, account_days=rng.uniform(0, 2) if first else rng.uniform(0.5, 900))


def human(deal: Sequence[str], rng: random.Random, judge: PositionJudge) -> Play:
    """One person's game: see the module's docstring."""
    median_think = rng.uniform(1.5, 4.0)
    spread = rng.uniform(0.55, 0.85)
    skill = rng.uniform(0.3, 0.6)  # how often a move is chosen knowing it keeps the game winnable
    notice = rng.uniform(0.75, 0.95)
    senses_danger = rng.uniform(0.6, 0.95)
    patience = rng.randint(10, 80)  # dead ends before giving up
    regret = rng.uniform(0.0, 0.05)
    clock = _Clock()
    line: list[Move] = []
    tried: dict[tuple[Move, ...], set[Move]] = {}
    dead_ends = 0
    while True:
        position = _position(deal, line)
        legal = legal_moves(position)
        if not legal:
            dead_ends += 1
            if dead_ends > patience or clock.seconds > 60 * 60:
                clock.add(FINISH, rng.uniform(2, 15))
                return Play(clock.events, won=False, seconds=clock.seconds, history=_history(rng))
            _undo_some(deal, line, rng, judge, clock)
            continue
        options = [move for move in legal if move not in tried.get(tuple(line), set())] or legal
        noticed = [move for move in options if rng.random() < (notice if move[0] - move[1] == 1 else notice * 0.8)]
        searching = 1.0 if noticed else 1.6
        noticed = noticed or options
        statuses = [judge.status(apply_move(position, move)) for move in legal]
        most_lose = len(legal) > 1 and 2 * statuses.count("lost") > len(legal)
        winning = [move for move in noticed if statuses[legal.index(move)] == "win"]
        # Each return to a position teaches something about it.
        knows = skill + 0.5 * len(tried.get(tuple(line), ()))
        move = rng.choice(winning) if winning and rng.random() < knows else rng.choice(noticed)
        think = median_think * math.exp(rng.gauss(0, spread)) * searching
        think *= 0.45 if len(legal) == 1 else 1 + 0.04 * (len(legal) - 1)
        if most_lose and rng.random() < senses_danger:
            think *= rng.uniform(1.8, 3.5)
        if rng.random() < 0.03:
            think += rng.uniform(5, 40)  # distracted
        tried.setdefault(tuple(line), set()).add(move)
        line.append(move)
        if _position(deal, line).won:
            clock.add(FINISH, think, move)
            return Play(clock.events, won=True, seconds=clock.seconds, history=_history(rng))
        clock.add(MOVE, think, move)
        if rng.random() < regret:
            clock.add(UNDO, rng.uniform(0.4, 2.0), line.pop())


def _undo_some(deal: Sequence[str], line: list[Move], rng: random.Random, judge: PositionJudge, clock: _Clock) -> None:
    """Stuck: take back a few moves, or (seeing where it went wrong) back to the last winnable position
    and a little more; the first undo after a look at the dead end, the rest in a quick run."""
    if rng.random() < 0.7:
        keep = len(line)
        while keep > 0 and judge.status(_position(deal, line[:keep])) != "win":
            keep -= 1
        count = len(line) - keep + min(rng.randint(0, 2), keep)
    else:
        count = 1 + min(int(rng.expovariate(1 / 2.5)), 12)
    count = max(1, min(count, len(line)))
    for number in range(count):
        gap = rng.uniform(1.5, 6.0) if number == 0 else rng.uniform(0.25, 0.9)
        clock.add(UNDO, gap, line.pop())


# The programs. Each plays a solver's winning line; `pace` draws the gap before each move.

Pace = Callable[[random.Random], float]


def steady(rng: random.Random) -> Pace:
    """A fixed pace between 0.5 and 3 s a move, with ±10% jitter."""
    pace = rng.uniform(0.5, 3.0)
    return lambda r: pace * r.uniform(0.9, 1.1)


def random_pauses(rng: random.Random) -> Pace:
    """Pauses drawn uniformly from 0.5-3 s, with now and then a long one."""
    return lambda r: r.uniform(5, 20) if r.random() < 0.08 else r.uniform(0.5, 3.0)


def lognormal_pauses(rng: random.Random) -> Pace:
    """Heavy-tailed pauses like a person's, but blind to where the danger is."""
    median = rng.uniform(1.5, 4.0)
    return lambda r: median * math.exp(r.gauss(0, 0.8))


def solver_line(deal: Sequence[str]) -> list[Move]:
    found = solve(deal, time_limit=None, max_positions=5_000_000)
    assert found.status == "win" and found.moves is not None
    return found.moves


def scripted(
    deal: Sequence[str],
    rng: random.Random,
    judge: PositionJudge,
    *,
    pace: Pace,
    decoys: str | None = None,
    socket_moves: int | None = None,
    line: Sequence[Move] | None = None,
    history: History | None = None,
) -> Play:
    """A program replaying a solver's winning line (or `line`) at `pace`. `decoys` "winnable" or "losing":
    now and then it plays another move of that kind first and undoes it. `socket_moves`: it sends only
    so many moves one by one, and the rest of the line in a REST finish."""
    line = list(line or solver_line(deal))
    clock = _Clock()
    played: list[Move] = []
    for index, move in enumerate(line):
        if socket_moves is not None and index == socket_moves:
            clock.add(FINISH, pace(rng), line=line)
            break
        position = _position(deal, played)
        if decoys is not None and rng.random() < 0.2:
            wanted = "win" if decoys == "winnable" else "lost"
            others = [
                other
                for other in legal_moves(position)
                if other != move
                and judge.status(apply_move(position, other)) == wanted
                and legal_moves(apply_move(position, other))
            ]
            if others:
                clock.add(MOVE, pace(rng), rng.choice(others))
                clock.add(UNDO, pace(rng), clock.events[-1].move)
        played.append(move)
        clock.add(FINISH if index == len(line) - 1 else MOVE, pace(rng), move)
    return Play(clock.events, won=True, seconds=clock.seconds, history=history or _history(rng))


def fresh_guest() -> History:
    """A guest made for one attempt: no game before, minutes old."""
    return History(first_game=True, account_days=0.01)


ATTACKERS: dict[str, Callable[[Sequence[str], random.Random, PositionJudge], Play]] = {
    "steady pace": lambda deal, rng, judge: scripted(deal, rng, judge, pace=steady(rng)),
    "random pauses": lambda deal, rng, judge: scripted(deal, rng, judge, pace=random_pauses(rng)),
    "winnable decoys and undos": lambda deal, rng, judge: scripted(
        deal, rng, judge, pace=random_pauses(rng), decoys="winnable"
    ),
    "losing decoys and undos": lambda deal, rng, judge: scripted(
        deal, rng, judge, pace=random_pauses(rng), decoys="losing"
    ),
    "partly scripted, finished by REST": lambda deal, rng, judge: scripted(
        deal, rng, judge, pace=random_pauses(rng), socket_moves=rng.randint(5, 35)
    ),
    "heavy-tailed pauses": lambda deal, rng, judge: scripted(deal, rng, judge, pace=lognormal_pauses(rng)),
    "fresh guest, steady pace": lambda deal, rng, judge: scripted(
        deal, rng, judge, pace=steady(rng), history=fresh_guest()
    ),
}


def assessed(deal: Sequence[str], play: Play, judge: PositionJudge, same_line: int = 0) -> Assessment:
    """The risk assessment of a simulated `play`, every position judged by `judge` without a time limit."""
    verdicts = judge_play(deal, play.events, time_limit=None, positions_each=0, judge=judge)
    return assess(
        events=play.events,
        verdicts=verdicts,
        won=play.won,
        seconds=play.seconds,
        history=play.history,
        same_line=same_line,
    )
