// The socket link against a scripted server (docs/api.md, "The player's socket"): versions applied
// once and in order, gaps asked for, resuming by ?v=, the board's line pushed or adopted, refusals
// final. Run: node --test frontend/tests/

import assert from "node:assert/strict";
import { afterEach, beforeEach, mock, test } from "node:test";

import { GameLink } from "../static/js/link.js";
import { socketsInto } from "./fake_socket.mjs";

const CLOSED = 3; // WebSocket.CLOSED

function event(v, kind, move = null, extra = {}) {
  const at = "2026-11-30T12:00:00Z";
  return { t: "event", game: 7, v, kind, move, piles: 52, at, line: null, result: null, ...extra };
}

function state(v, moves, extra = {}) {
  return { t: "state", v, game: { id: 7, version: v, moves, status: "playing", ...extra } };
}

/** A link on a board whose line is `board.line`; everything the link tells the page is recorded. */
function makeLink(board = { line: [] }) {
  const sockets = [];
  const heard = { games: [], changes: [], adopted: [], refusals: [], rejects: [], states: [] };
  const link = new GameLink({
    wsPath: "/ws/games/7/",
    currentLine: () => board.line,
    onGame: (game) => heard.games.push(game),
    onChange: (change) => heard.changes.push(change),
    onAdopt: (line) => {
      heard.adopted.push(line);
      board.line = line;
    },
    onReject: (reject) => heard.rejects.push(reject),
    onRefused: (refusal) => heard.refusals.push(refusal),
    onState: (linkState) => heard.states.push(linkState),
    openSocket: socketsInto(sockets),
  });
  return { link, sockets, heard, board };
}

/** A link that connected and heard the game at version `v` with `moves`. */
function connected(v = 1, moves = []) {
  const made = makeLink({ line: moves.map((move) => [...move]) });
  made.link.start();
  made.sockets[0].open();
  made.sockets[0].receive(state(v, moves));
  return made;
}

beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
afterEach(() => mock.timers.reset());

test("a first socket has no ?v= and the server's state is the game", () => {
  const { link, sockets, heard } = makeLink();
  link.start();
  assert.equal(sockets[0].path, "/ws/games/7/");
  sockets[0].open();
  sockets[0].receive(state(3, [[5, 4], [3, 0]]));
  assert.equal(heard.games.length, 1);
  assert.equal(link.version, 3);
  assert.deepEqual(link.serverLine, [[5, 4], [3, 0]]);
  assert.equal(link.live, true);
});

test("events apply once and in version order, whatever order they arrive in", () => {
  const { sockets, heard } = connected(1);
  sockets[0].receive(event(3, "move", [4, 3]));
  sockets[0].receive(event(2, "move", [5, 4]));
  sockets[0].receive(event(2, "move", [5, 4]));
  assert.deepEqual(
    heard.changes.map((change) => [change.v, change.kind]),
    [
      [2, "move"],
      [3, "move"],
    ],
  );
});

test("a move made in another tab shows on the board from its event alone", () => {
  const { sockets, heard, board } = connected(1);
  sockets[0].receive(event(2, "move", [5, 4]));
  assert.deepEqual(heard.adopted, [[[5, 4]]]);
  assert.deepEqual(board.line, [[5, 4]]);
});

test("the link's own move is applied once: from its ack, and its event is then ignored", () => {
  const { link, sockets, heard, board } = connected(1);
  board.line = [[5, 4]];
  link.sendMove([5, 4]);
  assert.deepEqual(sockets[0].sent.at(-1), { t: "move", move: [5, 4], n: 1 });
  sockets[0].receive({ t: "ack", n: 1, v: 2, piles: 51, status: "playing", result: null });
  sockets[0].receive(event(2, "move", [5, 4]));
  assert.deepEqual(
    heard.changes.map((change) => change.v),
    [2],
  );
  assert.deepEqual(heard.adopted, [], "the board already shows its own move");
  assert.equal(link.settled, true);
});

test("the event of the link's own move may come before its ack", () => {
  const { link, sockets, heard, board } = connected(1);
  board.line = [[5, 4]];
  link.sendMove([5, 4]);
  sockets[0].receive(event(2, "move", [5, 4]));
  assert.equal(link.settled, false, "the move is not acked yet");
  sockets[0].receive({ t: "ack", n: 1, v: 2, piles: 51, status: "playing", result: null });
  assert.deepEqual(heard.adopted, []);
  assert.equal(link.settled, true);
});

test("a gap in the versions is asked for with sync after a moment", () => {
  const { link, sockets } = connected(4);
  sockets[0].receive(event(6, "move", [5, 4]));
  assert.equal(sockets[0].sent.length, 0, "the missing event may still be on its way");
  mock.timers.tick(1000);
  assert.deepEqual(sockets[0].sent, [{ t: "sync", v: 4, n: 1 }]);
  sockets[0].receive(event(5, "move", [9, 8]));
  assert.equal(link.version, 6);
  assert.deepEqual(link.serverLine, [
    [9, 8],
    [5, 4],
  ]);
});

test("after a drop the link reconnects with ?v= of the last version applied", () => {
  const { sockets, heard } = connected(1);
  sockets[0].receive(event(2, "move", [5, 4]));
  sockets[0].close(1006);
  assert.equal(heard.states.at(-1), "offline");
  mock.timers.tick(20_000);
  assert.equal(sockets.length, 2);
  assert.equal(sockets[1].path, "/ws/games/7/?v=2");
});

