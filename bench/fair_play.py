"""The fair-play assessment against simulated players: how many people it would hold for review (the
false-positive rate) and how many of each scripted attacker it catches, with the thresholds used.

    .venv/bin/python bench/fair_play.py                         # 1,000 people, 40 of each attacker
    .venv/bin/python bench/fair_play.py --humans 200 --attackers 10   # a quick run

The players (tests/simulated_players.py) play certified daily deals (games.engine.certified_daily_deal
of consecutive dates from a fixed seed); every game goes through games.engine.risk.judge_play and
assess, as a finished ranked game does on the site (the solver's answers are shared per deal, which
changes only how long it takes). The figures do not depend on the machine: the players are seeded.
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
import pathlib
import random
import sys
import time
from collections import Counter

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from games.engine import certified_daily_deal
from games.engine.risk import Limits, Weights
from tests.simulated_players import (
    ATTACKERS,
    Play,
    assessed,
    fresh_guest,
    human,
    judge_for,
    scripted,
    solver_line,
    steady,
)

SEED = "5e" * 32
FIRST_DATE = datetime.date(2026, 1, 1)


def _play_deal(task: tuple[int, int, int, int]) -> dict[str, list[tuple[int, bool, list[str]]]]:
    """Every game of one deal (a worker process's share): `humans` people, `attackers` of each attacker
    and as many fresh guests replaying one line. Returns (risk, won, reasons) per game, by player kind."""
    day, humans, attackers, seed = task
    deal = certified_daily_deal(FIRST_DATE + datetime.timedelta(days=day), SEED).cards
    judge = judge_for(deal)
    rng = random.Random(seed)

    def risk(play: Play, same_line: int = 0) -> tuple[int, bool, list[str]]:
        found = assessed(deal, play, judge, same_line)
        return found.risk, play.won, [f"{reason.code} {reason.points:+d}" for reason in found.reasons]

    results: dict[str, list[tuple[int, bool, list[str]]]] = {"people": []}
    for _ in range(humans):
        results["people"].append(risk(human(deal, rng, judge)))
    for name, attacker in ATTACKERS.items():
        results[name] = [risk(attacker(deal, rng, judge)) for _ in range(attackers)]
    line = solver_line(deal)
    results[GUESTS] = [
        risk(scripted(deal, rng, judge, pace=steady(rng), line=line, history=fresh_guest()), same_line=number)
        for number in range(attackers)
    ]
    return results


GUESTS = "many fresh guests, one line"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--humans", type=int, default=1000)
    parser.add_argument("--attackers", type=int, default=40, help="games of each attacker")
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--threshold", type=int, default=50, help="FAIR_PLAY_REVIEW_RISK")
    parser.add_argument("--show", type=int, default=0, help="print the reasons of this many people held")
    args = parser.parse_args()
    began = time.perf_counter()
    tasks = [
        (day, len(range(day, args.humans, args.deals)), len(range(day, args.attackers, args.deals)), day)
        for day in range(args.deals)
    ]
    merged: dict[str, list[tuple[int, bool, list[str]]]] = {}
    with multiprocessing.Pool(args.processes) as pool:
        for results in pool.imap_unordered(_play_deal, tasks):
            for name, found in results.items():
                merged.setdefault(name, []).extend(found)

    people = merged.pop("people")
    held = [(risk, won, reasons) for risk, won, reasons in people if risk >= args.threshold]
    wins = sum(won for _, won, _ in people)
    held_wins = sum(won for _, won, _ in held)
    risks = sorted(risk for risk, _, _ in people)
    print(f"people: {len(people)} games ({wins} won) on {args.deals} daily deals")
    print(
        f"  held for review (false positives): {len(held)} = {len(held) / len(people):.1%}"
        f" (of the wins: {held_wins} = {held_wins / max(wins, 1):.1%})"
    )
    print(
        f"  risk median {risks[len(risks) // 2]}, p90 {risks[int(0.9 * len(risks))]}, "
        f"p99 {risks[int(0.99 * len(risks))]}, max {risks[-1]}"
    )
    for risk, won, reasons in held[: args.show]:
        print(f"    held: risk {risk}, won={won}: {', '.join(reasons)}")
    reasons_seen: Counter[str] = Counter(reason.split()[0] for _, _, reasons in people for reason in reasons)
    print(f"  reasons among all people: {dict(reasons_seen.most_common())}")
    print(f"attackers: threshold {args.threshold}")
    for name, found in merged.items():
        caught = sum(risk >= args.threshold for risk, _, _ in found)
        lowest = min(risk for risk, _, _ in found)
        print(f"  {name}: caught {caught}/{len(found)} = {caught / len(found):.0%} (lowest risk {lowest})")
    print(f"thresholds: FAIR_PLAY_REVIEW_RISK={args.threshold}; {Limits()}")
    print(f"weights: {Weights()}")
    print(f"took {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
