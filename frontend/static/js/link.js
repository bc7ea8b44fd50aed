// The board's live link to one game: the player's socket of docs/api.md, kept in step with the
// board's line (what the player sees).
//
// - The board applies every move and undo at once (rules.js) and hands it to the link. While live the
//   link sends each one straight away as {"t": "move"|"undo", "n": seq} and remembers it until the
//   server answers. n starts again from 1 on every new socket.
// - The link keeps its own copy of the server's line, by version. A `state` gives the whole game;
//   after it each change is applied once, in version order: from the game's `event`s, or from the
//   ack of one of the link's own messages (an ack names the version its change became, so the event
//   that follows is already known). A version at or below the last one applied is ignored; a gap (a
//   later version but not the next) is given a moment to fill, then asked for with `sync`.
// - While the socket is down the player keeps playing locally and nothing is queued. The link
//   reconnects with backoff and `?v=<last version applied>`, and the server sends what was missed.
//   Right away the link sends the undos and moves that turn its copy of the server's line into the
//   board's line ("push"), so moves made offline reach the server and none is sent twice. (Had
//   another tab moved meanwhile, the server judges the pushed moves against its newer line, and the
//   next rule settles it.)
// - Whenever every message has been answered and no version is missing, and the board's line is not
//   the server's, the board takes the server's line ("adopt"): another tab moved, a hint or a finish
//   came over REST, or the server refused one of ours. After a reject the link sends nothing until
//   the board has adopted; when the answers never come it starts over on a new socket without ?v=,
//   whose `state` says where things stand. A first socket, before any version is known, also has no
//   ?v= and waits for the `state`.
// - `refused` and a close 4000-4999 are the server's final word (not your game, no such game,
//   flooding): no retry, and the reason goes to the page. Any other close retries with backoff.
// - Ending a game never depends on the socket: the board POSTs /finish with the whole line and the
//   server replays it, so a win while offline, or End game at any time, is always recorded.
// - "Settled" means live, every message answered, no version missing, and the board's line is the
//   server's. Anything that asks the server about the position on screen (a hint, the still-winnable
//   check) waits for that first: whenSettled().

import { browserSocket, isFinalClose, parseFrame, retryDelay } from "./socket.js";

const DRAIN_TIMEOUT_MS = 4000; // after a reject, answers missing this long: start over on a new socket
const GAP_WAIT_MS = 300; // events from different server processes may overtake each other
const SYNC_WAIT_MS = 2000; // a sync not answered by then: start over on a new socket, resuming by ?v=
const OPEN = 1; // WebSocket.OPEN

function sameMove(a, b) {
  return a[0] === b[0] && a[1] === b[1];
}

function sameLine(a, b) {
  return a.length === b.length && a.every((move, i) => sameMove(move, b[i]));
}

function copyLine(line) {
  return line.map((move) => [move[0], move[1]]);
}

export class GameLink {
  /**
   * @param {object} options
   * @param {string} options.wsPath  the game's socket path, e.g. "/ws/games/7/"
   * @param {() => number[][]} options.currentLine  the board's move line right now
   * @param {(game: object) => void} options.onGame  a `state`: the whole game as the server has it
   * @param {(change: object) => void} options.onChange  each version applied, in order:
   *        {v, kind: "start"|"move"|"undo"|"hint"|"finish", move, line, result}
   * @param {(line: number[][]) => void} options.onAdopt  the board must show the server's line
   * @param {(version: number) => void} [options.onSettled]  settled after news from the server
   * @param {(reject: object) => void} [options.onReject]
   * @param {(refusal: {code: string, error: string, closeCode: number}) => void} [options.onRefused]
   * @param {(watchers: number) => void} [options.onCrowd]  how many are watching, when that changes
   * @param {(state: string) => void} [options.onState]
   *        connecting | syncing | live | offline (retrying) | refused (the server said no) | closed
   * @param {(path: string) => WebSocket} [options.openSocket]  tests pass a fake
   */
  constructor(options) {
    this.options = options;
    this.openSocket = options.openSocket ?? browserSocket;
    this.state = "idle";
    this.socket = null;
    this.seq = 0;
    this.pending = new Map(); // n → the move or undo sent, until answered
    this.changes = new Map(); // v → a change heard before its turn
    this.version = null; // the last version applied
    this.serverLine = [];
    this.finished = false;
    this.awaitingState = false; // this socket has no ?v=: the server's `state` comes first
    this.heardOnSocket = false; // this socket has brought a message already
    this.adopting = false; // the server refused one of ours: the board will take the server's line
    this.syncedFrom = null; // the version a `sync` was last sent from
    this.refusal = null;
    this.attempt = 0;
    this.retryTimer = 0;
    this.drainTimer = 0;
    this.gapTimer = 0;
    this.stopped = false;
    this.waiters = []; // whenSettled() promises still waiting
    this.onOnline = () => this.reconnectNow();
  }

  get live() {
    return this.state === "live";
  }

