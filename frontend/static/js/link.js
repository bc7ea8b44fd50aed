// The board's live link to the server: one WebSocket per game, kept in step with the board's line.
//
// How the two copies of the move line stay in step (the board's line is what the player sees):
// - The board applies every move and undo at once (rules.js) and hands it to the link.
// - While the link is "live" it sends each one straight away as {"t": "move"|"undo", "n": seq} and
//   remembers the seq until the server acks it. n starts again from 1 on every new connection.
// - While the socket is down the link sends nothing and the player keeps playing locally. After
//   every (re)connection the link first GETs the game, then sends the undos and moves that turn
//   the server's line into the board's line ("push" sync), and only then goes live. So nothing
//   needs queueing across a disconnect, and moves that reached the server before the drop are
//   not sent twice.
// - A reject means the server disagrees with the board (e.g. the game moved on in another tab):
//   the link stops sending, waits for the answers still in flight, GETs the game and the board
//   takes the server's line ("adopt" sync).
// - Other tabs on the same game: the server tells every socket {"t": "changed", "v": version}; a
//   version newer than any answer we had means someone else changed the line, so we adopt it.
// - Close codes 4000-4999 are the server's final word (not your game, no such game): no retry.
// - Ending a game never depends on the socket: the board POSTs /finish with the whole line and the
//   server replays it, so a win while offline, or End game at any time, is always recorded.
// - "Settled" means live with nothing in flight: every move and undo the board made has been stored
//   and acked, so the server's line is the board's line. Anything that asks the server about the
//   position on screen (a hint, the still-winnable check) waits for that first: whenSettled().

import { getGame } from "./api.js";

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
const DRAIN_TIMEOUT_MS = 4000;
const FINAL_CLOSE_CODES = { min: 4000, max: 4999 };

function sameMove(a, b) {
  return a[0] === b[0] && a[1] === b[1];
}

export class GameLink {
  /**
   * @param {object} options
   * @param {number} options.gameId
   * @param {string} options.wsPath         the game's socket path, e.g. "/ws/games/7/"
   * @param {() => number[][]} options.currentLine   the board's move line right now
   * @param {(game: object, how: "push"|"adopt") => boolean} options.onServerGame
   *        called with a fresh GET at each sync; "adopt" means the board must take game.moves.
   *        Return false when the board needs no more socket (the game is finished).
   * @param {(ack: object, drained: boolean) => void} options.onAck
   * @param {(reject: object) => void} options.onReject
   * @param {(state: string) => void} options.onState
   *        connecting | syncing | live | offline (retrying) | refused (the server said no) | closed
   */
  constructor(options) {
    this.options = options;
    this.state = "idle";
    this.socket = null;
    this.seq = 0;
    this.pending = [];
    this.attempt = 0;
    this.retryTimer = 0;
    this.drainTimer = 0;
    this.syncing = false;
    this.adoptOnSync = false;
    this.stopped = false;
    this.version = -1; // the newest server version we know of (a GET or an ack)
    this.waiters = []; // whenSettled() promises still waiting
    this.onOnline = () => this.reconnectNow();
  }

  get live() {
    return this.state === "live";
  }

  /** Live, with every move and undo sent so far acked: the server holds the board's line. */
  get settled() {
    return (
      this.state === "live" &&
      this.pending.length === 0 &&
      !this.adoptOnSync &&
      !this.syncing &&
      this.socket !== null &&
      this.socket.readyState === WebSocket.OPEN
    );
  }

