// The board page: draws the row, turns taps into moves, keeps the clock, and ends the game.
// Rules come from rules.js (the browser's copy of the engine); the server is still the referee.

import { ApiError, createGame, finishGame, getGame } from "./api.js";
import { cardName, renderCard } from "./cards.js";
import { gettext, interpolate, ngettext } from "./i18n.js";
import { GameLink } from "./link.js";
import { dealLinkUrl, gamePageUrl } from "./nav.js";
import { GOOD_GAME_PILES, applyMove, legalMoves, replay, targetsFrom } from "./rules.js";

const DECK_SIZE = 52;
const POINTS_PER_PILE = 10;
const WIN_BONUS = 500;
const TIME_BONUS_SECONDS = 1200;
const MAX_EDGES = 4; // stacked edge lines drawn under a pile's top card
const WIN_ACK_TIMEOUT_MS = 4000; // after a winning move, wait this long for the socket before POSTing

const page = document.getElementById("board-page");
const gameId = Number(page.dataset.gameId);
const byTestId = (id) => page.querySelector(`[data-testid="${id}"]`);
const byRole = (role) => page.querySelector(`[data-role="${role}"]`);
const el = {
  row: byTestId("row"),
  timer: byTestId("timer"),
  score: byTestId("score"),
  pilesCount: byTestId("piles-count"),
  undo: byTestId("undo"),
  endGame: byTestId("end-game"),
  status: byTestId("status"),
  connection: byTestId("connection"),
  result: byTestId("result"),
  finalScore: byTestId("final-score"),
  dealCode: byTestId("deal-code"),
  dealCodeBox: byRole("deal-code-box"),
  copyLink: byRole("copy-link"),
  mode: byRole("mode"),
  ranked: byRole("ranked"),
  stuckActions: byRole("stuck-actions"),
  stuckUndo: byRole("stuck-undo"),
  stuckEnd: byRole("stuck-end"),
  resultTitle: byRole("result-title"),
  breakdown: byRole("breakdown"),
  resultNote: byRole("result-note"),
  playAgain: byRole("play-again"),
  newGame: byRole("new-game"),
};

const reducedMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
const storageKey = `accordion:game:${gameId}`;

const state = {
  game: null, // the last game JSON from the server
  deal: [],
  line: [], // the move line, [[from, to], ...]
  piles: [], // replay(deal, line): arrays of cards, bottom → top
  selected: null, // the chosen pile while its two targets are lit
  targets: [],
  finished: false,
  ending: false, // a finish is on its way to the server
  result: null,
  clockOffset: 0, // server clock − browser clock, in ms
  ackedVersion: null, // the server's version at the last answer we heard
  link: null,
  winTimer: 0,
  tickTimer: 0,
};

// ---------------------------------------------------------------- helpers

function scoreFor(pileCount) {
  return POINTS_PER_PILE * (DECK_SIZE - pileCount);
}

