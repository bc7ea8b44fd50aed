// A WebSocket the tests play the server's part on: what the link sends is kept in `sent`, and the
// test opens it, sends it messages and closes it.

const OPEN = 1;
const CLOSED = 3;

export class FakeSocket {
  constructor(path) {
    this.path = path;
    this.readyState = 0;
    this.sent = [];
    this.closedWith = null; // the code the link closed it with
    this.listeners = new Map();
  }

  addEventListener(type, listener) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  emit(type, event = {}) {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }

  open() {
    this.readyState = OPEN;
    this.emit("open");
  }

  receive(message) {
    this.emit("message", { data: JSON.stringify(message) });
  }

  send(text) {
    this.sent.push(JSON.parse(text));
  }

  /** The link closes it (or the test closes it with `code`, as a dropped connection or the server would). */
  close(code = 1000) {
    this.closedWith = code;
    this.readyState = CLOSED;
    this.emit("close", { code });
  }
}

/** An `openSocket` for a link: every socket it opens is pushed onto `sockets`. */
export function socketsInto(sockets) {
  return (path) => {
    const socket = new FakeSocket(path);
    sockets.push(socket);
    return socket;
  };
}
