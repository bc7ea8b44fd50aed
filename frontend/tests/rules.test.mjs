// The browser's copy of the rules against the shared vectors in tests/vectors/ (the Python engine is
// checked against the same files by tests/engine/test_vectors.py). Run: node --test frontend/tests/

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import {
  GOOD_GAME_PILES,
  IllegalMove,
  InvalidDeal,
  applyMove,
  cardsMatch,
  isGoodGame,
  legalMoves,
  replay,
  score,
  scoreParts,
  tapPile,
  targetsFrom,
  topsOf,
} from "../static/js/rules.js";

const load = (name) => JSON.parse(readFileSync(new URL(`../../tests/vectors/${name}`, import.meta.url), "utf8"));

const replays = load("replays.json");
const legal = load("legal_moves.json");
const scores = load("scores.json");
const deals = load("deals.json");
const winning = load("winning_game.json");

describe("replay vectors", () => {
  for (const vector of replays) {
    test(vector.name, () => {
      if (vector.verdict === "illegal") {
        assert.throws(
          () => replay(vector.deal, vector.moves),
          (error) => error instanceof IllegalMove && error.index === vector.illegal_index,
        );
        return;
      }
      assert.equal(vector.verdict, "ok");
      const piles = replay(vector.deal, vector.moves);
      assert.equal(piles.length, vector.piles);
      assert.deepEqual(topsOf(piles), vector.tops);
      assert.deepEqual(piles, vector.piles_cards);
      assert.equal(score(piles.length, vector.score_seconds), vector.score);
    });
  }
});

describe("legal move vectors", () => {
  for (const vector of legal) {
    test(vector.name, () => {
      const piles = replay(vector.deal, vector.moves);
      assert.deepEqual(topsOf(piles), vector.tops);
      assert.deepEqual(legalMoves(piles), vector.legal_moves);
      assert.deepEqual(legalMoves(vector.tops), vector.legal_moves, "a row of top cards gives the same moves");
      const fromTargets = piles.flatMap((_, from) => targetsFrom(piles, from).map((to) => [from, to]));
      assert.deepEqual(fromTargets, vector.legal_moves, "targetsFrom offers exactly the legal moves");
    });
  }
});

describe("score vectors", () => {
  for (const vector of scores) {
    test(vector.name, () => {
      if (vector.error) {
        assert.throws(() => score(vector.piles, vector.seconds), RangeError);
        return;
      }
      assert.equal(score(vector.piles, vector.seconds), vector.score);
      assert.equal(isGoodGame(vector.piles), vector.good_game);
    });
  }
});

describe("the score's parts add up to the score of each vector", () => {
  for (const vector of scores.filter((each) => !each.error)) {
    test(vector.name, () => {
      const parts = scoreParts(vector.piles, vector.seconds);
      assert.equal(parts.removed, 52 - vector.piles);
      assert.equal(parts.removedPoints, parts.pointsPerPile * parts.removed);
      assert.equal(parts.removedPoints + parts.winBonus + parts.timeBonus, vector.score);
      assert.equal(parts.total, vector.score);
      if (vector.piles > 1) assert.equal(parts.winBonus + parts.timeBonus, 0, "only a win earns bonuses");
    });
  }
});

describe("invalid deal vectors", () => {
  for (const vector of deals.invalid_deals) {
    test(`a deal with ${vector.name} is refused as a bad deal, not as an illegal move`, () => {
      assert.throws(() => replay(vector.deal, []), InvalidDeal);
    });
  }
});

test("the winning game can be clicked through: each move is one of the targets the board offers", () => {
  let piles = replay(winning.deal, []);
  for (const [from, to] of winning.moves) {
    assert.ok(targetsFrom(piles, from).includes(to), `${from} → ${to} is offered`);
    piles = applyMove(piles, [from, to]);
  }
  assert.equal(piles.length, 1);
  assert.deepEqual(piles, replay(winning.deal, winning.moves));
});