  get settled() {
    return (
      this.state === "live" &&
      this.caughtUp() &&
      !this.adopting &&
      sameLine(this.options.currentLine(), this.serverLine)
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
    globalThis.addEventListener?.("online", this.onOnline);
    this.connect();
  }

  stop() {
    this.stopped = true;
    globalThis.removeEventListener?.("online", this.onOnline);
    clearTimeout(this.retryTimer);
    clearTimeout(this.drainTimer);
    clearTimeout(this.gapTimer);
    const socket = this.socket;
    this.socket = null;
    this.pending.clear();
    if (socket) socket.close(1000);
    this.setState("closed");
    this.answerWaiters();
  }

  sendMove(move) {
    return this.send({ t: "move", move: [move[0], move[1]] }, { kind: "move", move: [move[0], move[1]] });
  }

  sendUndo() {
    return this.send({ t: "undo" }, { kind: "undo", move: null });
  }

  /** Ask the server again for anything after the last version applied (say, after a hint's game_changed). */
  catchUp() {
    if (this.socketOpen() && !this.awaitingState) this.sendSync();
  }

  // ---- sending ----

  socketOpen() {
    return this.socket !== null && this.socket.readyState === OPEN;
  }

  send(message, sent) {
    if (this.state !== "live" || !this.socketOpen()) return false; // the next push sends what is missing
    this.seq += 1;
    this.pending.set(this.seq, sent);
    this.socket.send(JSON.stringify({ ...message, n: this.seq }));
    return true;
  }

  sendSync() {
    this.seq += 1;
    this.syncedFrom = this.version;
    this.socket.send(JSON.stringify({ t: "sync", v: this.version, n: this.seq }));
  }

  /** Send what turns the server's line into the board's: undos back to the common part, then moves. */
  push() {
    const server = this.serverLine;
    const local = this.options.currentLine();
    let common = 0;
    while (common < server.length && common < local.length && sameMove(server[common], local[common])) {
      common += 1;
    }
    for (let i = server.length; i > common; i -= 1) this.sendUndo();
    for (const move of local.slice(common)) this.sendMove(move);
  }

  // ---- the socket's life ----

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.options.onState?.(state);
    this.checkWaiters();
  }

