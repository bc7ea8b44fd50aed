// The game page: wires the board view, the rules, the socket link and the clock to the page's HUD,
// hints, still-winnable indicator and result panel. The server is the referee; the rules here only
// let the board answer at once. main() runs the page; nothing runs on import.

import { announceMove, announceUndo } from "../announce.js";
import { ApiError, createGame, finishGame, getGame, requestHint } from "../api.js";
import { ask } from "../ask.js";
import { enableDrag } from "../board/drag.js";
import { BoardView } from "../board/view.js";
import { cardName } from "../cards.js";
import { GameClock, formatDuration } from "../clock.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { localDigits } from "../locale_format.js";
import { GameLink } from "../link.js";
import { dealLinkUrl, gamePageUrl } from "../nav.js";
import { applyMove, legalMoves, replay, score, tapPile, targetsFrom } from "../rules.js";
import { AfterGame } from "./game/after.js";
import { WinnableIndicator } from "./game/winnable.js";

const WIN_ACK_TIMEOUT_MS = 4000; // after a winning move, wait this long for the socket before POSTing
const SETTLE_TIMEOUT_MS = 6000; // a hint waits this long for the server to have the moves on screen
const FIRST_STATE_TIMEOUT_MS = 5000; // no game from the socket by then: load it over REST instead

function copyLine(moves) {
  return (moves || []).map((move) => [move[0], move[1]]);
}

function sameLine(a, b) {
  return a.length === b.length && a.every((move, i) => move[0] === b[i][0] && move[1] === b[i][1]);
}

function topCard(pile) {
  return pile[pile.length - 1];
}

function smoothScroll() {
  const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
  return reduced ? "auto" : "smooth";
}

/** Whether the player likely has a keyboard: a mouse or a trackpad (a fine pointer) comes with one. */
function keyboardAtHand() {
  return window.matchMedia?.("(any-pointer: fine)").matches ?? false;
}

function pageElements(page) {
  const byTestId = (id) => page.querySelector(`[data-testid="${id}"]`);
  const byRole = (role) => page.querySelector(`[data-role="${role}"]`);
  return {
    felt: byRole("felt"),
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
    playBar: byRole("play-bar"),
    unavailable: byTestId("unavailable"),
    unavailableReason: byRole("unavailable-reason"),
    ranked: byRole("ranked"),
    stuckActions: byRole("stuck-actions"),
    stuckUndo: byRole("stuck-undo"),
    stuckEnd: byRole("stuck-end"),
    resultTitle: byRole("result-title"),
    breakdown: byRole("breakdown"),
    resultNote: byRole("result-note"),
    nameOfferSlot: byRole("name-offer-slot"),
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
    shareBox: byRole("share-box"),
    share: byTestId("share"),
    shareDone: byRole("share-done"),
    shareText: byTestId("share-text"),
  };
}

/** A key in this tab's sessionStorage or the browser's localStorage; storage may be disabled. */
class Stored {
  constructor(storage, key) {
    this.storage = storage;
    this.key = key;
  }

  read() {
    try {
      return JSON.parse(this.storage().getItem(this.key) || "null");
    } catch {
      return null;
    }
  }

  write(value) {
    try {
      this.storage().setItem(this.key, JSON.stringify(value));
    } catch {
      /* storage full or disabled: the server's copy is still there */
    }
  }

  forget() {
    try {
      this.storage().removeItem(this.key);
    } catch {
      /* nothing to forget */
    }
  }
}

