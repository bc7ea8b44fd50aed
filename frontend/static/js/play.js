// The player's own board, wherever it is played: the game page and a racer's board on the race page.
// PlayController wires the board view, drag, the keyboard, the rules, the player's link (link.js) and
// the clock: taps and drags play moves at once, U, Ctrl+Z and the Undo button take them back, a reload
// in this tab resumes the board's own line, a win is finished by the socket's ack or POST /finish, and
// End game asks first. The server is the referee; the rules here only let the board answer at once.
// The page adds what is its own (hints, the result panel, the race's controls) through `page` hooks.

import { announceMove, announceUndo } from "./announce.js";
import { ApiError, finishGame, getGame } from "./api.js";
import { ask } from "./ask.js";
import { enableDrag } from "./board/drag.js";
import { BoardView } from "./board/view.js";
import { GameClock, formatDuration } from "./clock.js";
import { gettext, interpolate } from "./i18n.js";
import { byTestIds } from "./dom.js";
import { copyLine, sameLine } from "./line.js";
import { GameLink } from "./link.js";
import { localDigits } from "./locale_format.js";
import { applyMove, legalMoves, replay, score, tapPile, targetsFrom } from "./rules.js";

/** The racer's or participant's own board on a race or arena page, as PlayController takes it. */
export function ownBoardElements(root) {
  return byTestIds(root, {
    felt: "my-board",
    timer: "timer",
    score: "score",
    pilesCount: "piles-count",
    undo: "undo",
    endGame: "end-game",
    status: "status",
  });
}

const WIN_ACK_TIMEOUT_MS = 4000; // after a winning move, wait this long for the socket before POSTing

/** A key in this tab's sessionStorage or the browser's localStorage; storage may be disabled. */
export class Stored {
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

/** Whether the player likely has a keyboard: a mouse or a trackpad (a fine pointer) comes with one. */
function keyboardAtHand() {
  return window.matchMedia?.("(any-pointer: fine)").matches ?? false;
}

/** The key as the shortcuts name it ("u", "z", "1"…). A Latin layout's own letter or digit is taken as
 * typed (Z on an AZERTY keyboard is Z); another script's (a Persian layout sends "ع" for U and "۱" for 1)
 * is read from the key's place on the keyboard. */
function shortcutKey(event) {
  const key = event.key.toLowerCase();
  if (/^[a-z0-9]$/.test(key)) return key;
  const place = /^(?:Key([A-Z])|Digit(\d)|Numpad(\d))$/.exec(event.code ?? "");
  return place ? (place[1] ?? place[2] ?? place[3]).toLowerCase() : key;
}

function typing(event) {
  return Boolean(event.target.closest?.("input, textarea, select"));
}

export class PlayController {
  /**
   * @param {object} options
   * @param {object} options.el  felt, timer, score, pilesCount, undo, endGame, status
   * @param {number} options.gameId
   * @param {string} options.wsPath  the game's player socket
   * @param {object} options.words  what this page says: `finished` and `stuck` (the status line),
   *        `endQuestion` (End game's question)
   * @param {object} [options.page]  the page's part; every hook is optional:
   *   begin(game) — the game arrived, before it is drawn
   *   lit() → {move, kind} | null — a move to light on the board (a hint)
   *   rendered() — the board and the shared HUD were drawn: draw the page's own parts
   *   lineChanged() — the board's line changed: advice about the old position no longer fits
   *   finished() — the game is over and drawn read-only
   *   game(game), change(change), settled(), crowd(watchers), refused(refusal), connection(state) — the link's news
   *   shortcut(key) → true when the page took the key
   */
  constructor({ el, gameId, wsPath, words, page = {} }) {
    this.el = el;
    this.gameId = gameId;
    this.wsPath = wsPath;
    this.words = words;
    this.page = page;
    // A reload in this tab resumes the board's own line when the server has heard nothing since the
    // version it was based on: the line may hold moves the socket had not delivered yet.
    this.storedLine = new Stored(() => sessionStorage, `accordion:game:${gameId}`);
    this.game = null; // the game JSON from the server, kept up to date by the link
    this.deal = [];
    this.line = []; // the board's move line, [[from, to], ...]
    this.piles = []; // replay(deal, line): arrays of cards, bottom → top
    this.selected = null; // the chosen pile while its two targets are lit
    this.targets = [];
    this.finished = false;
    this.ending = false; // a finish is on its way to the server
    this.link = null;
    this.clock = null;
    this.winTimer = 0;
    this.pileTaps = new WeakSet(); // clicks the board took as taps on a pile
    this.listening = new AbortController();

    this.view = new BoardView(el.felt, { interactive: true, onTap: (index, event) => this.onTap(index, event) });
    enableDrag(this.view.row, {
      targetsOf: (index) => (this.game && this.playing ? targetsFrom(this.piles, index) : []),
      onDrop: (from, to) => {
        this.clearSelection();
        this.play([from, to]);
      },
    });
  }