function formatSeconds(total) {
  const seconds = Math.max(0, Math.floor(total));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

function setStatus(text) {
  if (el.status.textContent !== text) el.status.textContent = text;
}

function copyLine(moves) {
  return (moves || []).map((move) => [move[0], move[1]]);
}

function sameLine(a, b) {
  return a.length === b.length && a.every((move, i) => move[0] === b[i][0] && move[1] === b[i][1]);
}

// A reload in this tab resumes the board's own line when the server has heard nothing since our
// last answer (same version): the line may hold moves the socket had not delivered yet.
function persist() {
  try {
    sessionStorage.setItem(storageKey, JSON.stringify({ v: state.ackedVersion, moves: state.line }));
  } catch {
    /* storage full or disabled: the server's line is still there */
  }
}

function loadStored() {
  try {
    const stored = JSON.parse(sessionStorage.getItem(storageKey) || "null");
    return stored && Array.isArray(stored.moves) ? stored : null;
  } catch {
    return null;
  }
}

function forgetStored() {
  try {
    sessionStorage.removeItem(storageKey);
  } catch {
    /* nothing to forget */
  }
}

// ---------------------------------------------------------------- drawing

function pileLabel(pile, index, classes) {
  const top = pile[pile.length - 1];
  let label = interpolate(
    ngettext("Pile %(position)s: %(card)s, %(count)s card", "Pile %(position)s: %(card)s, %(count)s cards", pile.length),
    { position: index + 1, card: cardName(top), count: pile.length },
  );
  if (classes.has("selected")) label += `. ${gettext("Chosen")}`;
  else if (classes.has("target")) label += `. ${gettext("Move here")}`;
  else if (classes.has("movable")) label += `. ${gettext("Can move")}`;
  return label;
}

function pileElement(pile, index, movable) {
  const top = pile[pile.length - 1];
  const classes = new Set(["pile"]);
  if (state.selected === index) classes.add("selected");
  else if (state.targets.includes(index)) classes.add("target");
  if (movable) classes.add("movable");

  const button = document.createElement("button");
  button.type = "button";
  button.className = [...classes].join(" ");
  button.dataset.testid = "pile";
  button.dataset.index = String(index);
  button.dataset.top = top;
  button.dataset.height = String(pile.length);
  button.dataset.key = pile[0]; // the bottom card never changes while a pile exists: used to animate
  button.style.setProperty("--edges", String(Math.min(pile.length - 1, MAX_EDGES)));
  button.setAttribute("aria-label", pileLabel(pile, index, classes));
  if (state.selected === index) button.setAttribute("aria-pressed", "true");

  for (let depth = Math.min(pile.length - 1, MAX_EDGES); depth >= 1; depth -= 1) {
    const edge = document.createElement("span");
    edge.className = "pile-edge";
    edge.style.setProperty("--depth", String(depth));
    edge.setAttribute("aria-hidden", "true");
    button.append(edge);
  }
  button.append(renderCard(top));
  if (pile.length > 1) {
    const count = document.createElement("span");
    count.className = "pile-count";
    count.textContent = String(pile.length);
    count.setAttribute("aria-hidden", "true");
    button.append(count);
  }
  return button;
}

function measure() {
  const rects = new Map();
  for (const element of el.row.children) rects.set(element.dataset.key, element.getBoundingClientRect());
  return rects;
}

// FLIP: piles slide from where they were; after a move the top card flies in from its old pile.
function animate(before, flight) {
  if (!before || reducedMotion || typeof Element.prototype.animate !== "function") return;
  const timing = { duration: 220, easing: "cubic-bezier(.2,.8,.3,1)" };
  for (const element of el.row.children) {
    const after = element.getBoundingClientRect();
    if (flight && Number(element.dataset.index) === flight.to) {
      const from = before.get(flight.key);
      const card = element.querySelector(".card");
      if (from && card) {
        const dx = from.left - after.left;
        const dy = from.top - after.top;
        element.style.zIndex = "5";
        card
          .animate([{ transform: `translate(${dx}px, ${dy}px) scale(1.06)` }, { transform: "none" }], {
            ...timing,
            duration: 260,
          })
          .finished.catch(() => {})
          .finally(() => element.style.removeProperty("z-index"));
      }
      continue;
    }
    const old = before.get(element.dataset.key);
    if (!old) {
      element.animate([{ opacity: 0, transform: "scale(.85)" }, { opacity: 1, transform: "none" }], timing);
      continue;
    }
    const dx = old.left - after.left;
    const dy = old.top - after.top;
    if (Math.abs(dx) > 0.5 || Math.abs(dy) > 0.5) {
      element.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], timing);
    }
  }
}

function render({ before = null, flight = null } = {}) {
  const playing = !state.finished && !state.ending;
  const focused = document.activeElement?.closest?.('[data-testid="pile"]');
  const focusIndex = focused ? Number(focused.dataset.index) : null;

  const elements = state.piles.map((pile, index) =>
    pileElement(pile, index, playing && targetsFrom(state.piles, index).length > 0),
  );
  el.row.replaceChildren(...elements);
  el.row.classList.toggle("choosing", state.selected !== null);
  el.row.classList.toggle("over", state.finished);
  el.row.classList.toggle("waiting", state.ending);
  el.row.setAttribute("aria-busy", "false");

  const pileCount = state.piles.length;
  el.score.textContent = String(scoreFor(pileCount));
  el.pilesCount.textContent = String(pileCount);
  el.undo.disabled = !playing || state.line.length === 0;
  el.endGame.disabled = !playing;

  if (focusIndex !== null && elements.length) {
    elements[Math.min(focusIndex, elements.length - 1)].focus({ preventScroll: true });
  }
  animate(before, flight);
  updateStatus();
}

function updateStatus() {
  const stuck =
    !state.finished && !state.ending && state.piles.length > 1 && legalMoves(state.piles).length === 0;
  el.stuckActions.hidden = !stuck;
  el.stuckUndo.hidden = state.line.length === 0;
  page.classList.toggle("is-stuck", stuck);
  if (state.finished) {
    setStatus(""); // the result panel says it all
  } else if (state.ending) {
    setStatus(gettext("Sending your game to the server…"));
  } else if (stuck) {
    setStatus(gettext("No more moves"));
  } else if (state.selected !== null) {
    setStatus(gettext("Two places to go: tap the lit pile to move onto, or tap anywhere else to cancel."));
  } else {
    setStatus(gettext("Tap a bright pile to move it."));
  }
}

