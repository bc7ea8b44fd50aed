"""The fair-play assessment (games/engine/risk.py) on simulated players: every scripted attacker is
held for review, simulated people are not, and each signal says why in words for the staff.
bench/fair_play.py measures the same over thousands of games."""

from __future__ import annotations

import random

import pytest

from games.engine import apply_move, legal_moves, replay
from games.engine.risk import FINISH, MOVE, UNDO, History, TimedEvent, Verdict, assess, judge_play
from games.engine.solver import PositionJudge
from tests.simulated_players import ATTACKERS, Play, assessed, fresh_guest, human, judge_for, scripted, steady

THRESHOLD = 50  # FAIR_PLAY_REVIEW_RISK's default


@pytest.fixture(scope="module")
def judge(winning_deal) -> PositionJudge:
    return judge_for(winning_deal)


def codes(found) -> set[str]:
    return {reason.code for reason in found.reasons}


@pytest.mark.parametrize("attacker", sorted(ATTACKERS))
@pytest.mark.parametrize("seed", [1, 2])
def test_every_scripted_attacker_is_held_for_review(winning_deal, judge, attacker, seed):
    play = ATTACKERS[attacker](winning_deal, random.Random(seed), judge)
    assert play.won
    found = assessed(winning_deal, play, judge)
    assert found.risk >= THRESHOLD, found.reasons


@pytest.mark.parametrize("seed", range(6))
def test_a_simulated_person_is_not_held(winning_deal, judge, seed):
    play = human(winning_deal, random.Random(seed), judge)
    found = assessed(winning_deal, play, judge)
    assert found.risk < THRESHOLD, found.reasons


def test_a_person_who_wins_visited_lost_positions_and_took_them_back(winning_deal, judge):
    wins: list[Play] = []
    for seed in range(40):
        play = human(winning_deal, random.Random(seed), judge)
        wins += [play] if play.won else []
        if len(wins) == 3:
            break
    assert wins
    for play in wins:
        verdicts = judge_play(winning_deal, play.events, None, 0, judge=judge)
        assert "lost" in [verdict.status for verdict in verdicts]
        assert "perfect_line" not in codes(assessed(winning_deal, play, judge))


def test_a_solver_line_at_a_steady_pace_says_why_it_is_held(winning_deal, judge):
    play = scripted(winning_deal, random.Random(5), judge, pace=steady(random.Random(5)))
    found = assessed(winning_deal, play, judge)
    assert {"perfect_line", "steady_pace"} <= codes(found)
    assert all(reason.detail for reason in found.reasons)
    assert found.risk == min(100, sum(reason.points for reason in found.reasons))


def test_many_fresh_guests_replaying_one_line_are_each_held(winning_deal, judge):
    rng = random.Random(9)
    line = scripted(winning_deal, rng, judge, pace=steady(rng)).line
    for earlier in range(4):
        play = scripted(winning_deal, rng, judge, pace=steady(rng), line=line, history=fresh_guest())
        found = assessed(winning_deal, play, judge, same_line=earlier)
        assert found.risk >= THRESHOLD and ("same_line" in codes(found)) == (earlier > 0)


def test_the_verdicts_follow_the_line_a_winning_line_wins_throughout_and_a_losing_move_loses(
    winning_deal, winning_line, judge
):
    events = [TimedEvent(MOVE, 2.0 * number, tuple(move)) for number, move in enumerate(winning_line[:-1], start=1)]
    events.append(TimedEvent(FINISH, 2.0 * len(winning_line), tuple(winning_line[-1])))
    verdicts = judge_play(winning_deal, events, None, 0, judge=judge)
    assert [verdict.status for verdict in verdicts] == ["win"] * len(winning_line)
    assert [verdict.choices for verdict in verdicts] == [
        len(legal_moves(replay(winning_deal, winning_line[:index]))) for index in range(len(winning_line))
    ]
    # The first position of the line where some move loses: that move, then an undo.
    for index in range(len(winning_line)):
        position = replay(winning_deal, winning_line[:index])
        losing = [move for move in legal_moves(position) if judge.status(apply_move(position, move)) == "lost"]
        if losing:
            break
    detour = [TimedEvent(MOVE, 500.0, losing[0]), TimedEvent(UNDO, 505.0, losing[0])]
    tried = judge_play(winning_deal, [*events[:index], *detour], None, 0, judge=judge)
    assert [verdict.status for verdict in tried[-2:]] == ["lost", "win"]
    assert tried[-2].losing == len(losing) if index == 0 else tried[index - 1].status == "win"


def test_before_the_solver_answers_timing_and_history_alone_can_hold_a_result():
    events = [TimedEvent(MOVE, 0.05 * number, (1, 0)) for number in range(1, 30)]
    found = assess(events=events, verdicts=None, won=True, seconds=2, history=History())
    assert {"fast_win", "fast_moves", "steady_pace"} <= codes(found) and found.risk == 100


def test_a_rest_finish_bringing_moves_never_sent_one_by_one_is_a_reason():
    line = tuple((1, 0) for _ in range(20))
    events = [TimedEvent(MOVE, 3.0, (1, 0)), TimedEvent(FINISH, 400.0, line=line)]
    found = assess(events=events, verdicts=None, won=False, seconds=400, history=History())
    assert codes(found) == {"unseen_moves"} and "19 moves" in found.reasons[0].detail


def test_history_raises_or_lowers_the_risk():
    events = [TimedEvent(MOVE, 5.0 * number, (1, 0)) for number in range(1, 4)]

    def risk(history: History) -> int:
        return assess(events=events, verdicts=None, won=False, seconds=20, history=history).risk

    assert risk(History(first_game=True)) == 10
    assert risk(History(confirmed=1)) == 40
    assert risk(History(cleared=1, first_game=True)) == 0


def test_verdicts_only_add_to_what_timing_found(winning_deal, judge):
    play = ATTACKERS["steady pace"](winning_deal, random.Random(3), judge)
    timing_only = assess(events=play.events, verdicts=None, won=True, seconds=play.seconds, history=play.history)
    assert timing_only.risk <= assessed(winning_deal, play, judge).risk


def test_a_dead_end_taken_back_at_once_is_what_a_person_does():
    # Two losing moves, each undone at once; only a dead end (no moves left) is plain to see.
    events = [
        TimedEvent(MOVE, 2.0, (1, 0)),
        TimedEvent(UNDO, 4.0, (1, 0)),
        TimedEvent(MOVE, 6.0, (2, 1)),
        TimedEvent(UNDO, 8.0, (2, 1)),
        TimedEvent(FINISH, 9.0),
    ]

    def found(dead_end: bool) -> set[str]:
        verdicts = [Verdict("lost", 3, 1, dead_end), Verdict("win"), Verdict("lost", 3, 1, dead_end), Verdict("win")]
        verdicts.append(Verdict("win"))
        return codes(assess(events=events, verdicts=verdicts, won=False, seconds=9, history=History()))

    assert "losses_known_at_once" in found(dead_end=False)
    assert "losses_known_at_once" not in found(dead_end=True)