  get playing() {
    return !this.finished && !this.ending;
  }

  get stuck() {
    return this.playing && this.piles.length > 1 && legalMoves(this.piles).length === 0;
  }

  /** Listen to the player and the server; with `game` (a race's start brings it) play it at once. */
  start({ game = null } = {}) {
    const signal = this.listening.signal;
    // A tap anywhere off the piles cancels a pending choice between two targets.
    document.addEventListener(
      "click",
      (event) => {
        if (this.selected === null || this.pileTaps.has(event)) return;
        this.clearSelection();
        this.render();
      },
      { signal },
    );
    document.addEventListener("keydown", (event) => this.onKey(event), { signal });
    this.el.undo.addEventListener("click", () => this.undo(), { signal });
    this.el.endGame.addEventListener("click", () => this.endGame({ confirmFirst: true }), { signal });
    if (game) this.begin(game);
    this.startLink();
  }

  /** Stop listening and playing (the race moved on to another round). */
  stop() {
    this.listening.abort();
    this.stopLink();
    this.clock?.stop();
    clearTimeout(this.winTimer);
  }

  /** The game, as the socket's first state, a GET or a race's start: draw it and start playing. */
  begin(game) {
    this.game = game;
    this.deal = game.deal;
    this.clock = new GameClock(game);
    this.page.begin?.(game);
    this.el.felt.setAttribute("aria-busy", "false");
    if (game.status === "finished") {
      this.adoptLine(game.moves);
      this.showFinished(game.result);
      return;
    }
    this.adoptLine(this.resumedLine(game));
    this.persist();
    this.render();
    this.clock.start((seconds) => {
      this.el.timer.textContent = formatDuration(seconds);
    });
    if (this.piles.length === 1) this.onLocalWin();
  }

  /** The line this tab stored for `game`, when the server has heard nothing since; else the server's. */
  resumedLine(game) {
    const stored = this.storedLine.read();
    if (!stored || stored.v !== game.version || !Array.isArray(stored.moves) || sameLine(stored.moves, game.moves)) {
      return game.moves;
    }
    try {
      replay(this.deal, stored.moves);
      return stored.moves;
    } catch {
      return game.moves;
    }
  }

  // ---------------------------------------------------------------- drawing

