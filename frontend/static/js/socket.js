// The site's one reconnecting socket (docs/api.md, "Sockets"): every live link (a
// game, a watcher, a race room, the live list) opens its socket through LiveSocket.
//
// - A dropped socket is opened again after a backoff spread over ±25 %, at once when the browser
//   comes back online; a socket that opens resets the backoff.
// - `refused` and a close 4000-4999 are the server's final word (not your game, no such game,
//   flooding): no retry, and the reason goes to the page. So is any close once the stream has ended
//   (`isOver`, a watcher after the finish).
// - Commands go out with a sequence number `n`, from 1 on every new socket.

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
const OPEN = 1; // WebSocket.OPEN

/** A WebSocket to `path` on this site, over wss: when the page came over https:. */
function browserSocket(path) {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return new WebSocket(`${scheme}//${window.location.host}${path}`);
}

/**
 * Whether a close ends a link for good: a code from 4000 to 4999 is the server's final word (not your
 * game, no such game, too many sockets). So is a `refused` message heard before the close, unless it
 * said "try again later" (`unavailable`, close 3503): the close frame after it can be lost, when the
 * connection is reset before the browser reads it, and the code then reads 1006.
 */
export function isFinalClose(code, refusal = null) {
  return (code >= 4000 && code <= 4999) || (refusal !== null && refusal.code !== "unavailable");
}

/** How long to wait before reconnect attempt number `attempt` (0-based). */
function backoffDelay(attempt) {
  return BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)];
}

/** backoffDelay spread over ±25 %, so that pages cut off together do not all come back together. */
function retryDelay(attempt) {
  return backoffDelay(attempt) * (0.75 + Math.random() * 0.5);
}

/** A frame's message: its JSON object, or null for a frame that is not JSON or not an object. */
function parseFrame(data) {
  let message;
  try {
    message = JSON.parse(data);
  } catch {
    return null;
  }
  return message && typeof message === "object" ? message : null;
}

export class LiveSocket {
  /**
   * @param {object} options
   * @param {() => string} options.nextPath  called as each socket opens: its path (a stream adds ?v=)
   * @param {(message: object) => void} options.onMessage  every message but `refused`
   * @param {() => void} [options.onOpen]
   * @param {() => void} [options.onDrop]  the socket closed or was dropped: what was in flight is lost
   * @param {(state: string) => void} [options.onState]
   *        connecting | live | offline (retrying) | refused | ended | closed (stopped)
   * @param {(refusal: {code: string, error: string, closeCode: number}) => void} [options.onRefused]
   * @param {() => boolean} [options.isOver]  the stream has ended: a close is expected, not retried
   * @param {(path: string) => WebSocket} [options.openSocket]  tests pass a fake
   */
  constructor(options) {
    this.options = options;
    this.openSocket = options.openSocket ?? browserSocket;
    this.state = "idle";
    this.socket = null;
    this.seq = 0;
    this.attempt = 0;
    this.retryTimer = 0;
    this.refusal = null; // the `refused` heard on this socket: the close that follows carries the code
    this.stopped = false;
    this.onOnline = () => {
      if (!this.socket) this.reconnect();
    };
  }

  get open() {
    return this.socket !== null && this.socket.readyState === OPEN;
  }

  start() {
    globalThis.addEventListener?.("online", this.onOnline);
    this.connect();
  }

  stop() {
    this.stopped = true;
    globalThis.removeEventListener?.("online", this.onOnline);
    clearTimeout(this.retryTimer);
    this.drop();
    this.setState("closed");
  }

  /** Send `command` with the next sequence number; that number, or 0 when the socket is not open. */
  send(command) {
    if (!this.open) return 0;
    this.seq += 1;
    this.socket.send(JSON.stringify({ ...command, n: this.seq }));
    return this.seq;
  }

  /** Drop the socket and open a new one now (its path asked afresh). */
  reconnect() {
    if (this.stopped || this.state === "refused" || this.state === "ended") return;
    clearTimeout(this.retryTimer);
    this.attempt = 0;
    this.drop();
    this.connect();
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
      socket = this.openSocket(this.options.nextPath());
    } catch {
      this.retry();
      return;
    }
    this.socket = socket;
    this.seq = 0;
    this.refusal = null;
    this.setState("connecting");
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      this.attempt = 0;
      this.setState("live");
      this.options.onOpen?.();
    });
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      const message = parseFrame(event.data);
      if (!message) return;
      if (message.t === "refused") this.refusal = message;
      else this.options.onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      if (socket === this.socket) this.closed(event.code);
    });
  }

  /** Close this socket without hearing of it again. */
  drop() {
    const socket = this.socket;
    this.socket = null;
    if (!socket) return;
    socket.close(1000);
    this.options.onDrop?.();
  }

  closed(code) {
    this.socket = null;
    this.options.onDrop?.();
    if (this.stopped) return;
    if (isFinalClose(code, this.refusal)) {
      this.setState("refused");
      this.options.onRefused?.({ code: this.refusal?.code ?? "", error: this.refusal?.error ?? "", closeCode: code });
    } else if (this.options.isOver?.()) {
      this.setState("ended");
    } else {
      this.retry();
    }
  }

  retry() {
    this.setState("offline");
    clearTimeout(this.retryTimer);
    const wait = retryDelay(this.attempt);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), wait);
  }
}