class GamePage {
  constructor(page) {
    this.page = page;
    this.gameId = Number(page.dataset.gameId);
    this.wsPath = page.dataset.wsPath;
    this.owner = page.dataset.owner || null; // the player's nickname when the game is someone else's
    this.linkState = "idle";
    this.el = pageElements(page);
    // A reload in this tab resumes the board's own line when the server has heard nothing since the
    // version it was based on: the line may hold moves the socket had not delivered yet.
    this.storedLine = new Stored(() => sessionStorage, `accordion:game:${this.gameId}`);
    this.storedHinted = new Stored(() => localStorage, `accordion:hinted:${this.gameId}`);

    this.game = null; // the game JSON from the server, kept up to date by the link
    this.deal = [];
    this.line = []; // the board's move line, [[from, to], ...]
    this.piles = []; // replay(deal, line): arrays of cards, bottom → top
    this.selected = null; // the chosen pile while its two targets are lit
    this.targets = [];
    this.finished = false;
    this.ending = false; // a finish is on its way to the server
    this.hint = null; // [from, to] while a suggested move is lit on the board
    this.hinting = false; // a hint request is on its way
    this.hintAccepted = false; // the player agreed that a hint makes this ranked game unranked
    this.hinted = false; // this game has had a hint: it is unranked for good
    this.after = null; // the result panel, once the game is over
    this.refusal = null; // why the server refused the socket, if it did
    this.link = null;
    this.clock = null;
    this.winTimer = 0;
    this.firstStateTimer = 0;
    this.loadingOverRest = false;
    this.pileTaps = new WeakSet(); // clicks the board took as taps on a pile

    this.view = new BoardView(this.el.felt, { interactive: true, onTap: (index, event) => this.onTap(index, event) });
    enableDrag(this.view.row, {
      targetsOf: (index) => (this.game && !this.finished && !this.ending ? targetsFrom(this.piles, index) : []),
      onDrop: (from, to) => {
        this.clearSelection();
        this.play([from, to]);
      },
    });
    this.winnable = new WinnableIndicator({
      gameId: this.gameId,
      elements: { box: this.el.winnableBox, toggle: this.el.winnableToggle, badge: this.el.winnable },
      available: () =>
        Boolean(this.game) && !this.game.ranked && this.game.hints_open && !this.finished && !this.ending,
      link: () => this.link,
      onRanked: () => this.setRanked(true),
    });
  }

  start() {
    this.wireEvents();
    this.setConnection("idle");
    this.startLink();
    // The socket's first `state` is the game; if it does not come (sockets blocked, the server
    // refused), REST is the way in, and play can go on locally.
    this.firstStateTimer = setTimeout(() => this.loadOverRest(), FIRST_STATE_TIMEOUT_MS);
  }

  // ---------------------------------------------------------------- the game arrives

  async loadOverRest() {
    clearTimeout(this.firstStateTimer);
    if (this.game || this.loadingOverRest) return;
    this.loadingOverRest = true;
    try {
      const game = await getGame(this.gameId);
      if (!this.game) this.begin(game);
    } catch (error) {
      if (!this.game) this.showUnavailable(this.refusal?.error || error.message);
    }
  }

  /** The game will not load: the board and its bars give way to why (the server's words for someone
   * else's game, else `fallback`) and where to go instead. */
  showUnavailable(fallback) {
    const el = this.el;
    el.felt.setAttribute("aria-busy", "false");
    el.felt.hidden = true;
    el.playBar.hidden = true;
    el.connection.hidden = true;
    if (!el.unavailableReason.textContent.trim()) el.unavailableReason.textContent = fallback;
    el.unavailable.hidden = false;
    el.unavailable.focus({ preventScroll: true });
  }

  /** The game, as the socket's first state or a GET answered: draw it and start playing. */
  begin(game) {
    clearTimeout(this.firstStateTimer);
    this.game = game;
    this.deal = game.deal;
    this.clock = new GameClock(game);
    this.hinted = !game.ranked && (game.hints > 0 || this.storedHinted.read() === true);
    this.hintAccepted = this.hinted;
    this.showMeta();
    this.el.felt.setAttribute("aria-busy", "false");

    if (game.status === "finished") {
      this.adoptLine(game.moves);
      this.showFinished(game.result);
      return;
    }
    const stored = this.storedLine.read();
    let line = game.moves;
    if (stored && stored.v === game.version && Array.isArray(stored.moves) && !sameLine(stored.moves, game.moves)) {
      try {
        replay(this.deal, stored.moves);
        line = stored.moves;
      } catch {
        line = game.moves;
      }
    }
    this.adoptLine(line);
    this.persist();
    this.render();
    this.clock.start((seconds) => {
      this.el.timer.textContent = formatDuration(seconds);
    });
    if (this.piles.length === 1) this.onLocalWin();
  }