  marks() {
    const playing = this.playing;
    const canMove = (index) => targetsFrom(this.piles, index).length > 0;
    return {
      movable: playing ? this.piles.map((_, index) => index).filter(canMove) : [],
      targets: this.targets,
      selected: this.selected,
      lit: playing ? (this.page.lit?.() ?? null) : null,
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
    const pileCount = this.piles.length;
    el.score.textContent = localDigits(this.game?.result?.score ?? score(pileCount));
    el.pilesCount.textContent = localDigits(pileCount);
    el.undo.disabled = !this.playing || this.line.length === 0;
    el.endGame.disabled = !this.playing;
    if (this.finished) {
      this.setStatus(this.words.finished);
    } else if (this.ending) {
      this.setStatus(gettext("Sending your game to the server…"));
    } else if (this.stuck) {
      this.setStatus(this.words.stuck);
    } else if (this.selected !== null && keyboardAtHand()) {
      this.setStatus(
        gettext("Two places to go: press 1 for the neighbour or 3 for the pile three places left, or click the lit pile. Escape cancels."),
      );
    } else if (this.selected !== null) {
      this.setStatus(gettext("Two places to go: tap the lit pile to move onto, or tap anywhere else to cancel."));
    } else {
      this.setStatus(gettext("Tap a bright pile to move it."));
    }
    this.page.rendered?.();
  }

  setStatus(text) {
    if (this.el.status.textContent !== text) this.el.status.textContent = text;
  }

  // ---------------------------------------------------------------- play

  adoptLine(moves) {
    this.line = copyLine(moves);
    this.piles = replay(this.deal, this.line);
    this.clearSelection();
    this.page.lineChanged?.();
  }

  clearSelection() {
    this.selected = null;
    this.targets = [];
  }

  /** Keep the board's line for a reload in this tab. */
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

  /** Take back `count` moves (1 for Undo, more for a hint's "undo N moves"); false when nothing was. */
  undo(count = 1) {
    if (!this.playing) return false;
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

  changedHere() {
    this.clearSelection();
    this.page.lineChanged?.();
    this.persist();
  }

  onTap(index, event) {
    this.pileTaps.add(event);
    if (!this.playing || !this.game) return;
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

  // Keyboard play without a mouse (the board view moves the focus between piles): U or Ctrl+Z undoes,
  // 1 and 3 pick the neighbour or the pile three places left while a pile's two targets are lit,
  // Escape drops the pick. A page that took a key first (preventDefault) has it.
  onKey(event) {
    if (event.defaultPrevented || typing(event)) return;
    const key = shortcutKey(event);
    if (event.key === "Escape" && this.selected !== null) {
      this.clearSelection();
      this.render();
    } else if ((event.ctrlKey || event.metaKey) && key === "z" && !event.shiftKey) {
      event.preventDefault();
      this.undo();
    } else if (!event.ctrlKey && !event.metaKey && !event.altKey) {
      this.onShortcut(event, key);
    }
  }

  onShortcut(event, key) {
    if (key === "u") {
      this.undo();
    } else if ((key === "1" || key === "3") && this.selected !== null) {
      const target = this.selected - Number(key);
      if (!this.targets.includes(target)) return;
      const from = this.selected;
      this.clearSelection();
      this.play([from, target]);
    } else if (!this.page.shortcut?.(key)) {
      return;
    }
    event.preventDefault();
  }

  // ---------------------------------------------------------------- the end

  // A win is finished by the socket's ack when the link is live; otherwise (or if the ack is slow)
  // the whole line goes to POST /finish.
  onLocalWin() {
    this.ending = true;
    this.render();
    clearTimeout(this.winTimer);
    if (this.link?.live) this.winTimer = setTimeout(() => this.finishByPost(), WIN_ACK_TIMEOUT_MS);
    else this.finishByPost();
  }

  async endGame({ confirmFirst }) {
    if (!this.playing) return;
    if (confirmFirst) {
      const sure = await ask({ question: this.words.endQuestion, yes: gettext("End game"), no: gettext("Keep playing") });
      if (!sure || !this.playing) return;
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

  /** The game is over (`moves`: the line the server stored, when known): show the result read-only. */
  showFinished(result, moves = null) {
    if (this.finished) return;
    clearTimeout(this.winTimer);
    this.stopLink();
    this.storedLine.forget();
    if (moves) this.adoptLine(moves);
    this.finished = true;
    this.ending = false;
    this.game = { ...this.game, status: "finished", result };
    this.clearSelection();
    this.clock?.stop();
    if (typeof result?.seconds === "number") this.el.timer.textContent = formatDuration(result.seconds);
    // The finished board is only to look at: a read-only view, which the replays draw on too.
    this.view = new BoardView(this.el.felt, { interactive: false });
    this.view.show(this.piles);
    this.renderHud();
    this.page.finished?.();
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
        this.page.settled?.();
      },
      onReject: (reject) => this.onReject(reject),
      onRefused: (refusal) => this.page.refused?.(refusal),
      onCrowd: (watchers) => this.page.crowd?.(watchers),
      onState: (state) => this.page.connection?.(state),
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
    if (game.status === "finished") this.showFinished(game.result, game.moves);
    else this.page.game?.(game);
  }

  onServerChange(change) {
    if (change.kind === "finish") this.showFinished(change.result, this.link?.serverLine ?? null);
    this.page.change?.(change);
  }

  /** Someone else changed the line (another tab, a refused move): the board takes the server's. */
  onAdopt(line) {
    if (!this.playing) return;
    this.adoptLine(line);
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
}
