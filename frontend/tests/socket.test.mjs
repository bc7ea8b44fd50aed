// The site's one reconnecting socket (socket.js, LiveSocket), as the race room uses it: commands with
// sequence numbers, refusals final, drops retried with backoff, a stream's end not retried.
// Run: node --test frontend/tests/

import assert from "node:assert/strict";
import { test } from "node:test";

import { LiveSocket } from "../static/js/socket.js";
import { socketsInto } from "./fake_socket.mjs";

function linkWith(sockets, options = {}) {
  const heard = [];
  const refusals = [];
  const states = [];
  const link = new LiveSocket({
    nextPath: () => "/ws/races/K7QD2M/",
    onMessage: (message) => heard.push(message),
    onRefused: (refusal) => refusals.push(refusal),
    onState: (state) => states.push(state),
    openSocket: socketsInto(sockets),
    ...options,
  });
  return { link, heard, refusals, states };
}

test("commands carry a growing sequence number once the socket is open", () => {
  const sockets = [];
  const { link } = linkWith(sockets);
  link.start();
  assert.equal(link.send({ t: "ready", ready: true }), 0, "nothing is sent before the socket opens");
  sockets[0].open();
  link.send({ t: "ready", ready: true });
  link.send({ t: "start" });
  assert.deepEqual(sockets[0].sent, [
    { t: "ready", ready: true, n: 1 },
    { t: "start", n: 2 },
  ]);
});

test("a refusal is final: its reason reaches the page and no new socket opens", () => {
  const sockets = [];
  const { link, heard, refusals } = linkWith(sockets);
  link.start();
  sockets[0].open();
  sockets[0].receive({ t: "refused", code: "not_found", error: "there is no race room 'ZZZZZZ'" });
  sockets[0].close(4404);
  assert.deepEqual(heard, []);
  assert.deepEqual(refusals, [{ code: "not_found", error: "there is no race room 'ZZZZZZ'", closeCode: 4404 }]);
  assert.equal(link.state, "refused");
  assert.equal(sockets.length, 1);
});

test("a dropped socket is opened again and its messages reach the page", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const sockets = [];
  const { link, heard } = linkWith(sockets);
  link.start();
  sockets[0].open();
  sockets[0].close(1006);
  assert.equal(link.state, "offline");
  t.mock.timers.tick(1_000);
  assert.equal(sockets.length, 2);
  sockets[1].open();
  sockets[1].receive({ t: "room", version: 3 });
  assert.deepEqual(heard, [{ t: "room", version: 3 }]);
});

test("every new socket numbers its commands from 1 again, and a reconnect opens one at once", () => {
  const sockets = [];
  const { link } = linkWith(sockets);
  link.start();
  sockets[0].open();
  link.send({ t: "ready", ready: true });
  link.reconnect();
  assert.equal(sockets[0].closedWith, 1000);
  assert.equal(sockets.length, 2);
  sockets[1].open();
  link.send({ t: "sync" });
  assert.deepEqual(sockets[1].sent, [{ t: "sync", n: 1 }]);
});

test("the backoff grows while sockets keep failing, and starts over once one opens", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const sockets = [];
  const { link } = linkWith(sockets);
  link.start();
  sockets[0].close(1006);
  t.mock.timers.tick(625); // the first wait is 500 ms ± 25 %
  assert.equal(sockets.length, 2);
  sockets[1].close(1006);
  t.mock.timers.tick(700);
  assert.equal(sockets.length, 2, "the second wait is about a second");
  t.mock.timers.tick(600);
  assert.equal(sockets.length, 3);
  sockets[2].open();
  sockets[2].close(1006);
  t.mock.timers.tick(625);
  assert.equal(sockets.length, 4);
});

test("a close once the stream is over ends the link without a retry", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const sockets = [];
  const { link, states } = linkWith(sockets, { isOver: () => true });
  link.start();
  sockets[0].open();
  sockets[0].close(1000);
  t.mock.timers.tick(60_000);
  assert.equal(sockets.length, 1);
  assert.equal(states.at(-1), "ended");
});

test("stopped, the link closes its socket and opens no other", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const sockets = [];
  const { link, states } = linkWith(sockets);
  link.start();
  sockets[0].open();
  link.stop();
  assert.equal(sockets[0].closedWith, 1000);
  sockets[0].close(1000);
  t.mock.timers.tick(60_000);
  assert.equal(sockets.length, 1);
  assert.equal(states.at(-1), "closed");
  assert.equal(link.send({ t: "sync" }), 0);
});