  // ---------------------------------------------------------------- drawing

  marks() {
    const playing = !this.finished && !this.ending;
    const canMove = (index) => targetsFrom(this.piles, index).length > 0;
    return {
      movable: playing ? this.piles.map((_, index) => index).filter(canMove) : [],
      targets: this.targets,
      selected: this.selected,
      lit: this.hint && playing ? { move: this.hint, kind: "hint" } : null,
      waiting: this.ending,
    };
  }

  /** Redraw the board (`how`: "still", "slide" or a move to animate) and everything around it. */
  render(how = "still") {
    if (Array.isArray(how)) this.view.animateMove(how, this.piles, this.marks());
    else this.view.show(this.piles, this.marks(), { animate: how === "slide" });
    this.renderHud();
  }

  renderHud() {
    const el = this.el;
    const playing = !this.finished && !this.ending;
    const pileCount = this.piles.length;
    el.score.textContent = localDigits(this.game?.result?.score ?? score(pileCount));
    el.pilesCount.textContent = localDigits(pileCount);
    el.undo.disabled = !playing || this.line.length === 0;
    el.endGame.disabled = !playing;
    const hintsOpen = this.game?.hints_open ?? true;
    el.hint.disabled = !playing || this.hinting || pileCount <= 1 || !hintsOpen;
    // A practice game of today's daily deal: its winning lines stay hidden until the day is over.
    el.hint.title = hintsOpen ? "" : gettext("No hints on a practice game of a daily deal before its day is over (UTC).");
    el.hint.classList.toggle("is-busy", this.hinting);
    el.hint.setAttribute("aria-busy", String(this.hinting));
    this.winnable.update();

    const stuck = playing && pileCount > 1 && legalMoves(this.piles).length === 0;
    el.stuckActions.hidden = !stuck;
    el.stuckUndo.hidden = this.line.length === 0;
    this.page.classList.toggle("is-stuck", stuck);
    if (this.finished) {
      this.setStatus(""); // the result panel says it all
    } else if (this.ending) {
      this.setStatus(gettext("Sending your game to the server…"));
    } else if (stuck) {
      this.setStatus(gettext("No more moves"));
    } else if (this.selected !== null && keyboardAtHand()) {
      this.setStatus(
        gettext("Two places to go: press 1 for the neighbour or 3 for the pile three places left, or click the lit pile. Escape cancels."),
      );
    } else if (this.selected !== null) {
      this.setStatus(gettext("Two places to go: tap the lit pile to move onto, or tap anywhere else to cancel."));
    } else {
      this.setStatus(gettext("Tap a bright pile to move it."));
    }
  }

  setStatus(text) {
    if (this.el.status.textContent !== text) this.el.status.textContent = text;
  }

  showMeta() {
    const { el, game } = this;
    // After a hint the chip says "Unranked" in every mode: the game is off the leaderboards for good.
    const unranked = this.hinted && !game.ranked;
    el.ranked.hidden = game.mode !== "daily" && !unranked;
    if (unranked) el.ranked.textContent = gettext("Unranked");
    else el.ranked.textContent = game.ranked ? gettext("Ranked") : gettext("Practice");
    el.ranked.classList.toggle("is-ranked", Boolean(game.ranked));
    el.ranked.classList.toggle("is-unranked", unranked);
    if (unranked) el.ranked.title = gettext("A hint was used: this game does not count on any leaderboard.");
    else if (game.practice_reason === "address_limit") {
      el.ranked.title = gettext("Practice game: the day's ranked attempts from your network are used up; an account a day old or more keeps a ranked attempt of its own.");
    } else el.ranked.removeAttribute("title");
    el.dealCodeBox.hidden = !game.deal_code;
    el.dealCode.textContent = game.deal_code || "";
  }

