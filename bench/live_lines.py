"""The size of the live features' production Python at a git revision: lines per file and in total,
compared with the code before the live layer (commit 645b0b9, when games/hub.py and
accordion_site/sockets.py still held what realtime/ holds now).

    .venv/bin/python bench/live_lines.py [REV]      # REV defaults to HEAD

Counted: the files of LIVE (games/hub.py, games/events.py, games/consumers.py, accordion_site/sockets.py,
games/races/, games/watching/, realtime/), migrations left out. Two comparisons: strict (the live
files alone) and inclusive (also the platform adaptations that lived in accordion_site/ at the
baseline and are part of realtime/ now). A line is what `wc -l` counts.
"""

from __future__ import annotations

import argparse
import subprocess

BASELINE = "645b0b9"
LIVE = (
    "games/hub.py",
    "games/events.py",
    "games/consumers.py",
    "accordion_site/sockets.py",
    "games/races/",
    "games/watching/",
    "realtime/",
)
# The platform adaptations counted by the inclusive comparison where they lived before realtime/.
ADAPTATIONS = tuple(
    f"accordion_site/{name}.py" for name in ("channel_layers", "daphne_limits", "loop_db", "collection")
)
GOAL = 0.15  # the issue asks for at least 15 % fewer lines


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def _counted(path: str, prefixes: tuple[str, ...]) -> bool:
    return (
        path.endswith(".py")
        and "/migrations/" not in path
        and any(path == prefix or (prefix.endswith("/") and path.startswith(prefix)) for prefix in prefixes)
    )


def line_counts(rev: str, prefixes: tuple[str, ...]) -> dict[str, int]:
    """Lines of each counted file at `rev`."""
    files = [path for path in _git("ls-tree", "-r", "--name-only", rev).splitlines() if _counted(path, prefixes)]
    return {path: _git("show", f"{rev}:{path}").count("\n") for path in files}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rev", nargs="?", default="HEAD")
    rev = parser.parse_args().rev
    now = line_counts(rev, LIVE)
    for path, lines in sorted(now.items()):
        print(f"{lines:6,}  {path}")
    total = sum(now.values())
    print(f"{total:6,}  total at {rev}")
    strict = sum(line_counts(BASELINE, LIVE).values())
    inclusive = strict + sum(line_counts(BASELINE, ADAPTATIONS).values())
    for name, before in (("strict", strict), ("inclusive", inclusive)):
        change = total / before - 1
        verdict = "met" if change <= -GOAL else f"not met: the goal is at most {before * (1 - GOAL):,.0f}"
        print(f"{name}: {before:,} at {BASELINE} -> {total:,} at {rev} ({change:+.1%}; {verdict})")


if __name__ == "__main__":
    main()