test("a win after 90 seconds scores 2120 and the best possible score is 2210", () => {
  assert.equal(score(1, 90), 10 * 51 + 500 + (1200 - 90));
  assert.equal(score(1, 0), 2210);
});

test("five piles or fewer is a good game", () => {
  assert.equal(GOOD_GAME_PILES, 5);
  assert.equal(isGoodGame(5), true);
  assert.equal(isGoodGame(6), false);
});

test("cards match when they share a rank or a suit, and only then", () => {
  assert.equal(cardsMatch("TD", "TS"), true);
  assert.equal(cardsMatch("TD", "2D"), true);
  assert.equal(cardsMatch("TD", "JS"), false);
});

test("applying a move returns a new row and leaves the old one unchanged", () => {
  const before = [["AC", "5D"], ["2H", "8D"], ["7S", "KD"], ["4C"]];
  const snapshot = structuredClone(before);
  const after = applyMove(before, [2, 1]);
  assert.deepEqual(after, [["AC", "5D"], ["2H", "8D", "7S", "KD"], ["4C"]]);
  assert.deepEqual(before, snapshot);
});

test("applying a move accepts a row of top cards", () => {
  assert.deepEqual(applyMove(["9D", "2C", "3H", "9S"], [3, 0]), [["9D", "9S"], ["2C"], ["3H"]]);
});

test("an illegal move throws an error whose message says which cards do not match", () => {
  assert.throws(
    () => applyMove([["TD"], ["JS"]], [1, 0]),
    (error) =>
      error instanceof IllegalMove &&
      error instanceof Error &&
      /JS onto TD share neither suit nor rank/.test(error.message) &&
      error.index === null,
  );
});

test("a move that is not one or three places left within the row is illegal", () => {
  const clubs = [["AC"], ["2C"], ["3C"], ["4C"], ["5C"]];
  for (const move of [[2, 0], [4, 0], [0, 1], [1, 1], [0, -1], [5, 4], [1.5, 0.5], ["1", "0"], [true, false],
    [NaN, 0], [Infinity, 2], [1], [1, 0, 0], null, "1,0", { 0: 1, 1: 0, length: 2 }]) {
    assert.throws(() => applyMove(clubs, move), IllegalMove, JSON.stringify(move));
  }
});

test("targetsFrom offers nothing for the leftmost pile or a position outside the row", () => {
  const clubs = ["AC", "2C", "3C", "4C"];
  assert.deepEqual(targetsFrom(clubs, 0), []);
  assert.deepEqual(targetsFrom(clubs, 4), []);
  assert.deepEqual(targetsFrom(clubs, -1), []);
  assert.deepEqual(targetsFrom(clubs, 1.5), []);
  assert.deepEqual(targetsFrom(clubs, 3), [2, 0]);
});

test("tapping a pile with one move plays it", () => {
  const tap = tapPile(["9D", "2C", "3H", "9S"], { index: 3, selected: null, targets: [] });
  assert.deepEqual(tap, { move: [3, 0], selected: null, targets: [], stuck: false });
});

test("tapping a pile with two moves picks it, and tapping one of its targets plays there", () => {
  const piles = ["9D", "2C", "3H", "9H"];
  const picked = tapPile(piles, { index: 3, selected: null, targets: [] });
  assert.deepEqual(picked, { move: null, selected: 3, targets: [2, 0], stuck: false });
  assert.deepEqual(tapPile(piles, { index: 0, ...picked }).move, [3, 0]);
});

test("tapping anything but a target after a pick drops the pick without moving", () => {
  const tap = tapPile(["9D", "2C", "3H", "9H"], { index: 1, selected: 3, targets: [2, 0] });
  assert.deepEqual(tap, { move: null, selected: null, targets: [], stuck: false });
});

test("tapping a pile that cannot move is stuck", () => {
  assert.equal(tapPile(["9D", "2C", "3H", "KS"], { index: 3, selected: null, targets: [] }).stuck, true);
});
