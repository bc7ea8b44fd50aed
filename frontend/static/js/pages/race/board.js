// The racer's own board in a race: the game page's pieces (BoardView, the rules, GameLink on the
// normal player socket, GameClock), without hints: every move goes to the server, which verifies and
// stores it, and the room hears it from there. Ending the game posts the whole line to /finish, as
// the game page does. Nothing runs on import.

import { announceMove, announceUndo } from "../../announce.js";
import { finishGame, getGame } from "../../api.js";
import { ask } from "../../ask.js";
import { BoardView } from "../../board/view.js";
import { GameClock, formatDuration } from "../../clock.js";
import { gettext } from "../../i18n.js";
import { localDigits } from "../../locale_format.js";
import { GameLink } from "../../link.js";
import { applyMove, legalMoves, replay, score, tapPile, targetsFrom } from "../../rules.js";

const WIN_ACK_TIMEOUT_MS = 4000; // after a winning move, wait this long for the socket before POSTing

function copyLine(moves) {
  return (moves || []).map((move) => [move[0], move[1]]);
}

export class RacerBoard {
  /**
   * @param {object} el  the page's elements: felt, timer, score, pilesCount, undo, endGame, status
   * @param {object} game  the racer's game, as the room's `start` brings it (deal included)
   * @param {object} options
   * @param {(game: object) => void} [options.onFinished]  the server has the game's result
   */
  constructor(el, game, { onFinished = () => {} } = {}) {
    this.el = el;
    this.game = game;
    this.deal = game.deal;
    this.onFinished = onFinished;
    this.line = copyLine(game.moves);
    this.piles = replay(this.deal, this.line);
    this.selected = null;
    this.targets = [];
    this.finished = game.status === "finished";
    this.shown = false; // the finished board and result are on screen
    this.ending = false;
    this.winTimer = 0;
    this.link = null;
    this.clock = new GameClock(game);
    this.view = new BoardView(el.felt, { interactive: !this.finished, onTap: (index) => this.onTap(index) });
    this.onUndo = () => this.undo();
    this.onEnd = () => this.endGame();
  }

  start() {
    this.el.undo.addEventListener("click", this.onUndo);
    this.el.endGame.addEventListener("click", this.onEnd);
    if (this.finished) {
      this.showFinished(this.game);
      return;
    }
    this.clock.start((seconds) => {
      this.el.timer.textContent = formatDuration(seconds);
    });
    this.link = new GameLink({
      wsPath: this.game.ws,
      currentLine: () => this.line,
      onGame: (game) => {
        if (game.status === "finished") this.showFinished(game);
      },
      onChange: (change) => {
        if (change.kind === "finish") this.loadFinished();
      },
      onAdopt: (line) => this.adopt(line),
      onReject: (reject) => this.setStatus(reject.error || reject.code),
      onRefused: (refusal) => this.setStatus(refusal.error),
    });
    this.link.start();
    this.render();
  }

  stop() {
    this.link?.stop();
    this.link = null;
    this.clock.stop();
    clearTimeout(this.winTimer);
    this.el.undo.removeEventListener("click", this.onUndo);
    this.el.endGame.removeEventListener("click", this.onEnd);
  }

  // ---- drawing ----

  render(move = null) {
    const playing = !this.finished && !this.ending;
    const marks = {
      movable: playing ? this.piles.map((_, i) => i).filter((i) => targetsFrom(this.piles, i).length > 0) : [],
      targets: this.targets,
      selected: this.selected,
      waiting: this.ending,
    };
    if (move) this.view.animateMove(move, this.piles, marks);
    else this.view.show(this.piles, marks);
    this.el.score.textContent = localDigits(this.game.result?.score ?? score(this.piles.length));
    this.el.pilesCount.textContent = localDigits(this.piles.length);
    this.el.undo.disabled = !playing || this.line.length === 0;
    this.el.endGame.disabled = !playing;
    if (this.finished) this.setStatus(gettext("Your race is run: the standings come when everyone is done."));
    else if (this.ending) this.setStatus(gettext("Sending your game to the server…"));
    else if (this.piles.length > 1 && legalMoves(this.piles).length === 0)
      this.setStatus(gettext("No more moves: undo, or end your game."));
    else if (this.selected !== null) this.setStatus(gettext("Two places to go: tap the lit pile to move onto."));
    else this.setStatus(gettext("Tap a bright pile to move it."));
  }

  setStatus(text) {
    if (this.el.status.textContent !== text) this.el.status.textContent = text;
  }

  // ---- play ----

  onTap(index) {
    if (this.finished || this.ending) return;
    const tap = tapPile(this.piles, { index, selected: this.selected, targets: this.targets });
    this.selected = tap.selected;
    this.targets = tap.targets;
    if (tap.move) this.play(tap.move);
    else if (tap.stuck) this.view.shake(index);
    else this.render();
  }

  play(move) {
    const next = applyMove(this.piles, move);
    announceMove(this.piles, move, next.length);
    this.piles = next;
    this.line = [...this.line, [move[0], move[1]]];
    this.link?.sendMove(move);
    this.render(move);
    if (this.piles.length === 1) this.onLocalWin();
  }

  undo() {
    if (this.finished || this.ending || this.line.length === 0) return;
    this.line = this.line.slice(0, -1);
    this.piles = replay(this.deal, this.line);
    this.selected = null;
    this.targets = [];
    this.link?.sendUndo();
    this.render();
    announceUndo(this.piles.length);
  }

  adopt(line) {
    if (this.finished || this.ending) return;
    this.line = copyLine(line);
    this.piles = replay(this.deal, this.line);
    this.selected = null;
    this.targets = [];
    this.render();
  }

  // ---- the end ----

  // A live win is finished by the socket's ack; the finish event then brings the result.
  onLocalWin() {
    this.ending = true;
    this.render();
    clearTimeout(this.winTimer);
    this.winTimer = setTimeout(() => this.finishByPost(), this.link?.live ? WIN_ACK_TIMEOUT_MS : 0);
  }

  async endGame() {
    if (this.finished || this.ending) return;
    const sure = await ask({
      question: gettext("End your game now? It counts in the race as it stands."),
      yes: gettext("End game"),
      no: gettext("Keep playing"),
    });
    if (!sure || this.finished || this.ending) return;
    this.finishByPost();
  }

  async finishByPost() {
    if (this.finished) return;
    this.ending = true;
    this.render();
    try {
      this.showFinished(await finishGame(this.game.id, this.line));
    } catch (error) {
      this.ending = false;
      this.setStatus(error.message);
      this.render();
    }
  }

  async loadFinished() {
    try {
      const game = await getGame(this.game.id);
      if (game.status === "finished") this.showFinished(game);
    } catch {
      /* the room's standings still come */
    }
  }

  showFinished(game) {
    if (this.shown) return;
    this.shown = true;
    clearTimeout(this.winTimer);
    this.link?.stop();
    this.link = null;
    this.clock.stop();
    this.game = game;
    this.finished = true;
    this.ending = false;
    this.line = copyLine(game.moves);
    this.piles = replay(this.deal, this.line);
    this.selected = null;
    this.targets = [];
    if (typeof game.result?.seconds === "number") this.el.timer.textContent = formatDuration(game.result.seconds);
    this.view = new BoardView(this.el.felt, { interactive: false });
    this.render();
    this.onFinished(game);
  }
}
