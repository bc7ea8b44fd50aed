// The game's timer follows the server's clock. Run: node --test frontend/tests/

import assert from "node:assert/strict";
import { test } from "node:test";

import { GameClock, formatDuration } from "../static/js/clock.js";

test("the clock counts from the server's start plus the time since the server answered", () => {
  let now = 1_000;
  const clock = new GameClock(
    { started_at: "2026-11-30T12:00:00Z", server_now: "2026-11-30T12:01:30.500Z" },
    () => now,
  );
  assert.equal(clock.seconds(), 90);
  now += 600;
  assert.equal(clock.seconds(), 91);
});

test("durations read as minutes and seconds, with hours only when needed", () => {
  assert.equal(formatDuration(0), "0:00");
  assert.equal(formatDuration(95), "1:35");
  assert.equal(formatDuration(3725), "1:02:05");
});