function showMeta(game) {
  if (game.mode === "daily") {
    el.mode.textContent = game.daily_date
      ? interpolate(gettext("Daily deal · %(date)s"), { date: game.daily_date })
      : gettext("Daily deal");
    el.ranked.hidden = false;
    el.ranked.textContent = game.ranked ? gettext("Ranked") : gettext("Practice");
    el.ranked.classList.toggle("is-ranked", Boolean(game.ranked));
  } else {
    el.mode.textContent = game.mode === "code" ? gettext("Shared deal") : gettext("New game");
    el.ranked.hidden = true;
  }
  el.dealCodeBox.hidden = !game.deal_code;
  el.dealCode.textContent = game.deal_code || "";
}

function setConnection(linkState) {
  const labels = {
    connecting: gettext("Connecting…"),
    syncing: gettext("Connecting…"),
    live: gettext("Live"),
    offline: gettext("Offline: keep playing, your moves are sent when the connection is back"),
    refused: gettext("No live connection: keep playing, the game is saved when it ends"),
    closed: "",
  };
  el.connection.dataset.state = linkState;
  el.connection.textContent = labels[linkState] ?? "";
  el.connection.hidden = linkState === "closed" || linkState === "idle";
}

// ---------------------------------------------------------------- clock

function startedAtMs() {
  return Date.parse(state.game.started_at);
}

function tick() {
  if (state.finished && state.result && typeof state.result.seconds === "number") {
    el.timer.textContent = formatSeconds(state.result.seconds);
    return;
  }
  if (state.finished) return;
  const now = Date.now() + state.clockOffset;
  el.timer.textContent = formatSeconds((now - startedAtMs()) / 1000);
}

function startClock() {
  clearInterval(state.tickTimer);
  tick();
  state.tickTimer = setInterval(tick, 250);
}

// ---------------------------------------------------------------- play

function adoptLine(moves) {
  const line = copyLine(moves);
  state.piles = replay(state.deal, line);
  state.line = line;
  state.selected = null;
  state.targets = [];
}

function clearSelection() {
  state.selected = null;
  state.targets = [];
}

function play(move) {
  let next;
  try {
    next = applyMove(state.piles, move);
  } catch (error) {
    setStatus(error.message);
    return;
  }
  const before = measure();
  const flight = { key: state.piles[move[0]][0], to: move[1] };
  state.piles = next;
  state.line = [...state.line, [move[0], move[1]]];
  clearSelection();
  persist();
  state.link?.sendMove(move);
  render({ before, flight });
  if (state.piles.length === 1) onLocalWin();
}

function undo() {
  if (state.finished || state.ending || state.line.length === 0) return;
  const before = measure();
  state.line = state.line.slice(0, -1);
  state.piles = replay(state.deal, state.line);
  clearSelection();
  persist();
  state.link?.sendUndo();
  render({ before });
}

function onPileClick(index) {
  if (state.finished || state.ending) return;
  if (state.selected !== null) {
    const from = state.selected;
    const chosen = state.targets.includes(index);
    clearSelection();
    if (chosen) play([from, index]);
    else render(); // tapping anything else cancels
    return;
  }
  const options = targetsFrom(state.piles, index);
  if (options.length === 1) {
    play([index, options[0]]);
  } else if (options.length > 1) {
    state.selected = index;
    state.targets = options.slice();
    render();
  } else {
    const element = el.row.children[index];
    element?.classList.remove("nope");
    void element?.offsetWidth; // restart the shake
    element?.classList.add("nope");
    setStatus(gettext("That pile cannot move: its top card matches neither the pile to its left nor the one three places left."));
  }
}

// A win is finished by the socket's ack when the link is live; otherwise (or if the ack is slow)
// the whole line goes to POST /finish.
function onLocalWin() {
  state.ending = true;
  render();
  if (state.link?.live) {
    clearTimeout(state.winTimer);
    state.winTimer = setTimeout(() => {
      if (!state.finished) finishByPost();
    }, WIN_ACK_TIMEOUT_MS);
  } else {
    finishByPost();
  }
}

async function endGame({ confirmFirst }) {
  if (state.finished || state.ending) return;
  if (confirmFirst && !window.confirm(gettext("End this game now? It is scored as it stands."))) return;
  await finishByPost();
}

async function finishByPost() {
  if (state.finished) return;
  clearTimeout(state.winTimer);
  state.ending = true;
  clearSelection();
  stopLink();
  render();
  try {
    const game = await finishGame(gameId, state.line);
    state.game = game;
    showFinished(game.result, game.moves);
  } catch (error) {
    await recoverFromFailedFinish(error);
  }
}

