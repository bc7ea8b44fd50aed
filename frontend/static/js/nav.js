// Page URLs come from Django's {% url %} (written on <body> by base.html), not hard-coded paths.

import { createGame } from "./api.js";

export function homeUrl() {
  return document.body.dataset.homeUrl || "/";
}

export function gamePageUrl(id) {
  const pattern = document.body.dataset.gameUrl || "/games/0";
  return pattern.replace(/0$/, String(id));
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
