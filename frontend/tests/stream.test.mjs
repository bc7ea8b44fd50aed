// Versioned streams: VersionedStream on its own, and StreamLink as the watch page uses it against a
// scripted server (docs/api.md, "The watch socket"): the state first, events applied once and in order
// (batched or not), a gap or a drop resumed by ?v=, other messages passed on, refusals and the end
// final. Run: node --test frontend/tests/

import assert from "node:assert/strict";
import { afterEach, beforeEach, mock, test } from "node:test";

import { StreamLink, VersionedStream } from "../static/js/stream.js";
import { socketsInto } from "./fake_socket.mjs";

function event(v, kind, move = null, extra = {}) {
  return { t: "event", game: 7, v, kind, move, piles: 52, at: "2026-11-30T12:00:00Z", line: null, result: null, ...extra };
}

function state(v, extra = {}) {
  return { t: "state", v, game: { id: 7, version: v, moves: [], status: "playing", ...extra }, player: { id: 1, nickname: "Ada" }, race: null };
}

function watch() {
  const sockets = [];
  const heard = { states: [], events: [], others: [], statuses: [], refusals: [] };
  const link = new StreamLink({
    wsPath: "/ws/watch/7/",
    onState: (message) => heard.states.push(message),
    onEvent: (message) => heard.events.push(message),
    onMessage: (message) => heard.others.push(message),
    onStatus: (status) => heard.statuses.push(status),
    onRefused: (refusal) => heard.refusals.push(refusal),
    openSocket: socketsInto(sockets),
  });
  link.start();
  sockets[0].open();
  return { link, sockets, heard };
}

beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
afterEach(() => mock.timers.reset());

test("the first socket has no ?v= and starts from the state", () => {
  const { link, sockets, heard } = watch();
  sockets[0].receive(state(4));
  assert.equal(sockets[0].path, "/ws/watch/7/");
  assert.equal(heard.states.length, 1);
  assert.equal(link.version, 4);
});

test("events apply once and in version order, one by one or in a batch", () => {
  const { sockets, heard } = watch();
  sockets[0].receive(state(1));
  sockets[0].receive({ t: "events", events: [event(3, "move", [4, 3]), event(4, "undo", [4, 3])] });
  sockets[0].receive(event(2, "move", [5, 4]));
  sockets[0].receive(event(3, "move", [4, 3]));
  assert.deepEqual(
    heard.events.map((e) => [e.v, e.kind]),
    [
      [2, "move"],
      [3, "move"],
      [4, "undo"],
    ],
  );
});

test("a count and a badge riding in an events frame reach the page after the frame's events", () => {
  const { sockets, heard } = watch();
  sockets[0].receive(state(1));
  const badge = { t: "winnable", game: 7, v: 2, status: "win" };
  sockets[0].receive({ t: "events", events: [event(2, "move", [5, 4])], also: [{ t: "crowd", watchers: 3 }, badge] });
  assert.deepEqual(
    heard.events.map((e) => e.v),
    [2],
  );
  assert.deepEqual(heard.others, [{ t: "crowd", watchers: 3 }, badge]);
});

test("a version that does not come is asked for again by reconnecting with ?v=", () => {
  const { sockets, heard } = watch();
  sockets[0].receive(state(1));
  sockets[0].receive(event(3, "move", [4, 3]));
  mock.timers.tick(500);
  assert.equal(sockets[0].closedWith, 1000);
  assert.equal(sockets[1].path, "/ws/watch/7/?v=1");
  sockets[1].open();
  sockets[1].receive(event(2, "move", [5, 4]));
  sockets[1].receive(event(3, "move", [4, 3]));
  assert.deepEqual(
    heard.events.map((e) => e.v),
    [2, 3],
  );
});

test("after a drop the link comes back with the last version it applied", () => {
  const { sockets } = watch();
  sockets[0].receive(state(1));
  sockets[0].receive(event(2, "move", [5, 4]));
  sockets[0].close(1006);
  mock.timers.tick(1000);
  assert.equal(sockets[1].path, "/ws/watch/7/?v=2");
});

