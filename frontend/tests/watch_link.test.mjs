// The watcher's socket against a scripted server (docs/api.md, "Watching a game"): the state first,
// events applied once and in order (batched or not), a gap or a drop resumed by ?v=, counts and
// badges passed on, refusals and the end final. Run: node --test frontend/tests/

import assert from "node:assert/strict";
import { afterEach, beforeEach, mock, test } from "node:test";

import { WatchLink } from "../static/js/watch_link.js";

class FakeSocket {
  constructor(path) {
    this.path = path;
    this.listeners = new Map();
    this.closedWith = null;
  }

  addEventListener(type, listener) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  emit(type, event = {}) {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }

  receive(message) {
    this.emit("message", { data: JSON.stringify(message) });
  }

  close(code = 1000) {
    this.closedWith = code;
    this.emit("close", { code });
  }
}

function event(v, kind, move = null, extra = {}) {
  return { t: "event", game: 7, v, kind, move, piles: 52, at: "2026-11-30T12:00:00Z", line: null, result: null, ...extra };
}

function state(v, extra = {}) {
  return { t: "state", v, game: { id: 7, version: v, moves: [], status: "playing", ...extra }, player: { id: 1, nickname: "Ada" }, race: null };
}

function watch() {
  const sockets = [];
  const heard = { states: [], events: [], crowds: [], badges: [], statuses: [], refusals: [] };
  const link = new WatchLink({
    wsPath: "/ws/watch/7/",
    onState: (message) => heard.states.push(message),
    onEvent: (message) => heard.events.push(message),
    onCrowd: (watchers) => heard.crowds.push(watchers),
    onBadge: (badge) => heard.badges.push(badge),
    onStatus: (status) => heard.statuses.push(status),
    onRefused: (refusal) => heard.refusals.push(refusal),
    openSocket: (path) => {
      const socket = new FakeSocket(path);
      sockets.push(socket);
      return socket;
    },
  });
  link.start();
  sockets[0].emit("open");
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

test("a version that does not come is asked for again by reconnecting with ?v=", () => {
  const { sockets, heard } = watch();
  sockets[0].receive(state(1));
  sockets[0].receive(event(3, "move", [4, 3]));
  mock.timers.tick(500);
  assert.equal(sockets[0].closedWith, 1000);
  assert.equal(sockets[1].path, "/ws/watch/7/?v=1");
  sockets[1].emit("open");
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

test("counts and badges are passed on as they come", () => {
  const { sockets, heard } = watch();
  sockets[0].receive(state(1));
  sockets[0].receive({ t: "crowd", watchers: 3 });
  sockets[0].receive({ t: "winnable", game: 7, v: 1, status: "win" });
  assert.deepEqual(heard.crowds, [3]);
  assert.deepEqual(heard.badges, [{ v: 1, status: "win" }]);
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
