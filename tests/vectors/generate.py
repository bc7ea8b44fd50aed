"""Generate the rule vectors in tests/vectors/*.json.

The JSON files are the committed source of truth: the Python engine (tests/engine/test_vectors.py)
and the browser's copy of the rules (frontend/tests/rules.test.mjs) are both checked against them.
This script is kept so that anyone can see where every case came from and add new ones.

    .venv/bin/python tests/vectors/generate.py           # rewrite the JSON files
    .venv/bin/python tests/vectors/generate.py --check   # exit 1 if they differ from what it would write

How the expected values are obtained: every verdict, pile list and legal-move list is computed by a
deliberately naive reference implementation written here from docs/rules.md (lists of lists, string
comparison), and the script refuses to write anything unless games.engine agrees with it. Deals come
from games.engine.deals (their derivation is documented in docs/rules.md).

The winning line is found by a depth-first search over deal codes "2222-2222", "2222-2223", ...
(the first code whose search ends in a win within a node budget). Only the top cards matter for
which moves are legal, so positions are remembered by their row of top cards to prune the search.

Files written:
- replays.json        list of {"name", "deal", "moves", "verdict": "ok" | "illegal", "illegal_index"?,
                      "piles"?, "tops"?, "piles_cards"?, "score_seconds"?, "score"?}
- legal_moves.json    list of {"name", "deal", "moves", "tops", "legal_moves"}: the legal moves of the
                      position reached by playing "moves" from "deal" (ordered by source, then 1 before 3)
- scores.json         list of {"name", "piles", "seconds", "score" | "error": true, "good_game"?}
- deals.json          {"daily": [...], "codes": [...], "invalid_codes": [...], "invalid_deals": [...]}; a daily
                      case is {"date", "secret", "seed", "commitment", "attempt", "seed_text", "deal"}
- winning_game.json   {"deal_code", "deal", "moves"}: a complete 51-move win
"""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games import engine  # noqa: E402
from games.engine.deals import CODE_ALPHABET  # noqa: E402

HERE = Path(__file__).resolve().parent
NODE_BUDGET = 300_000
WIN_SECONDS = 90
# The daily vectors' secret, the one docs/rules.md's worked example uses (a real server keeps its own).
EXAMPLE_DAILY_SECRET = "example secret: never use it on a server"

# ---------------------------------------------------------------------------------------------------
# Reference rules: as plain as possible, independent of games.engine's encodings and fast paths.


class RefIllegal(Exception):
    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.index = index


def ref_match(a: str, b: str) -> bool:
    return a[0] == b[0] or a[1] == b[1]


def ref_legal_moves(piles: list[list[str]]) -> list[list[int]]:
    moves = []
    for source in range(len(piles)):
        for distance in (1, 3):
            target = source - distance
            if target >= 0 and ref_match(piles[source][-1], piles[target][-1]):
                moves.append([source, target])
    return moves


def ref_is_whole_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def ref_replay(deal: Any, moves: Any) -> list[list[str]]:
    """Final piles, or RefIllegal(index) at the first move that is not one of the legal moves."""
    piles = [[card] for card in deal]
    if not isinstance(moves, list):
        raise RefIllegal(0)
    for index, move in enumerate(moves):
        if not (isinstance(move, list) and len(move) == 2 and all(ref_is_whole_number(v) for v in move)):
            raise RefIllegal(index)
        if move not in ref_legal_moves(piles):
            raise RefIllegal(index)
        source, target = move
        piles[target] = piles[target] + piles[source]
        del piles[source]
    return piles


def ref_score(piles: int, seconds: int | None) -> int:
    points = 10 * (52 - piles)
    if piles == 1:
        points += 500
        if seconds is not None:
            points += max(0, 1200 - seconds)
    return points


# ---------------------------------------------------------------------------------------------------
# Finding a winning line.


