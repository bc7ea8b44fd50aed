// The board page: draws the row, turns taps into moves, keeps the clock, and ends the game.
// Rules come from rules.js (the browser's copy of the engine); the server is still the referee.
// The solver's help lives here too: hints, the opt-in "still winnable?" indicator, and after the
// game its analysis with winning lines replayed on the board.

import { ApiError, createGame, finishGame, getAnalysis, getGame, getWinnable, requestHint } from "./api.js";
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
const SETTLE_TIMEOUT_MS = 6000; // a hint waits this long for the server to ack the moves on screen
// The server allows 30 solver requests a minute per player (hints and checks together): after the
// last acked move the indicator waits a moment, and never asks more often than every 3 s.
const WINNABLE_DEBOUNCE_MS = 800;
const WINNABLE_MIN_GAP_MS = 3000;
const WINNABLE_BUSY_RETRY_MS = 5000;
const WINNABLE_LIMITED_RETRY_MS = 20000;
const REPLAY_STEP_MS = 400;
const REPLAY_SPEEDS = [1, 2, 4];
const WINNABLE_KEY = "accordion:winnable-indicator";

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
  hint: byTestId("hint"),
  hintConfirm: byTestId("hint-confirm"),
  hintYes: byTestId("hint-confirm-yes"),
  hintNo: byTestId("hint-confirm-no"),
  hintMessage: byTestId("hint-message"),
  hintText: byRole("hint-text"),
  hintUndo: byTestId("hint-undo"),
  hintClose: byRole("hint-close"),
  winnableBox: byRole("winnable-box"),
  winnableToggle: byTestId("winnable-toggle"),
  winnable: byTestId("winnable"),
  analysis: byTestId("analysis"),
  analysisDeal: byRole("analysis-deal"),
  analysisLoss: byRole("analysis-loss"),
  analysisNote: byRole("analysis-note"),
  analysisRetry: byRole("analysis-retry"),
  replayDeal: byTestId("replay-deal"),
  replayFromThere: byTestId("replay-from-there"),
  replayFromThereLabel: byRole("replay-from-there-label"),
  replayBar: byTestId("replay"),
  replayTitle: byRole("replay-title"),
  replayProgress: byTestId("replay-progress"),
  replayMeter: byRole("replay-meter"),
  replayPause: byTestId("replay-pause"),
  replaySpeed: byTestId("replay-speed"),
  replayStop: byTestId("replay-stop"),
  felt: page.querySelector(".felt"),
};

const reducedMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
const storageKey = `accordion:game:${gameId}`;
const hintedKey = `accordion:hinted:${gameId}`;

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
  finalLine: [], // the line the game ended with (the replays start from it and come back to it)
  hint: null, // {move: [from, to]} while a suggested move is lit on the board
  hinting: false, // a hint request is on its way
  hintAccepted: false, // the player agreed that a hint makes this ranked game unranked
  hinted: false, // this game has had a hint: it is unranked for good
  analysis: null, // the after-game analysis from the server
  replay: null, // a winning line being played on the board after the game
  replaySpeed: 1,
};