  setRanked(ranked) {
    this.game = { ...this.game, ranked };
    this.showMeta();
    this.winnable.update();
  }

  markHinted() {
    if (this.hinted) return;
    this.hinted = true;
    this.storedHinted.write(true);
  }

  /** The socket's state, shown as offline whatever the socket says while the browser is offline. */
  setConnection(linkState) {
    this.linkState = linkState;
    this.showConnection();
  }

  showConnection() {
    const shown = navigator.onLine === false && this.linkState !== "idle" ? "offline" : this.linkState;
    const labels = {
      connecting: gettext("Connecting…"),
      syncing: gettext("Connecting…"),
      live: gettext("Live"),
      offline: gettext("Offline: keep playing, your moves are sent when the connection is back"),
      refused: this.refusal?.error
        ? interpolate(gettext("No live connection (%(reason)s): keep playing, the game is saved when it ends"), {
            reason: this.refusal.error,
          })
        : gettext("No live connection: keep playing, the game is saved when it ends"),
    };
    const el = this.el.connection;
    el.dataset.state = shown;
    el.textContent = labels[shown] ?? "";
    el.hidden = !labels[shown];
  }

  // ---------------------------------------------------------------- play

  adoptLine(moves) {
    this.line = copyLine(moves);
    this.piles = replay(this.deal, this.line);
    this.clearSelection();
    this.hint = null;
  }

  clearSelection() {
    this.selected = null;
    this.targets = [];
  }

  /** The board's line changed here: keep it for a reload, drop advice that no longer fits. */
  changedHere() {
    this.clearSelection();
    this.dismissAdvice();
    this.persist();
  }

  persist() {
    if (this.finished) return;
    this.storedLine.write({ v: this.link?.version ?? this.game?.version ?? null, moves: this.line });
  }

  play(move) {
    let next;
    try {
      next = applyMove(this.piles, move);
    } catch (error) {
      this.setStatus(error.message);
      return;
    }
    announceMove(this.piles, move, next.length);
    this.piles = next;
    this.line = [...this.line, [move[0], move[1]]];
    this.changedHere();
    this.link?.sendMove(move);
    this.render(move);
    if (this.piles.length === 1) this.onLocalWin();
  }

  /** Take back `count` moves (1 for Undo, more for a hint's "undo N moves"). */
  undo(count = 1) {
    if (this.finished || this.ending) return false;
    const steps = Math.min(count, this.line.length);
    if (steps <= 0) return false;
    this.line = this.line.slice(0, this.line.length - steps);
    this.piles = replay(this.deal, this.line);
    this.changedHere();
    for (let i = 0; i < steps; i += 1) this.link?.sendUndo();
    this.render("slide");
    announceUndo(this.piles.length);
    return true;
  }

  // Keyboard play without a mouse: U undoes, 1 and 3 pick the neighbour or the pile three places left
  // while a pile's two targets are lit, N starts a new game once this one is over.
  onShortcut(event) {
    const key = event.key.toLowerCase();
    if (key === "u") {
      this.undo();
    } else if ((key === "1" || key === "3") && this.selected !== null) {
      const target = this.selected - Number(key);
      if (!this.targets.includes(target)) return;
      const from = this.selected;
      this.clearSelection();
      this.play([from, target]);
    } else if (key === "n" && this.finished) {
      this.startAnother("new", undefined, this.el.newGame);
    } else {
      return;
    }
    event.preventDefault();
  }

