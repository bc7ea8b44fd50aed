// The replay's moments from a game's stored events (frontend/static/js/pages/replay/timeline.js).
// Run: node --test frontend/tests/

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { timeline } from "../static/js/pages/replay/timeline.js";

const winning = JSON.parse(readFileSync(new URL("../../tests/vectors/winning_game.json", import.meta.url), "utf8"));
const [first, second, third] = winning.moves;

function at(seconds) {
  return new Date(Date.UTC(2026, 10, 30, 12, 0, seconds)).toISOString();
}

test("moves build the line, an undo takes the last move back, a hint changes nothing", () => {
  const frames = timeline(winning.deal, [
    { kind: "start", move: null, line: null, at: at(0) },
    { kind: "move", move: first, line: null, at: at(3) },
    { kind: "move", move: second, line: null, at: at(5) },
    { kind: "undo", move: second, line: null, at: at(6) },
    { kind: "hint", move: null, line: null, at: at(9) },
  ]);
  assert.deepEqual(frames.map((frame) => frame.line.length), [0, 1, 2, 1, 1]);
  assert.deepEqual(frames.map((frame) => frame.piles.length), [52, 51, 50, 51, 51]);
  assert.deepEqual(frames.map((frame) => frame.ms), [0, 3000, 5000, 6000, 9000]);
});

test("a finish with a line steps through the moves it brings (moves played offline)", () => {
  const frames = timeline(winning.deal, [
    { kind: "start", move: null, line: null, at: at(0) },
    { kind: "move", move: first, line: null, at: at(2) },
    { kind: "finish", move: null, line: [first, second, third], at: at(40) },
  ]);
  assert.deepEqual(frames.map((frame) => frame.piles.length), [52, 51, 50, 49]);
  assert.deepEqual(frames.map((frame) => frame.event.kind), ["start", "move", "move", "finish"]);
  assert.deepEqual(frames[2].event.move, second);
  assert.deepEqual(frames.map((frame) => frame.ms), [0, 2000, 21000, 40000]); // spread over the gap
});

test("a whole line finished over the API replays move by move", () => {
  const frames = timeline(winning.deal, [
    { kind: "start", move: null, line: null, at: at(0) },
    { kind: "finish", move: null, line: winning.moves, at: at(52) },
  ]);
  assert.equal(frames.length, 1 + winning.moves.length);
  assert.deepEqual(frames.map((frame) => frame.piles.length), [52, ...winning.moves.map((_, index) => 51 - index)]);
  assert.deepEqual(frames[frames.length - 1].line, winning.moves);
});

test("moves taken back offline are undone in one step before the finish's own", () => {
  const frames = timeline(winning.deal, [
    { kind: "start", move: null, line: null, at: at(0) },
    { kind: "move", move: first, line: null, at: at(2) },
    { kind: "move", move: second, line: null, at: at(4) },
    { kind: "finish", move: null, line: [first], at: at(10) },
  ]);
  assert.deepEqual(frames.map((frame) => frame.event.kind), ["start", "move", "move", "undo", "finish"]);
  assert.deepEqual(frames.map((frame) => frame.line.length), [0, 1, 2, 1, 1]);
});

test("a winning move over the socket is a finish carrying that move", () => {
  const moves = winning.moves.map((move, index) => ({ kind: "move", move, line: null, at: at(index + 1) }));
  const last = { ...moves.pop(), kind: "finish" };
  const frames = timeline(winning.deal, [{ kind: "start", move: null, line: null, at: at(0) }, ...moves, last]);
  assert.equal(frames[frames.length - 1].piles.length, 1);
  assert.deepEqual(frames[frames.length - 1].line, winning.moves);
});
