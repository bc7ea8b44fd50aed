"""The engine against the committed rule vectors in tests/vectors/ (the browser's rules.js is checked
against the same files by frontend/tests/rules.test.mjs)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from games.engine import (
    GOOD_GAME_PILES,
    IllegalMove,
    daily_deal,
    daily_seed,
    deal_from_code,
    format_deal_code,
    legal_moves,
    normalize_deal_code,
    replay,
    score,
    seed_commitment,
    validate_deal,
)

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def cases(name: str, *, where: Any = None) -> Any:
    items = load(name) if where is None else load(name)[where]
    ids = [item.get("name", str(k)) for k, item in enumerate(items)]
    return pytest.mark.parametrize("case", items, ids=ids)


@cases("replays.json")
def test_replay_gives_the_verdict_piles_and_score_recorded_in_the_vector(case):
    if case["verdict"] == "illegal":
        with pytest.raises(IllegalMove) as caught:
            replay(case["deal"], case["moves"])
        assert caught.value.index == case["illegal_index"]
        return
    assert case["verdict"] == "ok"
    position = replay(case["deal"], case["moves"])
    assert position.piles == case["piles"]
    assert list(position.tops) == case["tops"]
    assert [list(pile) for pile in position.piles_cards] == case["piles_cards"]
    assert score(position.piles, case["score_seconds"]) == case["score"]


@cases("legal_moves.json")
def test_legal_moves_are_exactly_those_recorded_in_the_vector(case):
    position = replay(case["deal"], case["moves"])
    assert list(position.tops) == case["tops"]
    assert [list(move) for move in legal_moves(position)] == case["legal_moves"]


@cases("scores.json")
def test_the_score_is_the_one_recorded_in_the_vector(case):
    if case.get("error"):
        with pytest.raises(ValueError):
            score(case["piles"], case["seconds"])
        return
    assert score(case["piles"], case["seconds"]) == case["score"]
    assert (case["piles"] <= GOOD_GAME_PILES) is case["good_game"]


@cases("deals.json", where="daily")
def test_the_daily_seed_commitment_and_deal_of_a_date_are_the_ones_recorded_in_the_vector(case):
    date = datetime.date.fromisoformat(case["date"])
    assert daily_seed(date, secret=case["secret"]) == case["seed"]
    assert seed_commitment(case["seed"]) == case["commitment"]
    assert case["seed_text"] == f"daily:{case['date']}:{case['seed']}:{case['attempt']}"
    assert daily_deal(date, case["seed"]) == case["deal"]


@cases("deals.json", where="codes")
def test_a_deal_code_names_the_deal_recorded_in_the_vector(case):
    assert normalize_deal_code(case["code"]) == case["canonical"]
    assert format_deal_code(case["code"]) == case["display"]
    assert deal_from_code(case["code"]) == case["deal"]


@pytest.mark.parametrize("code", load("deals.json")["invalid_codes"])
def test_text_recorded_as_an_invalid_deal_code_is_refused(code):
    with pytest.raises(ValueError):
        normalize_deal_code(code)


@cases("deals.json", where="invalid_deals")
def test_a_deal_recorded_as_invalid_is_refused_by_validation_and_by_replay(case):
    with pytest.raises(ValueError):
        validate_deal(case["deal"])
    with pytest.raises(ValueError):
        replay(case["deal"], [])


def test_the_winning_game_vector_is_a_complete_51_move_win_of_its_code(winning_game):
    assert deal_from_code(winning_game["deal_code"]) == winning_game["deal"]
    assert len(winning_game["moves"]) == 51
    assert replay(winning_game["deal"], winning_game["moves"]).won


def test_the_winning_game_is_also_a_case_in_the_replay_vectors(winning_game):
    wins = [
        case
        for case in load("replays.json")
        if case["verdict"] == "ok" and case["piles"] == 1 and case["moves"] == winning_game["moves"]
    ]
    assert wins and all(case["deal"] == winning_game["deal"] for case in wins)