  connect() {
    if (this.stopped) return;
    this.awaitingState = this.version === null || this.adopting;
    const path = this.awaitingState ? this.options.wsPath : `${this.options.wsPath}?v=${this.version}`;
    let socket;
    try {
      socket = this.openSocket(path);
    } catch {
      this.setState("offline");
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.seq = 0;
    this.pending.clear();
    this.syncedFrom = null;
    this.refusal = null;
    this.heardOnSocket = false;
    this.setState("connecting");
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      this.attempt = 0;
      if (this.awaitingState) this.setState("syncing");
      else this.goLive();
    });
    socket.addEventListener("message", (event) => {
      if (socket === this.socket) this.receive(event.data);
    });
    socket.addEventListener("close", (event) => {
      if (socket === this.socket) this.closed(event.code);
    });
  }

  goLive() {
    this.setState("live");
    if (!this.adopting) this.push();
    this.settle();
  }

  closed(code) {
    this.socket = null;
    this.pending.clear();
    clearTimeout(this.drainTimer);
    clearTimeout(this.gapTimer);
    this.drainTimer = 0;
    this.gapTimer = 0;
    if (this.stopped) return;
    if (isFinalClose(code, this.refusal)) {
      this.setState("refused"); // play goes on locally; the finish POST still records the game
      this.options.onRefused?.({ code: this.refusal?.code ?? "", error: this.refusal?.error ?? "", closeCode: code });
      this.answerWaiters();
      return;
    }
    this.setState("offline");
    this.scheduleReconnect();
  }

  scheduleReconnect() {
    clearTimeout(this.retryTimer);
    const wait = retryDelay(this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), wait);
  }

  reconnectNow() {
    if (this.stopped || this.socket || this.state === "refused") return;
    clearTimeout(this.retryTimer);
    this.attempt = 0;
    this.connect();
  }

  // ---- receiving ----

  receive(data) {
    const message = parseFrame(data);
    if (!message) return;
    const wasAwaitingState = this.awaitingState;
    const firstOnSocket = !this.heardOnSocket;
    this.heardOnSocket = true;
    switch (message.t) {
      case "state":
        this.takeState(message, { catchingUp: wasAwaitingState || firstOnSocket });
        break;
      case "event":
        this.queueChange(message.v, {
          kind: message.kind,
          move: message.move ?? null,
          line: message.line ?? null,
          result: message.result ?? null,
        });
        break;
      case "ack":
        this.takeAck(message);
        break;
      case "reject":
        this.takeReject(message);
        break;
      case "crowd": // how many are watching this game (docs/api.md, "Watching")
        if (Number.isInteger(message.watchers)) this.options.onCrowd?.(message.watchers);
        return;
      case "refused":
        this.refusal = message; // the close that follows carries the code
        return;
      default:
        return;
    }
    if (this.stopped) return;
    this.applyQueued();
    if (this.stopped) return;
    if (wasAwaitingState && !this.awaitingState) this.goLive();
    else this.settle();
  }

  /** `catchingUp`: the state a new socket starts with, the truth even when older than the link's copy. */
  takeState(message, { catchingUp }) {
    const game = message.game;
    if (!game || typeof message.v !== "number") return;
    // Later, a state older than what was applied since (a slow answer to a sync) tells nothing new.
    if (!catchingUp && this.version !== null && message.v < this.version) return;
    this.awaitingState = false;
    this.version = message.v;
    this.serverLine = copyLine(game.moves || []);
    this.finished = game.status === "finished";
    for (const v of this.changes.keys()) if (v <= message.v) this.changes.delete(v);
    this.options.onGame(game);
  }

  takeAck(ack) {
    const sent = this.pending.get(ack.n);
    this.forgetAnswered(ack.n);
    if (!sent || typeof ack.v !== "number") return;
    if (sent.kind === "undo") {
      this.queueChange(ack.v, { kind: "undo", move: null, line: null, result: null });
    } else if (ack.status === "finished") {
      this.queueChange(ack.v, { kind: "finish", move: sent.move, line: null, result: ack.result ?? null });
    } else {
      this.queueChange(ack.v, { kind: "move", move: sent.move, line: null, result: null });
    }
  }

  takeReject(reject) {
    const ours = typeof reject.n !== "number" || this.pending.has(reject.n); // not a refused sync
    this.forgetAnswered(reject.n);
    if (!ours || this.adopting) return;
    this.adopting = true;
    this.setState("syncing");
    this.options.onReject?.(reject);
  }

  /** Answers come in the order the messages went out: an answer to n answers everything before it. */
  forgetAnswered(n) {
    if (typeof n !== "number") return;
    for (const seq of this.pending.keys()) if (seq <= n) this.pending.delete(seq);
  }

  queueChange(v, change) {
    if (!Number.isInteger(v) || (this.version !== null && v <= this.version) || this.changes.has(v)) return;
    this.changes.set(v, change);
  }

  applyQueued() {
    if (this.version === null) return; // the state comes first
    while (this.changes.has(this.version + 1)) {
      const v = this.version + 1;
      const change = this.changes.get(v);
      this.changes.delete(v);
      this.apply(v, change);
      if (this.stopped) return;
    }
    this.watchGap();
  }

  apply(v, change) {
    let applied = change;
    switch (change.kind) {
      case "start":
        this.serverLine = [];
        break;
      case "move":
        this.serverLine.push([change.move[0], change.move[1]]);
        break;
      case "undo":
        applied = { ...change, move: change.move ?? this.serverLine.at(-1) ?? null };
        this.serverLine.pop();
        break;
      case "finish":
        if (Array.isArray(change.line)) this.serverLine = copyLine(change.line);
        else if (change.move) this.serverLine.push([change.move[0], change.move[1]]);
        this.finished = true;
        break;
      default: // a hint leaves the line as it is
        break;
    }
    this.version = v;
    this.options.onChange({ ...applied, v });
  }

  /** Versions heard past a missing one: wait a moment, then ask with sync; if that fails, reconnect. */
  watchGap() {
    if (this.changes.size === 0) {
      clearTimeout(this.gapTimer);
      this.gapTimer = 0;
      return;
    }
    if (this.gapTimer) return;
    const asked = this.syncedFrom === this.version;
    this.gapTimer = setTimeout(
      () => {
        this.gapTimer = 0;
        if (this.changes.size === 0 || !this.socketOpen()) return;
        if (this.syncedFrom === this.version) {
          this.socket.close(); // reconnecting with ?v= is always safe
          return;
        }
        this.sendSync();
        this.watchGap();
      },
      asked ? SYNC_WAIT_MS : GAP_WAIT_MS,
    );
  }

  /** After news from the server: adopt the server's line if the board's differs, once nothing is in flight. */
  settle() {
    if (this.stopped) return;
    this.watchDrain();
    if (!this.caughtUp() || this.finished) {
      this.checkWaiters();
      return;
    }
    if (this.adopting || !sameLine(this.options.currentLine(), this.serverLine)) {
      this.adopting = false;
      this.options.onAdopt(copyLine(this.serverLine));
    }
    this.setState("live");
    this.options.onSettled?.(this.version);
    this.checkWaiters();
  }

  caughtUp() {
    return this.socketOpen() && !this.awaitingState && this.pending.size === 0 && this.changes.size === 0;
  }

  // After a reject, answers still missing after a while: start over on a new socket (still adopting).
  watchDrain() {
    if (!this.adopting || this.pending.size === 0) {
      clearTimeout(this.drainTimer);
      this.drainTimer = 0;
    } else if (!this.drainTimer) {
      this.drainTimer = setTimeout(() => {
        this.drainTimer = 0;
        this.socket?.close();
      }, DRAIN_TIMEOUT_MS);
    }
  }

  // Checked in a microtask: going live comes just before the push of the board's missing moves, and
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
}