async function recoverFromFailedFinish(error) {
  // Perhaps it was finished already (the socket's ack raced us): then show that result.
  try {
    const game = await getGame(gameId);
    state.game = game;
    if (game.status === "finished") {
      showFinished(game.result, game.moves);
      return;
    }
    if (error instanceof ApiError && error.code === "illegal_move") adoptLine(game.moves);
  } catch {
    /* still unreachable: keep the local line and let the player try again */
  }
  state.ending = false;
  render();
  setStatus(error.message || gettext("The game could not be ended. Please try again."));
  startLink();
}

async function showFinished(result, moves) {
  if (state.finished) return;
  if (!result) {
    try {
      const game = await getGame(gameId);
      state.game = game;
      result = game.result;
      moves = game.moves;
    } catch {
      result = null;
    }
  }
  clearTimeout(state.winTimer);
  stopLink();
  forgetStored();
  if (moves) {
    try {
      adoptLine(moves);
    } catch {
      /* keep the board as drawn */
    }
  }
  state.finished = true;
  state.ending = false;
  state.result = result;
  clearSelection();
  render();
  tick();
  clearInterval(state.tickTimer);
  if (result) drawResult(result);
}

function breakdownRow(label, detail, points) {
  const term = document.createElement("dt");
  term.textContent = label;
  const value = document.createElement("dd");
  if (detail) {
    const small = document.createElement("span");
    small.className = "detail";
    small.dir = "ltr"; // "51 × 10" must not be reordered on a right-to-left page
    small.textContent = detail;
    value.append(small, " ");
  }
  const strong = document.createElement("strong");
  strong.textContent = String(points);
  value.append(strong);
  return [term, value];
}

function drawResult(result) {
  const piles = result.piles;
  const removed = DECK_SIZE - piles;
  const seconds = typeof result.seconds === "number" ? result.seconds : null;
  const goodGame = result.good_game ?? piles <= GOOD_GAME_PILES;
  let title;
  if (result.won) title = gettext("You won!");
  else if (goodGame) title = gettext("Good game!");
  else title = gettext("Game over");
  el.resultTitle.textContent = title;
  el.result.classList.toggle("won", Boolean(result.won));
  el.result.classList.toggle("good", !result.won && goodGame);

  const rows = [
    ...breakdownRow(
      gettext("Piles removed"),
      interpolate(gettext("%(removed)s × %(points)s"), { removed, points: POINTS_PER_PILE }),
      removed * POINTS_PER_PILE,
    ),
  ];
  if (result.won) {
    rows.push(...breakdownRow(gettext("Win bonus"), "", WIN_BONUS));
    const timeBonus = seconds === null ? 0 : Math.max(0, TIME_BONUS_SECONDS - seconds);
    rows.push(
      ...breakdownRow(
        gettext("Time bonus"),
        seconds === null ? "" : interpolate(gettext("%(limit)s − %(seconds)s s"), { limit: TIME_BONUS_SECONDS, seconds }),
        timeBonus,
      ),
    );
  } else {
    const left = document.createElement("dt");
    left.textContent = gettext("Piles left");
    const leftValue = document.createElement("dd");
    leftValue.textContent = String(piles);
    rows.push(left, leftValue);
  }
  if (seconds !== null) {
    const time = document.createElement("dt");
    time.textContent = gettext("Time");
    const timeValue = document.createElement("dd");
    timeValue.textContent = formatSeconds(seconds);
    timeValue.dir = "ltr";
    rows.push(time, timeValue);
  }
  el.breakdown.replaceChildren(...rows);
  el.finalScore.textContent = String(result.score);

  const notes = [];
  if (typeof result.rank === "number") {
    notes.push(interpolate(gettext("You are number %(rank)s on today's daily leaderboard."), { rank: result.rank }));
  } else if (state.game?.mode === "daily" && !state.game.ranked) {
    notes.push(gettext("Practice game: only your first daily deal of the day is ranked."));
  }
  el.resultNote.hidden = notes.length === 0;
  el.resultNote.textContent = notes.join(" ");

  const game = state.game || {};
  if (game.deal_code) {
    el.playAgain.hidden = false;
    el.playAgain.textContent = gettext("Play this deal again");
    el.playAgain.onclick = () => startAnother("code", game.deal_code, el.playAgain);
  } else if (game.mode === "daily") {
    el.playAgain.hidden = false;
    el.playAgain.textContent = gettext("Replay today's deal (practice)");
    el.playAgain.onclick = () => startAnother("daily", undefined, el.playAgain);
  } else {
    el.playAgain.hidden = true;
  }
  el.result.hidden = false;
  el.result.focus({ preventScroll: true });
  el.result.scrollIntoView({ behavior: reducedMotion ? "auto" : "smooth", block: "nearest" });
}

