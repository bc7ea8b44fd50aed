// The watcher's socket (docs/api.md, "Watching a game"). The first message is the game as it stands
// (`state`); then every event of the game, in version order — one at a time, or several in one
// `events` frame when they came within a short tick. Watchers only listen.
//
// The link applies each version once and in order: events at or below the last version applied are
// ignored, and events past a missing one wait. If the missing one does not come soon (events from
// different server processes may overtake each other), or the socket drops, the link reconnects with
// ?v=<last version applied> and the server sends exactly what it missed. `refused` and close codes
// 4000–4999 are final; so is the normal close that follows the end of the game.

import { browserSocket, isFinalClose, parseFrame, retryDelay } from "./socket.js";

const GAP_WAIT_MS = 400;

export class WatchLink {
  /**
   * @param {object} options
   * @param {string} options.wsPath  e.g. "/ws/watch/17/"
   * @param {(state: {v: number, game: object, player: object, race: string|null}) => void} options.onState
   * @param {(event: object) => void} options.onEvent  each event, in version order, applied once
   * @param {(watchers: number) => void} [options.onCrowd]
   * @param {(badge: {v: number, status: string}) => void} [options.onBadge]
   * @param {(state: string) => void} [options.onStatus]  connecting | live | offline | refused | ended
   * @param {(refusal: {code: string, error: string, closeCode: number}) => void} [options.onRefused]
   * @param {(path: string) => WebSocket} [options.openSocket]  tests pass a fake
   */
  constructor(options) {
    this.options = options;
    this.openSocket = options.openSocket ?? browserSocket;
    this.socket = null;
    this.version = null; // the last version applied
    this.waiting = new Map(); // v → an event heard before its turn
    this.finished = false;
    this.stopped = false;
    this.refusal = null;
    this.attempt = 0;
    this.retryTimer = 0;
    this.gapTimer = 0;
    this.status = "idle";
  }

  start() {
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.gapTimer);
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000);
  }

  setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.options.onStatus?.(status);
  }

  connect() {
    if (this.stopped) return;
    const path = this.version === null ? this.options.wsPath : `${this.options.wsPath}?v=${this.version}`;
    let socket;
    try {
      socket = this.openSocket(path);
    } catch {
      this.retry();
      return;
    }
    this.socket = socket;
    this.refusal = null;
    this.setStatus("connecting");
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      this.attempt = 0;
      this.setStatus("live");
    });
    socket.addEventListener("message", (event) => {
      if (socket === this.socket) this.receive(event.data);
    });
    socket.addEventListener("close", (event) => {
      if (socket === this.socket) this.closed(event.code);
    });
  }

  closed(code) {
    this.socket = null;
    clearTimeout(this.gapTimer);
    this.gapTimer = 0;
    if (this.stopped) return;
    if (isFinalClose(code, this.refusal)) {
      this.stopped = true;
      this.setStatus("refused");
      this.options.onRefused?.({ code: this.refusal?.code ?? "", error: this.refusal?.error ?? "", closeCode: code });
      return;
    }
    if (this.finished) {
      this.stopped = true;
      this.setStatus("ended");
      return;
    }
    this.retry();
  }

  retry() {
    this.setStatus("offline");
    clearTimeout(this.retryTimer);
    const wait = retryDelay(this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), wait);
  }

  /** Start over on a new socket, resuming after the last version applied. */
  resume() {
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000);
    this.waiting.clear();
    this.connect();
  }

  receive(data) {
    const message = parseFrame(data);
    if (!message) return;
    switch (message.t) {
      case "state":
        this.takeState(message);
        break;
      case "event":
        this.queue(message);
        break;
      case "events":
        for (const event of Array.isArray(message.events) ? message.events : []) this.queue(event);
        break;
      case "crowd":
        if (Number.isInteger(message.watchers)) this.options.onCrowd?.(message.watchers);
        return;
      case "winnable":
        this.options.onBadge?.({ v: message.v, status: message.status });
        return;
      case "refused":
        this.refusal = message; // the close that follows carries the code
        return;
      default:
        return;
    }
    this.applyWaiting();
  }

  takeState(message) {
    if (!message.game || !Number.isInteger(message.v)) return;
    this.version = message.v;
    this.finished = message.game.status === "finished";
    for (const v of this.waiting.keys()) if (v <= message.v) this.waiting.delete(v);
    this.options.onState(message);
  }

  queue(event) {
    if (!event || !Number.isInteger(event.v) || this.version === null || event.v <= this.version) return;
    this.waiting.set(event.v, event);
  }

  applyWaiting() {
    while (this.version !== null && this.waiting.has(this.version + 1)) {
      const event = this.waiting.get(this.version + 1);
      this.waiting.delete(event.v);
      this.version = event.v;
      if (event.kind === "finish") this.finished = true;
      this.options.onEvent(event);
      if (this.stopped) return;
    }
    this.watchGap();
  }

  watchGap() {
    if (this.waiting.size === 0) {
      clearTimeout(this.gapTimer);
      this.gapTimer = 0;
      return;
    }
    if (this.gapTimer) return;
    this.gapTimer = setTimeout(() => {
      this.gapTimer = 0;
      if (this.waiting.size > 0 && !this.stopped) this.resume();
    }, GAP_WAIT_MS);
  }
}
