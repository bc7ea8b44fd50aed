// Page URLs come from Django's {% url %} (written on <body> by base.html), not hard-coded paths.

import { createGame } from "./api.js";

export function homeUrl() {
  return document.body.dataset.homeUrl || "/";
}

export function gamePageUrl(id) {
  const pattern = document.body.dataset.gameUrl || "/games/0";
  return pattern.replace(/0$/, String(id));
}

/** A day's leaderboard page; `date` is "YYYY-MM-DD" (a UTC date). */
export function dailyBoardUrl(date) {
  const pattern = document.body.dataset.dailyUrl || "/daily/2000-01-01";
  return pattern.replace(/2000-01-01$/, date);
}

/** The replay page of a finished game. */
export function replayPageUrl(id) {
  const pattern = document.body.dataset.replayUrl || "/games/0/replay";
  return pattern.replace(/0\/replay$/, `${id}/replay`);
}

/** A player's profile page. */
export function profileUrl(nickname) {
  const pattern = document.body.dataset.profileUrl || "/players/nickname";
  return pattern.replace(/nickname$/, encodeURIComponent(nickname));
}

/** The link a friend opens to play the same deal: the home page with the code filled in. */
export function dealLinkUrl(code) {
  const url = new URL(homeUrl(), window.location.origin);
  url.searchParams.set("code", code);
  return url.toString();
}

/** Start a game through the API, then open its board. Throws ApiError on failure. */
export async function startGameAndGo(mode, code) {
  const game = await createGame(mode, code);
  window.location.assign(gamePageUrl(game.id));
  return game;
}