// The still-winnable indicator (opt-in, unranked games only).
const winnable = {
  on: false,
  timer: 0,
  inFlight: false,
  again: false,
  lastAt: 0, // when the last check was sent (Date.now())
  pausedUntil: 0, // after "busy" or "rate_limited"
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

function topCard(pile) {
  return pile[pile.length - 1];
}

function readLocal(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeLocal(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* storage disabled: the choice lasts as long as the page */
  }
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
  if (classes.has("hinted")) {
    label += `. ${index === state.hint.move[0] ? gettext("Hint: move this pile") : gettext("Hint: move onto this pile")}`;
  }
  return label;
}

// The move to light up: the hint while playing, the next move of a replay after the game.
function litMove() {
  if (state.replay && !state.replay.done) return state.replay.line[state.replay.index] || null;
  return state.hint ? state.hint.move : null;
}

function pileElement(pile, index, movable) {
  const top = pile[pile.length - 1];
  const classes = new Set(["pile"]);
  if (state.selected === index) classes.add("selected");
  else if (state.targets.includes(index)) classes.add("target");
  if (movable) classes.add("movable");
  const lit = litMove();
  if (lit && (lit[0] === index || lit[1] === index)) classes.add(state.replay ? "replay-next" : "hinted");

  const button = document.createElement("button");
  button.type = "button";
  button.className = [...classes].join(" ");
  button.dataset.testid = "pile";
  button.dataset.index = String(index);
  button.dataset.top = top;
  button.dataset.height = String(pile.length);
  button.dataset.key = pile[0]; // the bottom card never changes while a pile exists: used to animate
  button.style.setProperty("--edges", String(Math.min(pile.length - 1, MAX_EDGES)));
  if (lit && (lit[0] === index || lit[1] === index)) button.dataset.hint = lit[0] === index ? "from" : "to";
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
  el.row.classList.toggle("hinting", state.hint !== null && playing);
  el.row.setAttribute("aria-busy", "false");
  el.felt.classList.toggle("replaying", state.replay !== null);

  const pileCount = state.piles.length;
  el.score.textContent = String(scoreFor(pileCount));
  el.pilesCount.textContent = String(pileCount);
  el.undo.disabled = !playing || state.line.length === 0;
  el.endGame.disabled = !playing;
  el.hint.disabled = !playing || state.hinting || pileCount <= 1;
  el.hint.classList.toggle("is-busy", state.hinting);
  el.hint.setAttribute("aria-busy", String(state.hinting));
  updateWinnableBox();

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
  // After a hint the chip says "Unranked" in every mode: the game is off the leaderboards for good.
  const unranked = state.hinted && !game.ranked;
  if (game.mode === "daily") {
    el.mode.textContent = game.daily_date
      ? interpolate(gettext("Daily deal · %(date)s"), { date: game.daily_date })
      : gettext("Daily deal");
  } else {
    el.mode.textContent = game.mode === "code" ? gettext("Shared deal") : gettext("New game");
  }
  el.ranked.hidden = game.mode !== "daily" && !unranked;
  if (unranked) el.ranked.textContent = gettext("Unranked");
  else el.ranked.textContent = game.ranked ? gettext("Ranked") : gettext("Practice");
  el.ranked.classList.toggle("is-ranked", Boolean(game.ranked));
  el.ranked.classList.toggle("is-unranked", unranked);
  if (unranked) el.ranked.title = gettext("A hint was used: this game does not count on any leaderboard.");
  else el.ranked.removeAttribute("title");
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
  state.hint = null;
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
  dismissAdvice();
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
  dismissAdvice();
  persist();
  state.link?.sendUndo();
  render({ before });
}

/** Undo `count` moves at once (the hint's "undo N moves" button). */
function undoMany(count) {
  if (state.finished || state.ending) return;
  const steps = Math.min(count, state.line.length);
  if (steps <= 0) return;
  const before = measure();
  state.line = state.line.slice(0, state.line.length - steps);
  state.piles = replay(state.deal, state.line);
  clearSelection();
  dismissAdvice();
  persist();
  for (let i = 0; i < steps; i += 1) state.link?.sendUndo();
  render({ before });
  showAdvice(gettext("Back on track: this position can still be won. Ask for another hint whenever you like."), "ok");
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
  stopWinnable();
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
  state.finalLine = copyLine(state.line);
  clearSelection();
  hideConfirm();
  dismissAdvice();
  render();
  tick();
  clearInterval(state.tickTimer);
  if (result) {
    drawResult(result);
    loadAnalysis();
  }
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
  } else if (state.hinted && !state.game?.ranked) {
    notes.push(gettext("A hint was used: this game does not count on any leaderboard."));
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
  const wasRanked = state.game?.ranked;
  state.game = game;
  if (game.status === "finished") {
    showFinished(game.result, game.moves);
    return false;
  }
  state.ackedVersion = game.version;
  if (game.ranked !== wasRanked) showMeta(game);
  if (how === "adopt") {
    if (!sameLine(state.line, game.moves || [])) {
      const before = measure();
      adoptLine(game.moves);
      dismissAdvice();
      render({ before });
    }
  }
  persist();
  scheduleWinnable();
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
    return;
  }
  if (drained) scheduleWinnable();
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

// ---------------------------------------------------------------- hints

function showAdvice(text, kind, undoCount = 0) {
  el.hintText.textContent = text;
  el.hintMessage.dataset.kind = kind;
  el.hintMessage.hidden = false;
  if (undoCount > 0) {
    el.hintUndo.hidden = false;
    el.hintUndo.textContent = interpolate(
      ngettext("Undo %(count)s move", "Undo %(count)s moves", undoCount),
      { count: undoCount },
    );
    el.hintUndo.onclick = () => undoMany(undoCount);
  } else {
    el.hintUndo.hidden = true;
    el.hintUndo.onclick = null;
  }
}

/** The board changed: a lit move or an "undo N" offer no longer fits it. */
function dismissAdvice() {
  state.hint = null;
  if (state.hinting) return; // the answer on its way will say the position moved on
  el.hintMessage.hidden = true;
  el.hintUndo.onclick = null;
}

function showConfirm() {
  el.hintConfirm.hidden = false;
  el.hintYes.focus({ preventScroll: true });
  el.hintConfirm.scrollIntoView({ behavior: reducedMotion ? "auto" : "smooth", block: "nearest" });
}

function hideConfirm({ refocus = false } = {}) {
  if (el.hintConfirm.hidden) return;
  el.hintConfirm.hidden = true;
  if (refocus && !el.hint.disabled) el.hint.focus({ preventScroll: true });
}

function markHinted() {
  if (state.hinted) return;
  state.hinted = true;
  writeLocal(hintedKey, "1");
}

function onHintClick() {
  if (state.finished || state.ending || state.hinting) return;
  if (state.game?.ranked && !state.hintAccepted) {
    showConfirm();
    return;
  }
  askHint();
}

/**
 * Ask the server for advice about the position on screen. The board plays moves at once and sends
 * them over the socket, so first wait until the server has acked every one of them; an answer that
 * comes back after the player moved on is about an old position and is not shown.
 */
async function askHint() {
  hideConfirm();
  state.hinting = true;
  render();
  showAdvice(gettext("Looking for a good move…"), "busy");
  try {
    for (let attempt = 0; ; attempt += 1) {
      const ready = state.link ? await state.link.whenSettled(SETTLE_TIMEOUT_MS) : false;
      if (state.finished || state.ending) return;
      if (!ready) {
        showAdvice(
          gettext("Hints need a live connection: your latest moves have not reached the server yet. Try again in a moment."),
          "warn",
        );
        return;
      }
      const asked = copyLine(state.line);
      let answer;
      try {
        answer = await requestHint(gameId, state.hintAccepted || !state.game.ranked);
      } catch (error) {
        if (error instanceof ApiError && error.code === "game_changed" && attempt === 0) {
          state.link?.resync(); // take the server's line, then ask once more
          continue;
        }
        throw error;
      }
      takeHint(answer, asked);
      return;
    }
  } catch (error) {
    hintFailed(error);
  } finally {
    state.hinting = false;
    if (state.finished) {
      el.hintMessage.hidden = true; // the result panel says it all
    } else {
      render();
      revealHint();
    }
  }
}

// On a phone the lit piles may be below the fold: bring the lower one (the pile to move) into view.
function revealHint() {
  if (!state.hint) return;
  const from = el.row.children[state.hint.move[0]];
  from?.scrollIntoView({ behavior: reducedMotion ? "auto" : "smooth", block: "nearest" });
}

function takeHint(answer, asked) {
  if (state.game && typeof answer.ranked === "boolean" && answer.ranked !== state.game.ranked) {
    state.game = { ...state.game, ranked: answer.ranked };
  }
  if (typeof answer.hints === "number" && answer.hints > 0 && !answer.ranked) markHinted();
  showMeta(state.game);
  if (state.finished || state.ending) return;
  if (!sameLine(asked, state.line)) {
    state.hint = null;
    showAdvice(gettext("You moved while the hint was on its way: ask again for this position."), "warn");
    return;
  }
  switch (answer.status) {
    case "move": {
      const [from, to] = answer.move || [];
      if (!state.piles[from] || !state.piles[to]) {
        showAdvice(gettext("The hint did not fit the board. Please ask again."), "warn");
        return;
      }
      state.hint = { move: [from, to] };
      showAdvice(
        interpolate(gettext("Try moving the %(card)s onto the %(target)s: the game can still be won from there."), {
          card: cardName(topCard(state.piles[from])),
          target: cardName(topCard(state.piles[to])),
        }),
        "move",
      );
      break;
    }
    case "undo": {
      const count = Math.max(1, Number(answer.undo) || 1);
      state.hint = null;
      showAdvice(
        interpolate(
          ngettext(
            "This position can no longer be won: undo %(count)s move.",
            "This position can no longer be won: undo %(count)s moves.",
            count,
          ),
          { count },
        ),
        "undo",
        Math.min(count, state.line.length),
      );
      break;
    }
    case "won":
      showAdvice(gettext("Nothing left to advise: the game is won."), "ok");
      break;
    case "lost":
      showAdvice(
        gettext("No one could win this deal: no line of moves leaves a single pile. Remove as many piles as you can."),
        "warn",
      );
      break;
    default:
      showAdvice(gettext("The solver found no answer in time. This hint was not counted: try again."), "warn");
  }
}

function hintFailed(error) {
  const code = error instanceof ApiError ? error.code : "";
  if (code === "confirm_unranked") {
    // The server counts this game as ranked after all: ask the player first.
    state.game = { ...state.game, ranked: true };
    state.hintAccepted = false;
    showMeta(state.game);
    el.hintMessage.hidden = true;
    showConfirm();
    return;
  }
  if (code === "game_finished") {
    el.hintMessage.hidden = true;
    showFinished(null, null);
    return;
  }
  const messages = {
    busy: gettext("The solver is busy right now. Try again in a moment."),
    rate_limited: gettext("That is a lot of hints for one minute. Wait a little, then try again."),
    game_changed: gettext("The game changed while the hint was worked out. Try again."),
    network: gettext("The server cannot be reached. Check your connection and try again."),
  };
  showAdvice(messages[code] || error.message || gettext("No hint this time. Please try again."), "warn");
}

// ---------------------------------------------------------------- still winnable?

function winnableAvailable() {
  return Boolean(state.game) && !state.game.ranked && !state.finished && !state.ending;
}

function updateWinnableBox() {
  const available = winnableAvailable();
  el.winnableBox.hidden = !available;
  el.winnableToggle.setAttribute("aria-checked", String(winnable.on));
  el.winnable.hidden = !available || !winnable.on;
}

/** Show an answer (status null: keep the last one, dimmed while a new check is due). */
function showWinnable(status, { checking = false, label = "" } = {}) {
  const labels = {
    win: gettext("Still winnable"),
    lost: gettext("No longer winnable"),
    unknown: gettext("Can't tell"),
  };
  if (status) {
    el.winnable.dataset.state = status;
    el.winnable.textContent = label || (labels[status] ?? labels.unknown);
  } else if (!el.winnable.dataset.state) {
    el.winnable.textContent = gettext("Checking…");
  }
  el.winnable.classList.toggle("is-checking", checking);
  el.winnable.setAttribute("aria-busy", String(checking));
}

function setWinnableOn(on) {
  winnable.on = on;
  writeLocal(WINNABLE_KEY, on ? "on" : "off");
  if (on) {
    scheduleWinnable(0);
  } else {
    clearTimeout(winnable.timer);
    winnable.timer = 0;
  }
  updateWinnableBox();
}

/** Check soon: after `delay`, but never sooner than the minimum gap or a pause the server asked for. */
function scheduleWinnable(delay = WINNABLE_DEBOUNCE_MS) {
  if (!winnable.on || !winnableAvailable()) return;
  showWinnable(null, { checking: true });
  clearTimeout(winnable.timer);
  const now = Date.now();
  const wait = Math.max(delay, winnable.lastAt + WINNABLE_MIN_GAP_MS - now, winnable.pausedUntil - now, 0);
  winnable.timer = setTimeout(checkWinnable, wait);
}

async function checkWinnable() {
  winnable.timer = 0;
  if (!winnable.on || !winnableAvailable()) return;
  if (winnable.inFlight) {
    winnable.again = true;
    return;
  }
  // Moves still on their way: the ack (or the next sync) of the last one schedules a new check.
  if (!state.link?.settled) return;
  winnable.inFlight = true;
  winnable.lastAt = Date.now();
  try {
    const answer = await getWinnable(gameId);
    if (!winnableAvailable()) return;
    // An answer about an older version than the board has heard of is out of date: drop it.
    if (typeof answer.version === "number" && state.ackedVersion !== null && answer.version < state.ackedVersion) return;
    showWinnable(answer.status, { checking: !state.link?.settled });
  } catch (error) {
    const code = error instanceof ApiError ? error.code : "";
    if (code === "rate_limited") {
      winnable.pausedUntil = Date.now() + WINNABLE_LIMITED_RETRY_MS;
      showWinnable("unknown", { label: gettext("Can't tell: too many checks this minute") });
      winnable.again = true;
    } else if (code === "busy" || code === "network") {
      winnable.pausedUntil = Date.now() + WINNABLE_BUSY_RETRY_MS;
      showWinnable("unknown", { label: gettext("Can't tell: the solver is busy") });
      winnable.again = true;
    } else if (code === "game_finished") {
      /* the finish is on its way to the board */
    } else if (error instanceof ApiError && error.status === 400) {
      // The server counts this game as ranked: the indicator would be a hint.
      state.game = { ...state.game, ranked: true };
      showMeta(state.game);
      updateWinnableBox();
    } else {
      showWinnable("unknown");
    }
  } finally {
    winnable.inFlight = false;
    if (winnable.again) {
      winnable.again = false;
      scheduleWinnable();
    }
  }
}

function stopWinnable() {
  clearTimeout(winnable.timer);
  winnable.timer = 0;
  winnable.again = false;
}

// ---------------------------------------------------------------- after the game: analysis and replays

async function loadAnalysis() {
  el.analysis.hidden = false;
  el.analysis.setAttribute("aria-busy", "true");
  el.analysisDeal.textContent = gettext("Asking the solver about your game…");
  el.analysisLoss.hidden = true;
  el.analysisNote.hidden = true;
  el.analysisRetry.hidden = true;
  el.replayDeal.hidden = true;
  el.replayFromThere.hidden = true;
  try {
    state.analysis = await getAnalysis(gameId);
    drawAnalysis(state.analysis);
  } catch (error) {
    const code = error instanceof ApiError ? error.code : "";
    el.analysisDeal.textContent =
      code === "busy" || code === "rate_limited"
        ? gettext("The solver is busy right now, so there is no analysis yet.")
        : gettext("The analysis of this game is not available right now.");
    el.analysisRetry.hidden = false;
  } finally {
    el.analysis.setAttribute("aria-busy", "false");
  }
}

function drawAnalysis(analysis) {
  const won = Boolean(state.result?.won);
  if (won) {
    el.analysisDeal.textContent = gettext("You cleared the deal: it takes a winning line, and you found one.");
  } else if (analysis.deal_winnable === true) {
    el.analysisDeal.textContent = gettext("This deal could be won.");
  } else if (analysis.deal_winnable === false) {
    el.analysisDeal.textContent = gettext("This deal could not be won: no line of moves leaves a single pile.");
  } else {
    el.analysisDeal.textContent = gettext("The solver could not tell in time whether this deal can be won.");
  }
  el.analysis.dataset.dealWinnable = String(analysis.deal_winnable);

  const losing = analysis.first_losing_move;
  const moves = state.finalLine;
  el.analysisLoss.hidden = true;
  if (!won && typeof losing === "number" && losing >= 0 && losing < moves.length) {
    el.analysisLoss.hidden = false;
    el.analysisLoss.textContent = losingMoveText(losing, moves);
  } else if (!won && analysis.deal_winnable === true && typeof losing !== "number") {
    el.analysisLoss.hidden = false;
    el.analysisLoss.textContent = gettext("Your last position could still have been won.");
  }

  el.analysisNote.hidden = !analysis.withheld;
  el.analysisNote.textContent = analysis.withheld
    ? gettext("The winning line of today's daily deal is shown after the day ends (midnight UTC), so that nobody can copy it.")
    : "";

  const dealLine = Array.isArray(analysis.deal_line) && analysis.deal_line.length > 0;
  el.replayDeal.hidden = !dealLine;
  const fromThere =
    !won && typeof losing === "number" && Array.isArray(analysis.line_from_there) && analysis.line_from_there.length > 0;
  el.replayFromThere.hidden = !fromThere;
  if (fromThere) {
    el.replayFromThereLabel.textContent = interpolate(gettext("Show how to win from move %(n)s"), { n: losing + 1 });
  }
}

function losingMoveText(losing, moves) {
  const n = losing + 1;
  try {
    const before = replay(state.deal, moves.slice(0, losing));
    const [from, to] = moves[losing];
    return interpolate(
      gettext("Your game could no longer be won after move %(n)s (the %(card)s onto the %(target)s)."),
      { n, card: cardName(topCard(before[from])), target: cardName(topCard(before[to])) },
    );
  } catch {
    return interpolate(gettext("Your game could no longer be won after move %(n)s."), { n });
  }
}

function startReplay(kind) {
  const analysis = state.analysis;
  if (!analysis || !state.finished) return;
  let start;
  let line;
  let title;
  if (kind === "deal") {
    start = [];
    line = analysis.deal_line;
    title = gettext("A winning line from the deal");
  } else {
    const losing = analysis.first_losing_move;
    start = state.finalLine.slice(0, losing);
    line = analysis.line_from_there;
    title = interpolate(gettext("How to win from move %(n)s"), { n: losing + 1 });
  }
  if (!Array.isArray(line) || line.length === 0) return;
  let piles;
  try {
    replay(state.deal, [...start, ...line]); // the whole line must be legal before it is shown
    piles = replay(state.deal, start);
  } catch {
    el.analysisNote.hidden = false;
    el.analysisNote.textContent = gettext("That line does not fit this deal: it cannot be shown.");
    return;
  }
  stopReplay({ restore: false });
  const before = measure();
  state.replay = { kind, title, line: copyLine(line), index: 0, timer: 0, paused: false, done: false };
  state.piles = piles;
  clearSelection();
  render({ before });
  updateReplayBar();
  el.replayBar.hidden = false;
  el.replayBar.scrollIntoView({ behavior: reducedMotion ? "auto" : "smooth", block: "start" });
  // A longer first beat: the viewer sees the starting position and the first move lit.
  queueReplayStep(2 * REPLAY_STEP_MS);
}

function queueReplayStep(delay = REPLAY_STEP_MS) {
  const run = state.replay;
  if (!run) return;
  clearTimeout(run.timer);
  run.timer = setTimeout(replayStep, delay / state.replaySpeed);
}

function replayStep() {
  const run = state.replay;
  if (!run || run.paused || run.done) return;
  const move = run.line[run.index];
  let next;
  try {
    next = applyMove(state.piles, move);
  } catch {
    run.done = true;
    updateReplayBar();
    return;
  }
  const before = measure();
  const flight = { key: state.piles[move[0]][0], to: move[1] };
  state.piles = next;
  run.index += 1;
  run.done = run.index >= run.line.length;
  render({ before, flight });
  updateReplayBar();
  if (!run.done) queueReplayStep();
}

function updateReplayBar() {
  const run = state.replay;
  if (!run) return;
  el.replayTitle.textContent = run.title;
  el.replayProgress.textContent = run.done
    ? interpolate(
        ngettext("Done in %(total)s move: one pile left.", "Done in %(total)s moves: one pile left.", run.line.length),
        { total: run.line.length },
      )
    : interpolate(gettext("Move %(n)s of %(total)s"), { n: run.index, total: run.line.length });
  el.replayMeter.style.inlineSize = `${(100 * run.index) / run.line.length}%`;
  el.replayBar.dataset.state = run.done ? "done" : run.paused ? "paused" : "playing";
  el.replayPause.hidden = run.done;
  el.replaySpeed.hidden = run.done;
  el.replayPause.textContent = run.paused ? gettext("Resume") : gettext("Pause");
  el.replayPause.setAttribute("aria-pressed", String(run.paused));
  el.replaySpeed.textContent = interpolate(gettext("%(speed)s×"), { speed: state.replaySpeed });
  el.replayStop.textContent = run.done ? gettext("Back to your game") : gettext("Stop");
}

function toggleReplayPause() {
  const run = state.replay;
  if (!run || run.done) return;
  run.paused = !run.paused;
  if (run.paused) clearTimeout(run.timer);
  else queueReplayStep();
  updateReplayBar();
}

function cycleReplaySpeed() {
  const at = REPLAY_SPEEDS.indexOf(state.replaySpeed);
  state.replaySpeed = REPLAY_SPEEDS[(at + 1) % REPLAY_SPEEDS.length];
  if (state.replay && !state.replay.paused && !state.replay.done) queueReplayStep();
  updateReplayBar();
}

/** End a replay; with `restore`, the board shows the player's own final position again. */
function stopReplay({ restore }) {
  const run = state.replay;
  if (!run) return;
  clearTimeout(run.timer);
  state.replay = null;
  el.replayBar.hidden = true;
  if (restore) {
    const before = measure();
    state.piles = replay(state.deal, state.finalLine);
    render({ before });
  }
}

// ---------------------------------------------------------------- events

// While a move animates, piles slide under the pointer: a press on one pile and the release over
// another makes the browser send the click to the row. The pile pressed is the one the player meant.
let pressedPile = null;

const pileClicks = new WeakSet();

function wireEvents() {
  el.row.addEventListener("pointerdown", (event) => {
    pressedPile = event.target.closest('[data-testid="pile"]');
  });
  el.row.addEventListener("click", (event) => {
    const pile = event.target.closest('[data-testid="pile"]') ?? pressedPile;
    pressedPile = null;
    if (!pile?.isConnected) return;
    pileClicks.add(event);
    onPileClick(Number(pile.dataset.index));
  });
  // A tap anywhere off the piles cancels a pending choice between two targets.
  document.addEventListener("click", (event) => {
    if (state.selected === null || pileClicks.has(event)) return;
    clearSelection();
    render();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !el.hintConfirm.hidden) {
      hideConfirm({ refocus: true });
    } else if (event.key === "Escape" && state.selected !== null) {
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

  el.hint.addEventListener("click", onHintClick);
  el.hintYes.addEventListener("click", () => {
    state.hintAccepted = true;
    askHint();
  });
  el.hintNo.addEventListener("click", () => hideConfirm({ refocus: true }));
  el.hintClose.addEventListener("click", () => {
    el.hintMessage.hidden = true;
    if (state.hint) {
      state.hint = null;
      render();
    }
  });
  el.winnableToggle.addEventListener("click", () => setWinnableOn(!winnable.on));

  el.replayDeal.addEventListener("click", () => startReplay("deal"));
  el.replayFromThere.addEventListener("click", () => startReplay("from-there"));
  el.analysisRetry.addEventListener("click", loadAnalysis);
  el.replayPause.addEventListener("click", toggleReplayPause);
  el.replaySpeed.addEventListener("click", cycleReplaySpeed);
  el.replayStop.addEventListener("click", () => stopReplay({ restore: true }));
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
  state.hinted = !game.ranked && ((typeof game.hints === "number" && game.hints > 0) || readLocal(hintedKey) === "1");
  state.hintAccepted = state.hinted;
  winnable.on = readLocal(WINNABLE_KEY) === "on";
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
