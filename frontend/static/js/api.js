// fetch helpers for the REST API. POSTs carry the CSRF token; errors become ApiError with the
// server's message and code, so callers can show the one and branch on the other.

import { gettext } from "./i18n.js";

export class ApiError extends Error {
  /** status 0 means the request never got an answer (network down). */
  constructor(status, message, code = "", body = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

function readCookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return "";
}

function csrfToken() {
  // The cookie is the freshest (it rotates on login); the page's <meta> covers an HttpOnly cookie.
  return readCookie("csrftoken") || document.querySelector('meta[name="csrf-token"]')?.content || "";
}

async function request(method, url, body) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.headers["X-CSRFToken"] = csrfToken();
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new ApiError(0, gettext("The server cannot be reached. Check your connection and try again."), "network");
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message =
      (data && (data.error || data.detail)) ||
      gettext("Something went wrong on the server. Please try again.");
    throw new ApiError(response.status, String(message), (data && data.code) || "", data);
  }
  if (data === null) throw new ApiError(response.status, gettext("The server sent an unreadable answer."), "bad_response");
  return data;
}

/** POST /api/games: mode is "daily", "new" or "code" (with a deal code). */
export function createGame(mode, code) {
  const body = mode === "code" ? { mode, code } : { mode };
  return request("POST", "/api/games", body);
}

export function getGame(id) {
  return request("GET", `/api/games/${encodeURIComponent(id)}`);
}

/** POST /api/games/<id>/finish with the whole move line; the server replays it from the deal. */
export function finishGame(id, moves) {
  return request("POST", `/api/games/${encodeURIComponent(id)}/finish`, { moves });
}

/**
 * POST /api/games/<id>/hint: advice for the position the server has stored. A ranked game answers
 * 400 confirm_unranked unless acceptUnranked is true (a hint makes the game unranked for good).
 */
export function requestHint(id, acceptUnranked) {
  return request("POST", `/api/games/${encodeURIComponent(id)}/hint`, { accept_unranked: Boolean(acceptUnranked) });
}

/** GET /api/games/<id>/winnable: {status: "win"|"lost"|"unknown", version}; unranked games only. */
export function getWinnable(id) {
  return request("GET", `/api/games/${encodeURIComponent(id)}/winnable`);
}

/** GET /api/games/<id>/analysis: after the game, was the deal winnable and where was it lost. */
export function getAnalysis(id) {
  return request("GET", `/api/games/${encodeURIComponent(id)}/analysis`);
}