  onTap(index, event) {
    this.pileTaps.add(event);
    if (this.finished || this.ending || !this.game) return;
    const tap = tapPile(this.piles, { index, selected: this.selected, targets: this.targets });
    this.selected = tap.selected;
    this.targets = tap.targets;
    if (tap.move) {
      this.play(tap.move);
    } else if (tap.stuck) {
      this.view.shake(index);
      this.setStatus(
        gettext("That pile cannot move: its top card matches neither the pile to its left nor the one three places left."),
      );
    } else {
      this.render(); // a pile picked, or a pick dropped by tapping anything else
    }
  }

  // ---------------------------------------------------------------- the end

  // A win is finished by the socket's ack when the link is live; otherwise (or if the ack is slow)
  // the whole line goes to POST /finish.
  onLocalWin() {
    this.ending = true;
    this.render();
    if (this.link?.live) {
      clearTimeout(this.winTimer);
      this.winTimer = setTimeout(() => this.finishByPost(), WIN_ACK_TIMEOUT_MS);
    } else {
      this.finishByPost();
    }
  }

  async endGame({ confirmFirst }) {
    if (this.finished || this.ending) return;
    if (confirmFirst) {
      const sure = await ask({
        question: gettext("End this game now? It is scored as it stands."),
        yes: gettext("End game"),
        no: gettext("Keep playing"),
      });
      if (!sure || this.finished || this.ending) return;
    }
    await this.finishByPost();
  }

  async finishByPost() {
    if (this.finished) return;
    clearTimeout(this.winTimer);
    this.ending = true;
    this.clearSelection();
    this.stopLink();
    this.render();
    try {
      const game = await finishGame(this.gameId, this.line);
      this.game = game;
      this.showFinished(game.result, game.moves);
    } catch (error) {
      await this.recoverFromFailedFinish(error);
    }
  }

  async recoverFromFailedFinish(error) {
    // Perhaps it was finished already (the socket's ack raced us): then show that result.
    try {
      const game = await getGame(this.gameId);
      this.game = game;
      if (game.status === "finished") {
        this.showFinished(game.result, game.moves);
        return;
      }
      if (error instanceof ApiError && error.code === "illegal_move") this.adoptLine(game.moves);
    } catch {
      /* still unreachable: keep the local line and let the player try again */
    }
    this.ending = false;
    this.render();
    this.setStatus(error.message || gettext("The game could not be ended. Please try again."));
    this.startLink();
  }

  /** The game is over (`moves`: the line the server stored, when known): show the result read-only. */
  showFinished(result, moves = null) {
    if (this.finished) return;
    clearTimeout(this.winTimer);
    this.stopLink();
    this.winnable.stop();
    this.storedLine.forget();
    if (moves) this.adoptLine(moves);
    this.finished = true;
    this.ending = false;
    this.game = { ...this.game, status: "finished", result };
    this.clearSelection();
    this.hideConfirm();
    this.dismissAdvice();
    this.el.hintMessage.hidden = true;
    this.clock?.stop();
    if (typeof result?.seconds === "number") this.el.timer.textContent = formatDuration(result.seconds);
    // The finished board is only to look at: a read-only view, which the replays draw on too.
    this.view = new BoardView(this.el.felt, { interactive: false });
    this.view.show(this.piles);
    this.renderHud();
    const after = (this.after = new AfterGame({
      el: this.el,
      gameId: this.gameId,
      game: this.game,
      deal: this.deal,
      finalLine: copyLine(this.line),
      view: this.view,
      hinted: this.hinted,
      owner: this.owner,
      startAnother: (mode, code, button) => this.startAnother(mode, code, button),
    }));
    after.show(result);
  }

  async startAnother(mode, code, button) {
    button.disabled = true;
    try {
      const game = await createGame(mode, code);
      window.location.assign(gamePageUrl(game.id));
    } catch (error) {
      button.disabled = false;
      this.setStatus(error.message);
    }
  }

  // ---------------------------------------------------------------- the socket

