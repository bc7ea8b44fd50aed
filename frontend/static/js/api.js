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
  if (response.status === 204) return null; // done, nothing to say (logout, password change, deleting)
  let data;
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

/** GET /api/games/<id>/events?after=<v>: {game, player, events, more}, the stored events with their times. */
export function getGameEvents(id, after = 0) {
  return request("GET", `/api/games/${encodeURIComponent(id)}/events?after=${encodeURIComponent(after)}`);
}

// ---------------------------------------------------------------- leaderboards

function dailyPath(date, rest = "") {
  return `/api/leaderboards/daily/${encodeURIComponent(date)}${rest}`;
}

/** A page of a day's board: {date, page, pages, count, day_over, entries: [{rank, player, score, …}]}. */
export function getDailyBoard(date, page = 1) {
  return request("GET", dailyPath(date, `?page=${encodeURIComponent(page)}`));
}

/** The reader's own row on a day's board: {status, entry, page}. */
export function getDailyMine(date) {
  return request("GET", dailyPath(date, "/me"));
}

/** A day's numbers: {players, wins, win_rate, median_score, piles: [{piles, players}]}. */
export function getDailySummary(date) {
  return request("GET", dailyPath(date, "/summary"));
}

/** A day's seed: {commitment, seed, attempt} (the seed once the day is over). */
export function getDailySeed(date) {
  return request("GET", dailyPath(date, "/seed"));
}

/** The all-time boards: {wins, streaks, average, average_from, average_to}. */
export function getAllTimeBoards() {
  return request("GET", "/api/leaderboards/all-time");
}

// ---------------------------------------------------------------- players and accounts

/** GET /api/me: {id, nickname, account, nickname_chosen, daily_done}; 404 (ApiError) for a visitor. */
export function getMe() {
  return request("GET", "/api/me");
}

/** PATCH /api/me: a new nickname; 400 invalid_nickname or nickname_taken says why not. */
export function renameMe(nickname) {
  return request("PATCH", "/api/me", { nickname });
}

export function signUp(nickname, password) {
  return request("POST", "/api/accounts/signup", { nickname, password });
}

export function logIn(nickname, password) {
  return request("POST", "/api/accounts/login", { nickname, password });
}

export function logOut() {
  return request("POST", "/api/accounts/logout", {});
}

export function changePassword(oldPassword, newPassword) {
  return request("POST", "/api/accounts/password", { old: oldPassword, new: newPassword });
}

/** POST /api/accounts/delete: the account, its games and its board rows go for good; the session ends. */
export function deleteAccount(password) {
  return request("POST", "/api/accounts/delete", { password });
}

/** GET /api/players/<nickname>: a player's statistics, daily calendar, score chart and recent games. */
export function getProfile(nickname) {
  return request("GET", `/api/players/${encodeURIComponent(nickname)}`);
}

// ---------------------------------------------------------------- races

/** POST /api/races/<code>/join: a seat while the room is in its lobby (a visitor becomes a guest). */
export function joinRace(code) {
  return request("POST", `/api/races/${encodeURIComponent(code)}/join`, {});
}

// ---------------------------------------------------------------- watching

/** GET /api/live: {games, server_now}: the games being played; `withheld` ones may not be watched. */
export function getLive() {
  return request("GET", "/api/live");
}

/** GET /api/me/watching: {watchable}; 404 (ApiError) for a visitor who has not played. */
export function getWatchSetting() {
  return request("GET", "/api/me/watching");
}

/** PUT /api/me/watching: let others watch your games live, or not. */
export function setWatchSetting(watchable) {
  return request("PUT", "/api/me/watching", { watchable: Boolean(watchable) });
}

/** GET /api/tv: {game, server_now}: the featured live game (an entry of the live list), or null. */
export function getTv() {
  return request("GET", "/api/tv");
}

// ---------------------------------------------------------------- arenas

/** GET /api/arenas: {upcoming, live, finished}, each a list of arenas with their `players`. */
export function getArenas() {
  return request("GET", "/api/arenas");
}

/** POST /api/arenas: a new arena of `minutes` (1 to 120) starting in `startsIn` seconds. */
export function createArena(minutes, startsIn) {
  return request("POST", "/api/arenas", { minutes, starts_in: startsIn });
}

/** GET /api/arenas/<code>: the arena with its `standings` (best first), `me` and `players`. */
export function getArena(code) {
  return request("GET", `/api/arenas/${encodeURIComponent(code)}`);
}

/** POST /api/arenas/<code>/join: the arena, and while it is live this player's current `game`. */
export function joinArena(code) {
  return request("POST", `/api/arenas/${encodeURIComponent(code)}/join`, {});
}

/** POST /api/arenas/<code>/next: this player's next game, once the current one is finished. */
export function nextArenaGame(code) {
  return request("POST", `/api/arenas/${encodeURIComponent(code)}/next`, {});
}
