// One game watched live on a read-only board: the TV's screen and an arena's top boards. The watch
// socket (stream.js, a StreamLink) brings the game and each event; the one line reducer (line.js) and
// the rules (rules.js) turn them into the row the board view draws. The owner hears the game arrive,
// change and end, and a refusal; it decides what to watch next.

import { BoardView } from "./board/view.js";
import { GameClock, formatDuration } from "./clock.js";
import { commonLength, copyLine, lineAfter, sameLine } from "./line.js";
import { localDigits } from "./locale_format.js";
import { replay } from "./rules.js";
import { StreamLink } from "./stream.js";

export class LiveBoard {
  /**
   * @param {object} el  felt (the board's container); optional piles, timer (text elements)
   * @param {object} [options]
   * @param {"full"|"small"} [options.size]
   * @param {(state: {game: object, player: object}) => void} [options.onGame]  the game arrived (its state)
   * @param {(result: object) => void} [options.onEnd]  its finish was heard
   * @param {(refusal: {code: string, error: string}) => void} [options.onRefused]  it cannot be watched
   */
  constructor(el, { size = "small", onGame = () => {}, onEnd = () => {}, onRefused = () => {} } = {}) {
    this.el = el;
    this.size = size;
    this.hooks = { onGame, onEnd, onRefused };
    this.view = new BoardView(el.felt, { interactive: false, size });
    this.link = null;
    this.gameId = null;
    this.refusal = null; // why the server would not let this viewer watch the game
    this.deal = [];
    this.line = [];
    this.clock = null;
  }

  /** Watch game `gameId` on its watch socket, leaving whatever was watched. */
  watch(gameId) {
    if (this.gameId === gameId && this.link) return;
    this.stop();
    this.gameId = gameId;
    this.refusal = null;
    this.deal = []; // until its state comes
    this.line = [];
    const link = new StreamLink({
      wsPath: `/ws/watch/${gameId}/`,
      onState: (state) => this.link === link && this.onState(state),
      onEvent: (event) => this.link === link && this.onEvent(event),
      onRefused: (refusal) => this.link === link && this.refused(refusal),
    });
    this.link = link;
    link.start();
  }

  /** Watch the same game on a new socket when the server's answer may have changed for a viewer who now
   *  plays `deal` (an arena participant's next game; nobody may watch the deal they play): the board was
   *  refused, shows that deal, or has not shown anything yet. */
  recheck(deal) {
    const gameId = this.gameId;
    if (gameId === null) return;
    const anotherDeal = this.deal.length > 0 && this.deal.join(" ") !== deal.join(" ");
    if (this.refusal === null && anotherDeal) return; // admitted, and the answer stands
    this.stop();
    this.watch(gameId);
  }

  stop() {
    const link = this.link;
    this.link = null;
    link?.stop();
    this.clock?.stop();
  }

  /** Nothing of a game this viewer may not watch stays on the board. */
  refused(refusal) {
    this.stop();
    this.refusal = refusal;
    this.view.show([]);
    if (this.el.piles) this.el.piles.textContent = "";
    this.hooks.onRefused(refusal);
  }

  onState({ game, player }) {
    this.deal = game.deal;
    this.line = copyLine(game.moves);
    this.el.felt.setAttribute("aria-busy", "false");
    this.draw();
    this.clock?.stop();
    this.clock = new GameClock(game);
    this.hooks.onGame({ game, player });
    if (game.status === "finished") {
      this.end(game.result);
      return;
    }
    this.clock.start((seconds) => {
      if (this.el.timer) this.el.timer.textContent = formatDuration(seconds);
    });
  }

  onEvent(event) {
    const line = lineAfter(this.line, event);
    if (!sameLine(line, this.line)) {
      const oneMore = line.length === this.line.length + 1 && commonLength(this.line, line) === this.line.length;
      this.line = line;
      this.draw(oneMore ? line.at(-1) : "slide");
    }
    if (event.kind === "finish") this.end(event.result);
  }

  end(result) {
    this.stop();
    if (result && this.el.timer) this.el.timer.textContent = formatDuration(result.seconds);
    this.hooks.onEnd(result ?? null);
  }

  /** Draw the row at the current line: `how` is a move to fly, "slide", or nothing. */
  draw(how = null) {
    const piles = replay(this.deal, this.line);
    if (Array.isArray(how)) this.view.animateMove(how, piles);
    else this.view.show(piles, {}, { animate: how === "slide" });
    if (this.el.piles) this.el.piles.textContent = localDigits(piles.length);
  }
}
