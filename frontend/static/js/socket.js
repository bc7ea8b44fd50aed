// What every live link of the site shares: how to open a socket, which close is final, how long to wait.

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];

/** A WebSocket to `path` on this site, over wss: when the page came over https:. */
export function browserSocket(path) {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return new WebSocket(`${scheme}//${window.location.host}${path}`);
}

/** Close codes 4000-4999 are the server's final word (not yours, no such game, flooding): never retry. */
export function isFinalClose(code) {
  return code >= 4000 && code <= 4999;
}

/** How long to wait before reconnect attempt number `attempt` (0-based). */
export function backoffDelay(attempt) {
  return BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)];
}