def find_winning_line(deal: list[str], budget: int) -> list[list[int]] | None:
    """A 51-move win by depth-first search (rightmost source first, distance 3 before 1), or None
    when the search proves there is none or runs out of budget."""
    dead: set[tuple[str, ...]] = set()
    line: list[list[int]] = []
    nodes = 0

    def search(tops: tuple[str, ...]) -> bool:
        nonlocal nodes
        if len(tops) == 1:
            return True
        if tops in dead:
            return False
        nodes += 1
        if nodes > budget:
            raise TimeoutError
        for source in range(len(tops) - 1, 0, -1):
            for distance in (3, 1):
                target = source - distance
                if target >= 0 and ref_match(tops[source], tops[target]):
                    line.append([source, target])
                    after = tops[:target] + (tops[source],) + tops[target + 1 : source] + tops[source + 1 :]
                    if search(after):
                        return True
                    line.pop()
        dead.add(tops)
        return False

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 1000))
    try:
        return line if search(tuple(deal)) else None
    except TimeoutError:
        return None
    finally:
        sys.setrecursionlimit(limit)


def codes_from(start: str) -> Iterator[str]:
    """Deal codes in counting order over CODE_ALPHABET: 2222-2222, 2222-2223, ..., 2222-222Z, 2222-2232."""
    digits = [CODE_ALPHABET.index(symbol) for symbol in engine.normalize_deal_code(start)]
    while True:
        yield engine.format_deal_code("".join(CODE_ALPHABET[d] for d in digits))
        position = len(digits) - 1
        while True:
            digits[position] = (digits[position] + 1) % len(CODE_ALPHABET)
            if digits[position] or position == 0:
                break
            position -= 1


def first_winnable_code() -> tuple[str, list[str], list[list[int]]]:
    for code in codes_from("2222-2222"):
        deal = engine.deal_from_code(code)
        line = find_winning_line(deal, NODE_BUDGET)
        if line is not None:
            return code, deal, line
    raise AssertionError("unreachable")


def deal_without_moves() -> list[str]:
    """A deal on which no move is legal: no card shares a suit or rank with the cards 1 and 3 to its left.
    Suits cycle C D H S (so neighbours at distance 1 and 3 always differ in suit); ranks by backtracking."""
    suits = "CDHS"
    remaining = {suit: list(engine.RANKS) for suit in suits}
    row: list[str] = []

    def place(position: int) -> bool:
        if position == 52:
            return True
        suit = suits[position % 4]
        for rank in list(remaining[suit]):
            if any(position - d >= 0 and row[position - d][0] == rank for d in (1, 3)):
                continue
            remaining[suit].remove(rank)
            row.append(rank + suit)
            if place(position + 1):
                return True
            row.pop()
            remaining[suit].append(rank)
            remaining[suit].sort(key=engine.RANKS.index)
        return False

    assert place(0)
    return row


# ---------------------------------------------------------------------------------------------------
# Building the cases, each checked against the engine.


def replay_case(name: str, deal: list[str], moves: Any, seconds: int = WIN_SECONDS) -> dict[str, Any]:
    case: dict[str, Any] = {"name": name, "deal": deal, "moves": moves}
    try:
        piles = ref_replay(deal, moves)
    except RefIllegal as illegal:
        try:
            engine.replay(deal, moves)
        except engine.IllegalMove as error:
            assert error.index == illegal.index, (name, error.index, illegal.index)
        else:
            raise AssertionError(f"engine accepted {name!r}")
        case.update(verdict="illegal", illegal_index=illegal.index)
        return case
    position = engine.replay(deal, moves)
    assert [list(pile) for pile in position.piles_cards] == piles, name
    tops = [pile[-1] for pile in piles]
    assert list(position.tops) == tops, name
    expected_score = ref_score(len(piles), seconds)
    assert engine.score(position.piles, seconds) == expected_score, name
    case.update(
        verdict="ok",
        piles=len(piles),
        tops=tops,
        piles_cards=piles,
        score_seconds=seconds,
        score=expected_score,
    )
    return case


def first_mismatch(piles: list[list[str]], distance: int) -> list[int]:
    for source in range(distance, len(piles)):
        if not ref_match(piles[source][-1], piles[source - distance][-1]):
            return [source, source - distance]
    raise AssertionError("every pair matches")


