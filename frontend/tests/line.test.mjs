// The event → line reducer (docs/api.md, "Games are streams of events"): replaying a game's events
// from its deal gives its stored line. Run: node --test frontend/tests/

import assert from "node:assert/strict";
import { test } from "node:test";

import { commonLength, lineAfter } from "../static/js/line.js";

function replayEvents(events) {
  return events.reduce(lineAfter, [[9, 9]]);
}

test("a start empties the line, moves append, an undo takes the last move back", () => {
  const line = replayEvents([
    { kind: "start" },
    { kind: "move", move: [5, 4] },
    { kind: "move", move: [3, 0] },
    { kind: "undo", move: [3, 0] },
    { kind: "move", move: [2, 1] },
  ]);
  assert.deepEqual(line, [
    [5, 4],
    [2, 1],
  ]);
});

test("a hint leaves the line as it is", () => {
  assert.deepEqual(lineAfter([[5, 4]], { kind: "hint", move: null }), [[5, 4]]);
});

test("a finish with a whole line takes it, one with a winning move appends it", () => {
  const before = [[5, 4]];
  assert.deepEqual(lineAfter(before, { kind: "finish", move: null, line: [[1, 0], [2, 1]] }), [
    [1, 0],
    [2, 1],
  ]);
  assert.deepEqual(lineAfter(before, { kind: "finish", move: [1, 0], line: null }), [
    [5, 4],
    [1, 0],
  ]);
  assert.deepEqual(lineAfter(before, { kind: "finish", move: null, line: null }), [[5, 4]], "End game as it stands");
});

test("the line given is never changed", () => {
  const before = [[5, 4]];
  lineAfter(before, { kind: "move", move: [3, 0] });
  lineAfter(before, { kind: "undo" });
  assert.deepEqual(before, [[5, 4]]);
});

test("two lines share the moves up to their first difference", () => {
  assert.equal(commonLength([[5, 4], [3, 0]], [[5, 4], [2, 1]]), 1);
  assert.equal(commonLength([], [[5, 4]]), 0);
  assert.equal(commonLength([[5, 4]], [[5, 4]]), 1);
});