  /**
   * Resolve true once the link is settled, false if it is stopped, refused, or not settled within
   * timeoutMs (offline, or the server is slow to answer).
   */
  whenSettled(timeoutMs) {
    if (this.settled) return Promise.resolve(true);
    if (this.stopped || this.state === "refused") return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = { resolve, timer: 0 };
      waiter.timer = setTimeout(() => {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  start() {
    window.addEventListener("online", this.onOnline);
    this.connect();
  }

  stop() {
    this.stopped = true;
    window.removeEventListener("online", this.onOnline);
    clearTimeout(this.retryTimer);
    clearTimeout(this.drainTimer);
    const socket = this.socket;
    this.socket = null;
    this.pending = [];
    if (socket) socket.close(1000);
    this.setState("closed");
    this.answerWaiters();
  }

  sendMove(move) {
    return this.send({ t: "move", move: [move[0], move[1]] });
  }

  sendUndo() {
    return this.send({ t: "undo" });
  }

  /** Ask for an "adopt" sync: the board will be redrawn from the server's line. */
  resync() {
    if (this.stopped || !this.socket) return;
    this.adoptOnSync = true;
    this.setState("syncing");
    this.syncWhenDrained();
  }

  // ---- internals ----

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.options.onState?.(state);
    this.checkWaiters();
  }

  // Checked in a microtask: a sync turns "live" just before it pushes the board's missing moves, and
  // those go out in the same task, so a waiter must not be told "settled" in between.
  checkWaiters() {
    if (this.waiters.length) queueMicrotask(() => this.answerWaiters());
  }

  answerWaiters() {
    if (this.waiters.length === 0) return;
    let answer;
    if (this.settled) answer = true;
    else if (this.stopped || this.state === "refused") answer = false;
    else return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(answer);
    }
  }

  send(message) {
    if (this.state !== "live" || !this.socket || this.socket.readyState !== WebSocket.OPEN) {
      return false; // the next sync sends whatever the server is missing
    }
    this.seq += 1;
    this.pending.push(this.seq);
    this.socket.send(JSON.stringify({ ...message, n: this.seq }));
    return true;
  }

  connect() {
    if (this.stopped) return;
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    let socket;
    try {
      socket = new WebSocket(`${scheme}//${window.location.host}${this.options.wsPath}`);
    } catch {
      this.setState("offline");
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.seq = 0;
    this.pending = [];
    this.syncing = false;
    this.setState("connecting");
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      this.attempt = 0;
      this.sync(socket);
    });
    socket.addEventListener("message", (event) => {
      if (socket === this.socket) this.receive(event.data);
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      this.pending = [];
      clearTimeout(this.drainTimer);
      this.drainTimer = 0;
      if (this.stopped) return;
      if (event.code >= FINAL_CLOSE_CODES.min && event.code <= FINAL_CLOSE_CODES.max) {
        this.setState("refused"); // play goes on locally; the finish POST still records the game
        return;
      }
      this.setState("offline");
      this.scheduleReconnect();
    });
  }

  scheduleReconnect() {
    clearTimeout(this.retryTimer);
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), base * (0.75 + Math.random() * 0.5));
  }

  reconnectNow() {
    if (this.stopped || this.socket) return;
    clearTimeout(this.retryTimer);
    this.attempt = 0;
    this.connect();
  }

  async sync(socket) {
    if (this.syncing) return;
    this.syncing = true;
    this.setState("syncing");
    let game;
    try {
      game = await getGame(this.options.gameId);
    } catch {
      this.syncing = false;
      if (socket === this.socket) socket.close(); // the close handler retries with backoff
      return;
    }
    this.syncing = false;
    if (socket !== this.socket || this.stopped) return;
    if (typeof game.version === "number") this.version = game.version;
    const how = this.adoptOnSync ? "adopt" : "push";
    this.adoptOnSync = false;
    if (this.options.onServerGame(game, how) === false) {
      this.stop();
      return;
    }
    this.setState("live");
    if (how === "push") {
      const server = game.moves || [];
      const local = this.options.currentLine();
      let common = 0;
      while (common < server.length && common < local.length && sameMove(server[common], local[common])) {
        common += 1;
      }
      for (let i = server.length; i > common; i -= 1) this.sendUndo();
      for (const move of local.slice(common)) this.sendMove(move);
    }
  }

  syncWhenDrained() {
    if (!this.socket || this.syncing) return;
    if (this.pending.length === 0) {
      clearTimeout(this.drainTimer);
      this.drainTimer = 0;
      this.sync(this.socket);
    } else if (!this.drainTimer) {
      // Answers still missing after a while: start over on a fresh connection (still "adopt").
      this.drainTimer = setTimeout(() => {
        this.drainTimer = 0;
        this.socket?.close();
      }, DRAIN_TIMEOUT_MS);
    }
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (!message || typeof message !== "object") return;
    if (typeof message.n === "number") this.pending = this.pending.filter((n) => n > message.n);
    if (message.t === "ack") {
      if (typeof message.v === "number") this.version = Math.max(this.version, message.v);
      this.options.onAck(message, this.pending.length === 0);
    } else if (message.t === "reject") {
      if (!this.adoptOnSync) {
        this.adoptOnSync = true;
        this.setState("syncing");
        this.options.onReject(message);
      }
    } else if (message.t === "changed") {
      // Our own changes are acked before their "changed" comes back, so a newer version is not ours.
      if (typeof message.v === "number" && message.v > this.version && this.state === "live") this.resync();
    }
    if (this.adoptOnSync && this.state === "syncing") this.syncWhenDrained();
    this.checkWaiters();
  }
}