  startLink() {
    this.stopLink();
    if (this.finished) return;
    this.link = new GameLink({
      wsPath: this.wsPath,
      currentLine: () => this.line,
      onGame: (game) => this.onServerGame(game),
      onChange: (change) => this.onServerChange(change),
      onAdopt: (line) => this.onAdopt(line),
      onSettled: () => {
        this.persist();
        this.winnable.schedule();
      },
      onReject: (reject) => this.onReject(reject),
      onRefused: (refusal) => this.onRefused(refusal),
      onCrowd: (watchers) => this.showCrowd(watchers),
      onState: (state) => {
        this.setConnection(state);
        if (state === "offline" && !this.game) this.loadOverRest(); // no socket yet: REST, then play locally
      },
    });
    this.link.start();
  }

  stopLink() {
    const link = this.link;
    this.link = null;
    link?.stop();
  }

  /** A `state`: the first one is the game; later ones keep the page's copy up to date. */
  onServerGame(game) {
    if (!this.game) {
      this.begin(game);
      return;
    }
    this.game = game;
    if (game.status === "finished") {
      this.showFinished(game.result, game.moves);
      return;
    }
    if (game.hints > 0 && !game.ranked) this.markHinted();
    this.showMeta();
  }

  onServerChange(change) {
    if (change.kind === "hint") {
      this.markHinted();
      this.setRanked(false);
    } else if (change.kind === "finish") {
      this.showFinished(change.result, this.link?.serverLine ?? null);
      // Finished in another tab: an event carries no rank (one encoding serves every listener).
      if (this.game.ranked) this.loadRank();
    }
  }

  /** The day's rank of a ranked game finished elsewhere, from the game itself. */
  async loadRank() {
    try {
      const game = await getGame(this.gameId);
      if (typeof game.result?.rank === "number") this.after?.drawNote(game.result);
    } catch {
      /* the result stands without its rank; a reload shows it */
    }
  }

  /** Someone else changed the line (another tab, a refused move): the board takes the server's. */
  onAdopt(line) {
    if (this.finished || this.ending) return;
    this.adoptLine(line);
    this.dismissAdvice();
    this.persist();
    this.render("slide");
  }

  onReject(reject) {
    this.setStatus(
      interpolate(gettext("The server did not accept that (%(reason)s). Reloading the game…"), {
        reason: reject.error || reject.code || "?",
      }),
    );
  }

  onRefused(refusal) {
    this.refusal = refusal;
    if (this.game) {
      this.setConnection("refused"); // with the reason now
    } else {
      this.el.connection.hidden = true; // no game yet: it loads over REST, or the page says why not
      this.loadOverRest(); // perhaps someone else's finished game, which anyone may see
    }
  }

  // ---------------------------------------------------------------- hints

  showAdvice(text, kind, undoCount = 0) {
    const el = this.el;
    el.hintText.textContent = text;
    el.hintMessage.dataset.kind = kind;
    el.hintMessage.hidden = false;
    el.hintUndo.hidden = undoCount === 0;
    el.hintUndo.onclick = null;
    if (undoCount > 0) {
      el.hintUndo.textContent = interpolate(ngettext("Undo %(count)s move", "Undo %(count)s moves", undoCount), {
        count: undoCount,
      });
      el.hintUndo.onclick = () => {
        if (this.undo(undoCount)) {
          this.showAdvice(
            gettext("Back on track: this position can still be won. Ask for another hint whenever you like."),
            "ok",
          );
        }
      };
    }
  }

  /** The board changed: a lit move or an "undo N" offer no longer fits it. */
  dismissAdvice() {
    this.hint = null;
    if (this.hinting) return; // the answer on its way will say the position moved on
    this.el.hintMessage.hidden = true;
    this.el.hintUndo.onclick = null;
  }

  showConfirm() {
    this.el.hintConfirm.hidden = false;
    this.el.hintYes.focus({ preventScroll: true });
    this.el.hintConfirm.scrollIntoView({ behavior: smoothScroll(), block: "nearest" });
  }