test("messages that are not the stream's (counts, badges) are passed on as they come", () => {
  const { sockets, heard } = watch();
  sockets[0].receive(state(1));
  sockets[0].receive({ t: "crowd", watchers: 3 });
  sockets[0].receive({ t: "winnable", game: 7, v: 1, status: "win" });
  assert.deepEqual(heard.others, [
    { t: "crowd", watchers: 3 },
    { t: "winnable", game: 7, v: 1, status: "win" },
  ]);
});

test("a refusal is final and says why", () => {
  const { sockets, heard } = watch();
  sockets[0].receive({ t: "refused", code: "spoiler", error: "finish your own daily game first" });
  sockets[0].close(4403);
  mock.timers.tick(20_000);
  assert.equal(sockets.length, 1);
  assert.deepEqual(heard.refusals, [{ code: "spoiler", error: "finish your own daily game first", closeCode: 4403 }]);
});

test("the close that follows the end of the game is not retried", () => {
  const { sockets, heard } = watch();
  sockets[0].receive(state(1));
  sockets[0].receive(event(2, "finish", null, { result: { score: 0, piles: 52, won: false, seconds: 9 } }));
  sockets[0].close(1000);
  mock.timers.tick(20_000);
  assert.equal(sockets.length, 1);
  assert.equal(heard.statuses.at(-1), "ended");
});

// ---- VersionedStream on its own: a racer's progress on the race page is kept this way ----

function recorder(options = {}) {
  const applied = [];
  const gaps = [];
  const stream = new VersionedStream({
    apply: (item, v) => applied.push([v, item]),
    onGap: () => gaps.push(stream.version),
    ...options,
  });
  return { stream, applied, gaps };
}

test("a stream applies nothing before its start, then each version once and in order", () => {
  const { stream, applied } = recorder();
  stream.take(6, "f");
  stream.take(5, "e");
  assert.deepEqual(applied, []);
  stream.startAt(4);
  stream.drain();
  stream.take(6, "f again");
  stream.take(4, "old");
  assert.deepEqual(applied, [
    [5, "e"],
    [6, "f"],
  ]);
  assert.equal(stream.version, 6);
});

test("a start drops what it already covers", () => {
  const { stream, applied } = recorder();
  stream.startAt(1);
  stream.take(3, "c");
  stream.startAt(3); // the whole thing again, newer than what was held
  stream.drain();
  stream.take(4, "d");
  assert.deepEqual(applied, [[4, "d"]]);
  assert.equal(stream.complete, true);
});

test("a gap is reported after a moment, and again while it lasts", () => {
  const { stream, gaps } = recorder({ gapWaitMs: () => 300 });
  stream.startAt(1);
  stream.take(3, "c");
  assert.equal(stream.complete, false);
  mock.timers.tick(299);
  assert.deepEqual(gaps, []);
  mock.timers.tick(1);
  assert.deepEqual(gaps, [1]);
  mock.timers.tick(300);
  assert.deepEqual(gaps, [1, 1]);
  stream.take(2, "b");
  mock.timers.tick(1000);
  assert.deepEqual(gaps, [1, 1], "a filled gap is not reported");
});

test("a gap that fills in time is never reported", () => {
  const { stream, applied, gaps } = recorder();
  stream.startAt(1);
  stream.take(3, "c");
  mock.timers.tick(100);
  stream.take(2, "b");
  mock.timers.tick(5000);
  assert.deepEqual(gaps, []);
  assert.deepEqual(
    applied.map(([v]) => v),
    [2, 3],
  );
});

test("cleared, a stream forgets what it held and reports no gap", () => {
  const { stream, applied, gaps } = recorder();
  stream.startAt(1);
  stream.take(3, "c");
  stream.clear();
  mock.timers.tick(5000);
  stream.take(2, "b");
  assert.deepEqual(gaps, []);
  assert.deepEqual(applied, [[2, "b"]]);
});
