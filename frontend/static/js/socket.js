// What every live link of the site shares: how to open a socket, which close is final, how long to wait.

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];

/** A WebSocket to `path` on this site, over wss: when the page came over https:. */
export function browserSocket(path) {
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
export function backoffDelay(attempt) {
  return BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)];
}

/** backoffDelay spread over ±25 %, so that pages cut off together do not all come back together. */
export function retryDelay(attempt) {
  return backoffDelay(attempt) * (0.75 + Math.random() * 0.5);
}

/** A frame's message: its JSON object, or null for a frame that is not JSON or not an object. */
export function parseFrame(data) {
  let message;
  try {
    message = JSON.parse(data);
  } catch {
    return null;
  }
  return message && typeof message === "object" ? message : null;
}
