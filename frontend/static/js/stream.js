// Versioned streams (docs/api.md, "Games are streams of events"): a game's events, or a racer's
// progress, numbered 1, 2, 3, … with no gap. They arrive at most once and, across server processes,
// not always in order, so a client applies each version once and in order:
//
// - VersionedStream holds what comes ahead of the next version and applies it when its turn comes;
//   a version at or below the last one applied is ignored. A gap that does not fill within a moment
//   is reported (`onGap`), for the owner to ask for what is missing.
// - StreamLink is a stream on a socket: a `state` (the whole thing at version v) first, then `event`s
//   (or `events`, a batch) applied in order; a socket that drops, or a gap, resumes with
//   ?v=<last version applied>. The watch page uses it as it is; the player's link (link.js) builds on
//   it with its own messages. Any stream whose socket speaks `state`/`event` with `v` and takes ?v=
//   fits it.

import { LiveSocket } from "./socket.js";

const GAP_WAIT_MS = 400; // events from different server processes may overtake each other

export class VersionedStream {
  /**
   * @param {object} options
   * @param {(item: object, v: number) => void} options.apply  each version, once, in order
   * @param {() => void} [options.onGap]  versions past a missing one have waited gapWaitMs()
   * @param {() => number} [options.gapWaitMs]
   */
  constructor({ apply, onGap = () => {}, gapWaitMs = () => GAP_WAIT_MS }) {
    this.apply = apply;
    this.onGap = onGap;
    this.gapWaitMs = gapWaitMs;
    this.version = null; // the last version applied (null: nothing yet, the whole state comes first)
    this.held = new Map(); // v → an item heard before its turn
    this.gapTimer = 0;
  }

  /** Nothing is held past a missing version. */
  get complete() {
    return this.held.size === 0;
  }

  /** The whole stream as of version `v` (a state): what is held at or below it is dropped. drain() applies the rest. */
  startAt(v) {
    this.version = v;
    for (const held of this.held.keys()) if (held <= v) this.held.delete(held);
  }

  /** Version `v` heard: applied now if it is next, held if it is ahead, ignored if it is known. */
  take(v, item) {
    if (!Number.isInteger(v) || (this.version !== null && v <= this.version) || this.held.has(v)) return;
    this.held.set(v, item);
    this.drain();
  }

  /** Apply every held version whose turn has come. */
  drain() {
    while (this.version !== null && this.held.has(this.version + 1)) {
      const v = this.version + 1;
      const item = this.held.get(v);
      this.held.delete(v);
      this.version = v;
      this.apply(item, v);
    }
    this.watchGap();
  }

  /** Forget what is held (its socket is gone: a new one brings it again). */
  clear() {
    this.held.clear();
    this.watchGap();
  }

  watchGap() {
    if (this.held.size === 0 || this.version === null) {
      clearTimeout(this.gapTimer);
      this.gapTimer = 0;
      return;
    }
    if (this.gapTimer) return;
    this.gapTimer = setTimeout(() => {
      this.gapTimer = 0;
      if (this.held.size === 0) return;
      this.onGap();
      this.watchGap();
    }, this.gapWaitMs());
  }
}

export class StreamLink {
  /**
   * @param {object} options
   * @param {string} options.wsPath  e.g. "/ws/watch/17/"
   * @param {(state: {v: number, game: object}) => void} options.onState  the whole thing, as the state message
   * @param {(event: object) => void} options.onEvent  each event, in version order, applied once
   * @param {(message: object) => void} [options.onMessage]  any other message (a count, a badge)
   * @param {(state: string) => void} [options.onStatus]  connecting | live | offline | refused | ended | closed
   * @param {(refusal: {code: string, error: string, closeCode: number}) => void} [options.onRefused]
   * @param {(path: string) => WebSocket} [options.openSocket]  tests pass a fake
   */
  constructor(options) {
    this.options = options;
    this.finished = false; // the stream's last event came: the close that follows is final
    this.stream = new VersionedStream({
      apply: (event, v) => this.applyEvent(event, v),
      onGap: () => this.onGap(),
      gapWaitMs: () => this.gapWaitMs(),
    });
    this.socket = new LiveSocket({
      nextPath: () => this.nextPath(),
      onOpen: () => this.onOpen(),
      onMessage: (message) => this.receive(message),
      onDrop: () => this.onDrop(),
      onState: (state) => this.onSocketState(state),
      onRefused: (refusal) => this.options.onRefused?.(refusal),
      isOver: () => this.finished,
      openSocket: options.openSocket,
    });
  }

  /** The last version applied. */
  get version() {
    return this.stream.version;
  }

  start() {
    this.socket.start();
  }

  stop() {
    this.socket.stop();
    this.stream.clear();
  }

  // ---- what a link on this stream may change ----

  nextPath() {
    const { wsPath } = this.options;
    return this.version === null ? wsPath : `${wsPath}?v=${this.version}`;
  }

  onOpen() {}

  onDrop() {
    this.stream.clear();
  }

  onSocketState(state) {
    this.options.onStatus?.(state);
  }

  /** A gap that did not fill: resume on a new socket from the last version applied. */
  onGap() {
    this.socket.reconnect();
  }

  gapWaitMs() {
    return GAP_WAIT_MS;
  }

  receive(message) {
    switch (message.t) {
      case "state":
        this.takeState(message);
        break;
      case "event":
        this.stream.take(message.v, message);
        break;
      case "events": // a tick's events, then what rides with them (a count, a badge)
        for (const event of Array.isArray(message.events) ? message.events : []) this.stream.take(event?.v, event);
        for (const riding of Array.isArray(message.also) ? message.also : []) this.options.onMessage?.(riding);
        break;
      default:
        this.options.onMessage?.(message);
    }
  }

  takeState(message) {
    if (!message.game || !Number.isInteger(message.v)) return;
    this.stream.startAt(message.v);
    this.finished = message.game.status === "finished";
    this.options.onState(message);
    this.stream.drain();
  }

  applyEvent(event) {
    if (event.kind === "finish") this.finished = true;
    this.options.onEvent(event);
  }
}