def build_replays(deal: list[str], line: list[list[int]], daily: list[str]) -> list[dict[str, Any]]:
    after_10 = ref_replay(deal, line[:10])
    # The first move of the line whose moving pile holds more than one card.
    multi = next(index for index, move in enumerate(line) if len(ref_replay(deal, line[:index])[move[0]]) > 1)
    good_game_prefix = 52 - engine.GOOD_GAME_PILES
    cases = [
        replay_case("the winning line of deal 2222-2222 wins with one pile", deal, line),
        replay_case("a win after 1500 seconds earns no time bonus", deal, line, seconds=1500),
        replay_case("no moves leave the deal as 52 piles", deal, []),
        replay_case("the daily deal of 2026-11-30 with no moves", daily, []),
        replay_case("a first move of a one-card pile", deal, line[:1]),
        replay_case("a whole pile of several cards moves, not only its top card", deal, line[: multi + 1]),
        replay_case(
            f"stopping with {engine.GOOD_GAME_PILES} piles is a good game but not a win",
            deal,
            line[:good_game_prefix],
        ),
        replay_case("stopping with two piles is not a win", deal, line[:50]),
        # Illegal moves after a legal prefix: the index names the first bad move.
        replay_case(
            "a neighbour that shares neither suit nor rank is refused",
            deal,
            line[:10] + [first_mismatch(after_10, 1)],
        ),
        replay_case(
            "a pile three to the left that shares neither suit nor rank is refused",
            deal,
            line[:10] + [first_mismatch(after_10, 3)],
        ),
        replay_case("a pile cannot move two places left", deal, [[2, 0]]),
        replay_case("a pile cannot move four places left", deal, [[4, 0]]),
        replay_case("a pile cannot move to the right", deal, [[0, 1]]),
        replay_case("a pile cannot move onto itself", deal, [[1, 1]]),
        replay_case("the leftmost pile has nothing to its left", deal, [[0, -1]]),
        replay_case("negative positions are refused", deal, [[-1, -2]]),
        replay_case("a position past the end of the deal is refused", deal, [[52, 51]]),
        replay_case("positions refer to the current, shortened row", deal, line[:1] + [[51, 50]]),
        replay_case("a 52nd move after a win is refused", deal, line + [[0, 0]]),
        replay_case(
            "an early illegal move in an over-long list is the one named",
            deal,
            [[5, 1]] + [[1, 0]] * 59,
        ),
        replay_case("a huge position is refused", deal, [[10**100, 10**100 - 1]]),
        # Junk where a list of moves belongs.
        replay_case("moves that are not a list are refused (null)", deal, None),
        replay_case("moves that are not a list are refused (text)", deal, "1,0"),
        replay_case("moves that are not a list are refused (number)", deal, 5),
        replay_case("moves that are not a list are refused (object)", deal, {"0": [1, 0]}),
        # Junk where a move belongs.
        replay_case("a move given as text is refused", deal, ["[1, 0]"]),
        replay_case("a move given as a number is refused", deal, [1]),
        replay_case("a move given as null is refused", deal, [None]),
        replay_case("a move given as an object is refused", deal, [{"from": 1, "to": 0}]),
        replay_case("a move with one position is refused", deal, [[1]]),
        replay_case("a move with three positions is refused", deal, [[1, 0, 0]]),
        replay_case("an empty move is refused", deal, [[]]),
        replay_case("positions given as booleans are refused", deal, [[True, False]]),
        replay_case("positions given as text are refused", deal, [["1", "0"]]),
        replay_case("fractional positions are refused", deal, [[1.5, 0.5]]),
        replay_case("null positions are refused", deal, [[None, None]]),
        replay_case("nested positions are refused", deal, [[[1], [0]]]),
        replay_case("junk after legal moves is named by its index", deal, line[:3] + [["x", 0]]),
    ]
    return cases