test("moves made offline are sent after reconnecting, and moves the server has are not sent again", () => {
  const { link, sockets, board } = connected(1);
  board.line = [[5, 4]];
  link.sendMove([5, 4]);
  sockets[0].receive({ t: "ack", n: 1, v: 2, piles: 51, status: "playing", result: null });
  sockets[0].close(1006);
  board.line = [[5, 4], [3, 0], [1, 0]];
  assert.equal(link.sendMove([3, 0]), false, "nothing is sent or queued while offline");
  mock.timers.tick(20_000);
  sockets[1].open();
  assert.deepEqual(sockets[1].sent, [
    { t: "move", move: [3, 0], n: 1 },
    { t: "move", move: [1, 0], n: 2 },
  ]);
});

test("an undo made offline is sent as an undo after reconnecting", () => {
  const { link, sockets, board } = connected(2, [[5, 4]]);
  sockets[0].close(1006);
  board.line = [];
  mock.timers.tick(20_000);
  sockets[1].open();
  assert.deepEqual(sockets[1].sent, [{ t: "undo", n: 1 }]);
  sockets[1].receive({ t: "ack", n: 1, v: 3, piles: 52, status: "playing", result: null });
  assert.deepEqual(link.serverLine, []);
  assert.equal(link.settled, true);
});

test("after a reject the board takes the server's line once every answer is in", () => {
  const { link, sockets, heard, board } = connected(1);
  board.line = [[5, 4], [3, 0]];
  link.sendMove([5, 4]);
  link.sendMove([3, 0]);
  sockets[0].receive({ t: "ack", n: 1, v: 2, piles: 51, status: "playing", result: null });
  sockets[0].receive({ t: "reject", n: 2, error: "cards do not match", code: "illegal_move" });
  assert.equal(heard.rejects.length, 1);
  assert.deepEqual(board.line, [[5, 4]]);
  assert.equal(link.settled, true);
});

test("a finish heard as an event carries the result and the line the server verified", () => {
  const { link, sockets, heard } = connected(2, [[5, 4]]);
  const result = { score: 20, piles: 50, won: false, seconds: 30, good_game: false };
  sockets[0].receive(event(3, "finish", null, { line: [[5, 4], [3, 0]], result }));
  assert.deepEqual(heard.changes.at(-1).result, result);
  assert.deepEqual(link.serverLine, [
    [5, 4],
    [3, 0],
  ]);
});

test("a refused socket is final: the reason reaches the page and there is no retry", () => {
  const { link, sockets, heard } = makeLink();
  link.start();
  sockets[0].open();
  sockets[0].receive({ t: "refused", code: "not_your_game", error: "game 7 belongs to another player" });
  sockets[0].close(4403);
  mock.timers.tick(60_000);
  assert.equal(sockets.length, 1);
  assert.equal(heard.states.at(-1), "refused");
  assert.deepEqual(heard.refusals, [
    { code: "not_your_game", error: "game 7 belongs to another player", closeCode: 4403 },
  ]);
});

test("a refusal is final even when its close code is lost (a reset connection reads 1006)", () => {
  const { link, sockets, heard } = makeLink();
  link.start();
  sockets[0].open();
  sockets[0].receive({ t: "refused", code: "not_your_game", error: "game 7 belongs to another player" });
  sockets[0].close(1006);
  mock.timers.tick(60_000);
  assert.equal(sockets.length, 1);
  assert.equal(heard.states.at(-1), "refused");
  assert.equal(heard.refusals[0].code, "not_your_game");
});

test("a refusal that says try again later is retried, whatever its close code", () => {
  const { link, sockets, heard } = makeLink();
  link.start();
  sockets[0].open();
  sockets[0].receive({ t: "refused", code: "unavailable", error: "the service is briefly unavailable" });
  sockets[0].close(1006);
  mock.timers.tick(60_000);
  assert.equal(sockets.length, 2);
  assert.deepEqual(heard.refusals, []);
});

test("a hint waits until the server has every move on the board", async () => {
  const { link, sockets, board } = connected(1);
  board.line = [[5, 4]];
  link.sendMove([5, 4]);
  const settled = link.whenSettled(5000);
  sockets[0].receive({ t: "ack", n: 1, v: 2, piles: 51, status: "playing", result: null });
  assert.equal(await settled, true);
});

test("a resumed socket that starts with a state takes it, even one older than the link's copy", () => {
  const { link, sockets, heard, board } = connected(3, [[5, 4], [3, 0]]);
  sockets[0].close(1006);
  mock.timers.tick(20_000);
  sockets[1].open();
  sockets[1].receive(state(2, [[5, 4]])); // the server went back (a restored database): the whole game
  assert.equal(link.version, 2);
  assert.deepEqual(heard.games.at(-1).moves, [[5, 4]]);
  assert.deepEqual(board.line, [[5, 4]], "the board follows the server");
});

test("a gap that a sync does not fill is resumed on a new socket with ?v=", () => {
  const { link, sockets } = connected(4);
  sockets[0].receive(event(6, "move", [5, 4]));
  mock.timers.tick(300);
  assert.deepEqual(sockets[0].sent, [{ t: "sync", v: 4, n: 1 }]);
  mock.timers.tick(2000);
  assert.equal(sockets[0].readyState, CLOSED);
  assert.equal(sockets[1].path, "/ws/games/7/?v=4");
  sockets[1].open();
  sockets[1].receive(event(5, "move", [9, 8]));
  sockets[1].receive(event(6, "move", [5, 4]));
  assert.equal(link.version, 6);
  assert.equal(link.settled, true);
});