  hideConfirm({ refocus = false } = {}) {
    if (this.el.hintConfirm.hidden) return;
    this.el.hintConfirm.hidden = true;
    if (refocus && !this.el.hint.disabled) this.el.hint.focus({ preventScroll: true });
  }

  onHintClick() {
    if (this.finished || this.ending || this.hinting) return;
    if (this.game?.ranked && !this.hintAccepted) {
      this.showConfirm();
      return;
    }
    this.askHint();
  }

  /**
   * Ask the server for advice about the position on screen. The board plays moves at once and sends
   * them over the socket, so first wait until the server holds every one of them; an answer that
   * comes back after the player moved on is about an old position and is not shown.
   */
  async askHint() {
    this.hideConfirm();
    this.hinting = true;
    this.render();
    this.showAdvice(gettext("Looking for a good move…"), "busy");
    try {
      for (let attempt = 0; ; attempt += 1) {
        const ready = this.link ? await this.link.whenSettled(SETTLE_TIMEOUT_MS) : false;
        if (this.finished || this.ending) return;
        if (!ready) {
          this.showAdvice(
            gettext("Hints need a live connection: your latest moves have not reached the server yet. Try again in a moment."),
            "warn",
          );
          return;
        }
        const asked = copyLine(this.line);
        let answer;
        try {
          answer = await requestHint(this.gameId, this.hintAccepted || !this.game.ranked);
        } catch (error) {
          if (error instanceof ApiError && error.code === "game_changed" && attempt === 0) {
            this.link?.catchUp(); // hear what changed, then ask once more
            continue;
          }
          throw error;
        }
        this.takeHint(answer, asked);
        return;
      }
    } catch (error) {
      this.hintFailed(error);
    } finally {
      this.hinting = false;
      if (this.finished) {
        this.el.hintMessage.hidden = true; // the result panel says it all
      } else {
        this.render();
        // On a phone the lit piles may be below the fold: bring the pile to move into view.
        if (this.hint) this.view.reveal(this.hint[0], { smooth: smoothScroll() === "smooth" });
      }
    }
  }

  takeHint(answer, asked) {
    if (typeof answer.hints === "number" && answer.hints > 0 && !answer.ranked) this.markHinted();
    if (typeof answer.ranked === "boolean") this.setRanked(answer.ranked);
    if (this.finished || this.ending) return;
    if (!sameLine(asked, this.line)) {
      this.hint = null;
      this.showAdvice(gettext("You moved while the hint was on its way: ask again for this position."), "warn");
      return;
    }
    switch (answer.status) {
      case "move": {
        const [from, to] = answer.move || [];
        if (!this.piles[from] || !this.piles[to]) {
          this.showAdvice(gettext("The hint did not fit the board. Please ask again."), "warn");
          return;
        }
        this.hint = [from, to];
        this.showAdvice(
          interpolate(gettext("Try moving the %(card)s onto the %(target)s: the game can still be won from there."), {
            card: cardName(topCard(this.piles[from])),
            target: cardName(topCard(this.piles[to])),
          }),
          "move",
        );
        break;
      }
      case "undo": {
        const count = Math.max(1, Number(answer.undo) || 1);
        this.hint = null;
        this.showAdvice(
          interpolate(
            ngettext(
              "This position can no longer be won: undo %(count)s move.",
              "This position can no longer be won: undo %(count)s moves.",
              count,
            ),
            { count },
          ),
          "undo",
          Math.min(count, this.line.length),
        );
        break;
      }
      case "won":
        this.showAdvice(gettext("Nothing left to advise: the game is won."), "ok");
        break;
      case "lost":
        this.showAdvice(
          gettext("No one could win this deal: no line of moves leaves a single pile. Remove as many piles as you can."),
          "warn",
        );
        break;
      default:
        this.showAdvice(gettext("The solver found no answer in time. This hint was not counted: try again."), "warn");
    }
  }