async function startAnother(mode, code, button) {
  button.disabled = true;
  try {
    const game = await createGame(mode, code);
    window.location.assign(gamePageUrl(game.id));
  } catch (error) {
    button.disabled = false;
    setStatus(error.message);
  }
}

// ---------------------------------------------------------------- socket

function onServerGame(game, how) {
  state.game = game;
  if (game.status === "finished") {
    showFinished(game.result, game.moves);
    return false;
  }
  state.ackedVersion = game.version;
  if (how === "adopt") {
    if (!sameLine(state.line, game.moves || [])) {
      const before = measure();
      adoptLine(game.moves);
      render({ before });
    }
  }
  persist();
  return true;
}

function onAck(ack, drained) {
  if (typeof ack.v === "number") state.ackedVersion = ack.v;
  if (ack.status === "finished") {
    showFinished(ack.result || null, null);
    return;
  }
  persist();
  if (drained && typeof ack.piles === "number" && ack.piles !== state.piles.length) {
    state.link?.resync(); // the server's row differs from ours: take the server's
  }
}

function onReject(reject) {
  setStatus(
    interpolate(gettext("The server did not accept that (%(reason)s). Reloading the game…"), {
      reason: reject.error || reject.code || "?",
    }),
  );
}

function startLink() {
  stopLink();
  if (state.finished || !state.game?.ws) return;
  const link = new GameLink({
    gameId,
    wsPath: state.game.ws,
    currentLine: () => state.line,
    onServerGame,
    onAck,
    onReject,
    onState: setConnection,
  });
  state.link = link;
  link.start();
}

function stopLink() {
  const link = state.link;
  state.link = null;
  link?.stop();
}

// ---------------------------------------------------------------- events

function wireEvents() {
  el.row.addEventListener("click", (event) => {
    const pile = event.target.closest('[data-testid="pile"]');
    if (pile) onPileClick(Number(pile.dataset.index));
  });
  // A tap anywhere off the piles cancels a pending choice between two targets.
  document.addEventListener("click", (event) => {
    if (state.selected === null || event.target.closest?.('[data-testid="pile"]')) return;
    clearSelection();
    render();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && state.selected !== null) {
      clearSelection();
      render();
    } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "z" && !event.shiftKey) {
      if (event.target.closest?.("input, textarea")) return;
      event.preventDefault();
      undo();
    }
  });
  el.undo.addEventListener("click", undo);
  el.stuckUndo.addEventListener("click", undo);
  el.endGame.addEventListener("click", () => endGame({ confirmFirst: true }));
  // With no move left there is nothing to lose: end at once.
  el.stuckEnd.addEventListener("click", () => endGame({ confirmFirst: false }));
  el.newGame.addEventListener("click", () => startAnother("new", undefined, el.newGame));
  el.copyLink.addEventListener("click", copyDealLink);
}

async function copyDealLink() {
  const code = state.game?.deal_code;
  if (!code) return;
  const url = dealLinkUrl(code);
  const original = gettext("Copy link");
  try {
    await navigator.clipboard.writeText(url);
    el.copyLink.textContent = gettext("Link copied!");
  } catch {
    window.prompt(gettext("Copy this link and send it to a friend:"), url);
    return;
  }
  setTimeout(() => {
    el.copyLink.textContent = original;
  }, 2000);
}

// ---------------------------------------------------------------- start

async function main() {
  wireEvents();
  setConnection("idle");
  let game;
  try {
    game = await getGame(gameId);
  } catch (error) {
    el.row.setAttribute("aria-busy", "false");
    el.mode.textContent = gettext("Game unavailable");
    setStatus(error.message);
    return;
  }
  state.game = game;
  state.deal = game.deal;
  state.clockOffset = Date.parse(game.server_now) - Date.now();
  showMeta(game);

  if (game.status === "finished") {
    adoptLine(game.moves);
    await showFinished(game.result, game.moves);
    return;
  }

  state.ackedVersion = game.version;
  const stored = loadStored();
  let line = game.moves;
  if (stored && stored.v === game.version && !sameLine(stored.moves, game.moves)) {
    try {
      replay(state.deal, stored.moves);
      line = stored.moves;
    } catch {
      line = game.moves;
    }
  }
  adoptLine(line);
  persist();
  render();
  startClock();
  startLink();
  if (state.piles.length === 1) onLocalWin();
}

main();
