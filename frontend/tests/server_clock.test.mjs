// The race page's clock: the countdown runs on the server's time. Run: node --test frontend/tests/

import assert from "node:assert/strict";
import { test } from "node:test";

import { ServerClock } from "../static/js/pages/race/server_clock.js";

test("a countdown runs on the server's clock, whatever the device's clock says", () => {
  let local = 50_000; // the browser's monotonic clock, in ms
  const clock = new ServerClock(() => local);
  clock.sample("2026-11-30T12:00:00.000Z");
  assert.equal(clock.until("2026-11-30T12:00:05.000Z"), 5000);
  local += 4_200;
  assert.equal(clock.until("2026-11-30T12:00:05.000Z"), 800);
});

test("a message that came in late does not pull the server's clock back", () => {
  let local = 0;
  const clock = new ServerClock(() => local);
  clock.sample("2026-11-30T12:00:00.000Z");
  local = 1_000;
  clock.sample("2026-11-30T12:00:00.700Z"); // written 0.3 s before it arrived
  assert.equal(clock.serverNow(), Date.parse("2026-11-30T12:00:01.000Z"));
  clock.sample("2026-11-30T12:00:01.000Z");
  assert.equal(clock.serverNow(), Date.parse("2026-11-30T12:00:01.000Z"));
});