def legal_case(name: str, deal: list[str], moves: list[list[int]]) -> dict[str, Any]:
    piles = ref_replay(deal, moves)
    expected = ref_legal_moves(piles)
    position = engine.replay(deal, moves)
    assert [list(move) for move in engine.legal_moves(position)] == expected, name
    return {
        "name": name,
        "deal": deal,
        "moves": moves,
        "tops": [pile[-1] for pile in piles],
        "legal_moves": expected,
    }


def build_legal_moves(
    deal: list[str], line: list[list[int]], daily: list[str], stuck: list[str]
) -> list[dict[str, Any]]:
    cases = [
        legal_case("the deal of code 2222-2222 before any move", deal, []),
        legal_case("the daily deal of 2026-11-30 before any move", daily, []),
        legal_case("the unshuffled deck: runs of one suit match at distance 1 and 3", list(engine.DECK), []),
        legal_case("a deal where no card matches its neighbours has no legal move", stuck, []),
    ]
    for played in (1, 10, 25, 40, 47, 49, 50, 51):
        cases.append(legal_case(f"after {played} moves of the winning line", deal, line[:played]))
    # Make sure the vectors exercise every kind of match at both distances.
    kinds = set()
    for case in cases:
        tops = case["tops"]
        for source, target in case["legal_moves"]:
            same_rank = tops[source][0] == tops[target][0]
            same_suit = tops[source][1] == tops[target][1]
            kinds.add((source - target, same_rank, same_suit))
    assert {(1, True, False), (1, False, True), (3, True, False), (3, False, True)} <= kinds, kinds
    return cases


def score_case(name: str, piles: Any, seconds: Any) -> dict[str, Any]:
    try:
        points = engine.score(piles, seconds)
    except ValueError:
        return {"name": name, "piles": piles, "seconds": seconds, "error": True}
    assert points == ref_score(piles, seconds), name
    return {
        "name": name,
        "piles": piles,
        "seconds": seconds,
        "score": points,
        "good_game": piles <= engine.GOOD_GAME_PILES,
    }


def build_scores() -> list[dict[str, Any]]:
    return [
        score_case("an untouched deal scores nothing", 52, 30),
        score_case("each removed pile is worth 10", 51, 30),
        score_case("six piles is not yet a good game", 6, 300),
        score_case("five piles is a good game worth 470", 5, 300),
        score_case("two piles earn no win bonus", 2, 10),
        score_case("a win at the first second scores the best possible 2210", 1, 0),
        score_case("a win after 90 seconds", 1, 90),
        score_case("a win after 1199 seconds keeps one bonus point", 1, 1199),
        score_case("a win after 1200 seconds earns no time bonus", 1, 1200),
        score_case("the time bonus never goes negative", 1, 100_000),
        score_case("a win without a server time earns no time bonus", 1, None),
        score_case("a loss without a server time", 7, None),
        score_case("zero piles is impossible", 0, 10),
        score_case("more than 52 piles is impossible", 53, 10),
        score_case("negative piles are refused", -1, 10),
        score_case("fractional piles are refused", 1.5, 10),
        score_case("piles given as text are refused", "5", 10),
        score_case("piles given as a boolean are refused", True, 10),
        score_case("piles given as null are refused", None, 10),
        score_case("negative seconds are refused", 1, -1),
        score_case("fractional seconds are refused", 1, 1.5),
        score_case("seconds given as text are refused", 1, "10"),
        score_case("seconds given as a boolean are refused", 1, False),
    ]


