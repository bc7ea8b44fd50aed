// The race room's socket (docs/api.md, "The race room socket"): commands out with a sequence number,
// every server message handed to the page, reconnection with backoff. A `refused` and a close with a
// code 4000-4999 are final (no such room, not allowed, flooding): no retry, the page says why.

import { browserSocket, isFinalClose, parseFrame, retryDelay } from "../../socket.js";

const OPEN = 1; // WebSocket.OPEN

export class RoomLink {
  /**
   * @param {object} options
   * @param {string} options.wsPath  the room's socket path, e.g. "/ws/races/K7QD2M/"
   * @param {(message: object) => void} options.onMessage  every message from the server
   * @param {(state: string) => void} [options.onState]  connecting | live | offline | refused
   * @param {(refusal: {code: string, error: string, closeCode: number}) => void} [options.onRefused]
   * @param {(path: string) => WebSocket} [options.openSocket]  tests pass a fake
   */
  constructor(options) {
    this.options = options;
    this.openSocket = options.openSocket ?? browserSocket;
    this.socket = null;
    this.seq = 0;
    this.attempt = 0;
    this.retryTimer = 0;
    this.refusal = null;
    this.stopped = false;
    this.state = "idle";
  }

  start() {
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000);
  }

  /** Send a command ({t: "ready", ready: true}, …); false when the socket is not open. */
  send(command) {
    if (!this.socket || this.socket.readyState !== OPEN) return false;
    this.seq += 1;
    this.socket.send(JSON.stringify({ ...command, n: this.seq }));
    return true;
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.options.onState?.(state);
  }

  connect() {
    if (this.stopped) return;
    let socket;
    try {
      socket = this.openSocket(this.options.wsPath);
    } catch {
      this.setState("offline");
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.refusal = null;
    this.setState("connecting");
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      this.attempt = 0;
      this.setState("live");
    });
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      const message = parseFrame(event.data);
      if (!message) return;
      if (message.t === "refused") {
        this.refusal = message; // the close that follows carries the code
        return;
      }
      this.options.onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      if (this.stopped) return;
      if (isFinalClose(event.code, this.refusal)) {
        this.setState("refused");
        this.options.onRefused?.({
          code: this.refusal?.code ?? "",
          error: this.refusal?.error ?? "",
          closeCode: event.code,
        });
        return;
      }
      this.setState("offline");
      this.scheduleReconnect();
    });
  }

  /** Drop the socket and open a new one now (the server sends the room afresh on connect). */
  reconnect() {
    if (this.stopped || this.state === "refused") return;
    clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000);
    this.connect();
  }

  scheduleReconnect() {
    clearTimeout(this.retryTimer);
    const wait = retryDelay(this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), wait);
  }
}

/**
 * The server's clock, from the `server_now` of its messages: the server time at a message plus the
 * time since it arrived, measured on the browser's monotonic clock, so a device whose clock is wrong
 * still starts on the server's instant. The sample with the least delay known so far is kept.
 */
export class ServerClock {
  constructor(now = () => performance.now()) {
    this.now = now;
    this.serverMs = null;
    this.localMs = 0;
  }

  /** A message with `server_now` just arrived. */
  sample(serverNowIso) {
    const serverMs = Date.parse(serverNowIso);
    if (Number.isNaN(serverMs)) return;
    const localMs = this.now();
    // A sample that implies an earlier server time than the current estimate came in late: keep the estimate.
    if (this.serverMs === null || serverMs >= this.estimate(localMs)) {
      this.serverMs = serverMs;
      this.localMs = localMs;
    }
  }

  estimate(localMs) {
    return this.serverMs + (localMs - this.localMs);
  }

  /** The server's time now, in milliseconds since the epoch (the device's clock until a sample came). */
  serverNow() {
    return this.serverMs === null ? Date.now() : this.estimate(this.now());
  }

  /** Milliseconds from now until the ISO time `iso` on the server's clock. */
  until(iso) {
    return Date.parse(iso) - this.serverNow();
  }
}
