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
// - The socket (socket.js, LiveSocket) and the ordering of versions (stream.js, StreamLink) are the
//   site's shared ones: `refused` and a close 4000-4999 are final, any other close retries with backoff.
// - Ending a game never depends on the socket: the board POSTs /finish with the whole line and the
//   server replays it, so a win while offline, or End game at any time, is always recorded.
// - "Settled" means live, every message answered, no version missing, and the board's line is the
//   server's. Anything that asks the server about the position on screen (a hint, the still-winnable
//   check) waits for that first: whenSettled().

import { commonLength, copyLine, lineAfter, sameLine } from "./line.js";
import { StreamLink } from "./stream.js";

const DRAIN_TIMEOUT_MS = 4000; // after a reject, answers missing this long: start over on a new socket
const GAP_WAIT_MS = 300; // events from different server processes may overtake each other
const SYNC_WAIT_MS = 2000; // a sync not answered by then: start over on a new socket, resuming by ?v=

export class GameLink extends StreamLink {
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
    super(options);
    this.state = "idle";
    this.pending = new Map(); // n → the move or undo sent, until answered
    this.serverLine = [];
    this.awaitingState = false; // this socket has no ?v=: the server's `state` comes first
    this.heardOnSocket = false; // this socket has brought a message already
    this.adopting = false; // the server refused one of ours: the board will take the server's line
    this.syncedFrom = null; // the version a `sync` was last sent from
    this.drainTimer = 0;
    this.stopped = false;
    this.waiters = []; // whenSettled() promises still waiting
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

  stop() {
    this.stopped = true;
    clearTimeout(this.drainTimer);
    super.stop();
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
    if (this.socket.open && !this.awaitingState) this.sendSync();
  }

  // ---- sending ----

  send(message, sent) {
    if (this.state !== "live" || !this.socket.open) return false; // the next push sends what is missing
    this.pending.set(this.socket.send(message), sent);
    return true;
  }

  sendSync() {
    this.syncedFrom = this.version;
    this.socket.send({ t: "sync", v: this.version });
  }

  /** Send what turns the server's line into the board's: undos back to the common part, then moves. */
  push() {
    const local = this.options.currentLine();
    const common = commonLength(this.serverLine, local);
    for (let i = this.serverLine.length; i > common; i -= 1) this.sendUndo();
    for (const move of local.slice(common)) this.sendMove(move);
  }

  // ---- the socket's life (StreamLink's hooks) ----

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.options.onState?.(state);
    this.checkWaiters();
  }

  nextPath() {
    this.awaitingState = this.version === null || this.adopting;
    this.heardOnSocket = false;
    this.syncedFrom = null;
    return this.awaitingState ? this.options.wsPath : super.nextPath();
  }

  onOpen() {
    if (this.awaitingState) this.setState("syncing");
    else this.goLive();
  }

  onDrop() {
    super.onDrop();
    this.pending.clear();
    clearTimeout(this.drainTimer);
    this.drainTimer = 0;
  }

  /** The socket's states, but for `live`: the link is live once it knows where the game stands. */
  onSocketState(state) {
    if (state === "live") return;
    this.setState(state === "ended" ? "closed" : state); // play goes on locally when refused
    if (state === "refused") this.answerWaiters();
  }

  /** Versions heard past a missing one: ask with sync; if that goes unanswered, resume on a new socket. */
  onGap() {
    if (!this.socket.open) return;
    if (this.syncedFrom === this.version) this.socket.reconnect();
    else this.sendSync();
  }

  gapWaitMs() {
    return this.syncedFrom === this.version ? SYNC_WAIT_MS : GAP_WAIT_MS;
  }

  goLive() {
    this.setState("live");
    if (!this.adopting) this.push();
    this.settle();
  }

  // ---- receiving ----

  receive(message) {
    const wasAwaitingState = this.awaitingState;
    const firstOnSocket = !this.heardOnSocket;
    this.heardOnSocket = true;
    switch (message.t) {
      case "state":
        this.takeState(message, { catchingUp: wasAwaitingState || firstOnSocket });
        break;
      case "event":
        this.stream.take(message.v, message);
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
      default:
        return;
    }
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
    this.stream.startAt(message.v);
    this.serverLine = copyLine(game.moves);
    this.finished = game.status === "finished";
    this.options.onGame(game);
    this.stream.drain();
  }

  takeAck(ack) {
    const sent = this.pending.get(ack.n);
    this.forgetAnswered(ack.n);
    if (!sent || typeof ack.v !== "number") return;
    const finished = sent.kind === "move" && ack.status === "finished";
    this.stream.take(ack.v, { kind: finished ? "finish" : sent.kind, move: sent.move, result: ack.result ?? null });
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

  /** One version of the game, in order: the server's line follows it, and the page hears it. */
  applyEvent(event, v) {
    const takenBack = event.kind === "undo" ? this.serverLine.at(-1) : null;
    this.serverLine = lineAfter(this.serverLine, event);
    if (event.kind === "finish") this.finished = true;
    this.options.onChange({
      v,
      kind: event.kind,
      move: event.move ?? takenBack ?? null,
      line: event.line ?? null,
      result: event.result ?? null,
    });
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
    return this.socket.open && !this.awaitingState && this.pending.size === 0 && this.stream.complete;
  }

  // After a reject, answers still missing after a while: start over on a new socket (still adopting).
  watchDrain() {
    if (!this.adopting || this.pending.size === 0) {
      clearTimeout(this.drainTimer);
      this.drainTimer = 0;
    } else if (!this.drainTimer) {
      this.drainTimer = setTimeout(() => {
        this.drainTimer = 0;
        this.socket.reconnect();
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