def build_deals() -> dict[str, Any]:
    daily = []
    for text in ("2026-11-30", "2026-01-01", "2024-02-29", "2000-01-01"):
        date = datetime.date.fromisoformat(text)
        seed = engine.daily_seed(date, secret=EXAMPLE_DAILY_SECRET)
        certified = engine.certified_daily_deal(date, seed)
        daily.append(
            {
                "date": text,
                "secret": EXAMPLE_DAILY_SECRET,
                "seed": seed,
                "commitment": engine.seed_commitment(seed),
                "attempt": certified.attempt,
                "seed_text": f"daily:{text}:{seed}:{certified.attempt}",
                "deal": list(certified.cards),
            }
        )
    codes = []
    for code in ("2222-2222", "2222-2223", "K7QD-M2XP", " k7qd m2xp ", "ZZZZZZZZ"):
        canonical = engine.normalize_deal_code(code)
        codes.append(
            {
                "code": code,
                "canonical": canonical,
                "display": engine.format_deal_code(code),
                "seed_text": f"code:{canonical}",
                "deal": engine.deal_from_code(code),
            }
        )
    invalid_codes = [
        "",
        "2222-222",
        "2222-22222",
        "0000-0000",
        "OOOO-1111",
        "IIII-IIII",
        "2222_2222",
        "2222+2222",
    ]
    for code in invalid_codes:
        try:
            engine.normalize_deal_code(code)
        except ValueError:
            continue
        raise AssertionError(f"{code!r} was accepted")
    deck = list(engine.DECK)
    invalid_deals = [
        {"name": "51 cards", "deal": deck[:51]},
        {"name": "53 cards", "deal": deck + ["AC"]},
        {"name": "no cards", "deal": []},
        {"name": "a card twice", "deal": deck[:51] + ["AC"]},
        {"name": "a lower-case card", "deal": ["ac"] + deck[1:]},
        {"name": "a ten written as 10", "deal": ["10C"] + deck[:9] + deck[10:]},
        {"name": "a rank that does not exist", "deal": ["1C"] + deck[1:]},
        {"name": "a suit that does not exist", "deal": ["AX"] + deck[1:]},
        {"name": "a null card", "deal": [None] + deck[1:]},
        {"name": "a number for a card", "deal": [0] + deck[1:]},
        {"name": "a nested list for a card", "deal": [["AC"]] + deck[1:]},
        {"name": "the deal as one string", "deal": "".join(deck)},
        {"name": "the deal as an object", "deal": {"0": "AC"}},
        {"name": "the deal as null", "deal": None},
    ]
    for case in invalid_deals:
        try:
            engine.validate_deal(case["deal"])
        except ValueError:
            continue
        raise AssertionError(f"{case['name']} was accepted")
    return {"daily": daily, "codes": codes, "invalid_codes": invalid_codes, "invalid_deals": invalid_deals}


# ---------------------------------------------------------------------------------------------------
# Output: one key per line, values on one line, so diffs stay readable.


def dump(value: Any) -> str:
    def compact(item: Any) -> str:
        return json.dumps(item, ensure_ascii=False)

    def obj(item: dict[str, Any], indent: str) -> str:
        inner = indent + "  "
        lines = [f"{inner}{compact(key)}: {compact(val)}" for key, val in item.items()]
        return "{\n" + ",\n".join(lines) + "\n" + indent + "}"

    if isinstance(value, list):
        return "[\n" + ",\n".join("  " + obj(item, "  ") for item in value) + "\n]\n"
    lines = []
    for key, val in value.items():
        if isinstance(val, list) and val and isinstance(val[0], dict):
            body = ",\n".join("    " + obj(item, "    ") for item in val)
            lines.append(f"  {compact(key)}: [\n{body}\n  ]")
        else:
            lines.append(f"  {compact(key)}: {compact(val)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def build() -> dict[str, str]:
    code, deal, line = first_winnable_code()
    assert code == "2222-2222", code  # documented in docs/rules.md and used by the browser tests
    assert len(line) == 51 and len(ref_replay(deal, line)) == 1
    example_day = datetime.date(2026, 11, 30)
    daily = engine.daily_deal(example_day, engine.daily_seed(example_day, secret=EXAMPLE_DAILY_SECRET))
    stuck = deal_without_moves()
    return {
        "winning_game.json": dump({"deal_code": code, "deal": deal, "moves": line}),
        "replays.json": dump(build_replays(deal, line, daily)),
        "legal_moves.json": dump(build_legal_moves(deal, line, daily, stuck)),
        "scores.json": dump(build_scores()),
        "deals.json": dump(build_deals()),
    }


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, text in build().items():
        assert json.loads(text) is not None
        path = HERE / name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print("out of date: " + ", ".join(stale) + " (run tests/vectors/generate.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
