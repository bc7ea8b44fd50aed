// The race page's clock and room socket. Run: node --test frontend/tests/

import assert from "node:assert/strict";
import { test } from "node:test";

import { RoomLink, ServerClock } from "../static/js/pages/race/room_link.js";

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

class FakeSocket extends EventTarget {
  constructor() {
    super();
    this.readyState = 0;
    this.sent = [];
  }

  send(text) {
    this.sent.push(JSON.parse(text));
  }

  close() {}

  open() {
    this.readyState = 1;
    this.dispatchEvent(new Event("open"));
  }

  message(content) {
    const event = new Event("message");
    event.data = JSON.stringify(content);
    this.dispatchEvent(event);
  }

  closeWith(code) {
    const event = new Event("close");
    event.code = code;
    this.dispatchEvent(event);
  }
}

function linkWith(sockets, options = {}) {
  const heard = [];
  const refusals = [];
  const link = new RoomLink({
    wsPath: "/ws/races/K7QD2M/",
    onMessage: (message) => heard.push(message),
    onRefused: (refusal) => refusals.push(refusal),
    openSocket: () => {
      const socket = new FakeSocket();
      sockets.push(socket);
      return socket;
    },
    ...options,
  });
  return { link, heard, refusals };
}

test("commands carry a growing sequence number once the socket is open", () => {
  const sockets = [];
  const { link } = linkWith(sockets);
  link.start();
  assert.equal(link.send({ t: "ready", ready: true }), false);
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
  sockets[0].message({ t: "refused", code: "not_found", error: "there is no race room 'ZZZZZZ'" });
  sockets[0].closeWith(4404);
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
  sockets[0].closeWith(1006);
  assert.equal(link.state, "offline");
  t.mock.timers.tick(1_000);
  assert.equal(sockets.length, 2);
  sockets[1].open();
  sockets[1].message({ t: "room", version: 3 });
  assert.deepEqual(heard, [{ t: "room", version: 3 }]);
});