  hintFailed(error) {
    const code = error instanceof ApiError ? error.code : "";
    if (code === "confirm_unranked") {
      // The server counts this game as ranked after all: ask the player first.
      this.hintAccepted = false;
      this.setRanked(true);
      this.el.hintMessage.hidden = true;
      this.showConfirm();
      return;
    }
    if (code === "game_finished") {
      this.el.hintMessage.hidden = true;
      this.loadFinished();
      return;
    }
    const messages = {
      busy: gettext("The solver is busy right now. Try again in a moment."),
      rate_limited: gettext("That is a lot of hints for one minute. Wait a little, then try again."),
      game_changed: gettext("The game changed while the hint was worked out. Try again."),
      network: gettext("The server cannot be reached. Check your connection and try again."),
    };
    this.showAdvice(messages[code] || error.message || gettext("No hint this time. Please try again."), "warn");
  }

  /** The server says the game is over, with no result at hand: read it. */
  async loadFinished() {
    try {
      const game = await getGame(this.gameId);
      this.game = game;
      if (game.status === "finished") this.showFinished(game.result, game.moves);
    } catch {
      /* the link's events will bring the finish */
    }
  }

  // ---------------------------------------------------------------- events

  wireEvents() {
    const el = this.el;
    // A tap anywhere off the piles cancels a pending choice between two targets.
    document.addEventListener("click", (event) => {
      if (this.selected === null || this.pileTaps.has(event)) return;
      this.clearSelection();
      this.render();
    });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !el.hintConfirm.hidden) {
        this.hideConfirm({ refocus: true });
      } else if (event.key === "Escape" && this.selected !== null) {
        this.clearSelection();
        this.render();
      } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "z" && !event.shiftKey) {
        if (event.target.closest?.("input, textarea")) return;
        event.preventDefault();
        this.undo();
      } else if (!event.ctrlKey && !event.metaKey && !event.altKey && !event.target.closest?.("input, textarea")) {
        this.onShortcut(event);
      }
    });
    el.undo.addEventListener("click", () => this.undo());
    el.stuckUndo.addEventListener("click", () => this.undo());
    el.endGame.addEventListener("click", () => this.endGame({ confirmFirst: true }));
    // With no move left there is nothing to lose: end at once.
    el.stuckEnd.addEventListener("click", () => this.endGame({ confirmFirst: false }));
    el.newGame.addEventListener("click", () => this.startAnother("new", undefined, el.newGame));
    el.copyLink.addEventListener("click", () => this.copyDealLink());
    window.addEventListener("online", () => this.showConnection());
    window.addEventListener("offline", () => this.showConnection());

    el.hint.addEventListener("click", () => this.onHintClick());
    el.hintYes.addEventListener("click", () => {
      this.hintAccepted = true;
      this.askHint();
    });
    el.hintNo.addEventListener("click", () => this.hideConfirm({ refocus: true }));
    el.hintClose.addEventListener("click", () => {
      el.hintMessage.hidden = true;
      if (this.hint) {
        this.hint = null;
        this.render();
      }
    });
  }

  async copyDealLink() {
    const code = this.game?.deal_code;
    if (!code) return;
    const url = dealLinkUrl(code);
    const original = gettext("Copy link");
    try {
      await navigator.clipboard.writeText(url);
      this.el.copyLink.textContent = gettext("Link copied!");
    } catch {
      window.prompt(gettext("Copy this link and send it to a friend:"), url);
      return;
    }
    setTimeout(() => {
      this.el.copyLink.textContent = original;
    }, 2000);
  }

  /** How many are watching this game live (the game socket's `crowd`); hidden when nobody is. */
  showCrowd(watchers) {
    const crowd = this.page.querySelector('[data-testid="crowd"]');
    crowd.hidden = watchers === 0;
    crowd.textContent = interpolate(ngettext("%(count)s watching", "%(count)s watching", watchers), { count: watchers });
  }
}

export function main() {
  new GamePage(document.getElementById("board-page")).start();
}

main();
