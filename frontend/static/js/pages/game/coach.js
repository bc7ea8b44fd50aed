// The game page's coach: the Hint button, the question a ranked game asks first, and the advice it
// shows (a lit move, "undo N moves", why there is none). The board plays moves at once, so a hint
// waits until the server holds every move on screen, and an answer about a position the player has
// left is not shown.

import { ApiError, requestHint } from "../../api.js";
import { cardName } from "../../cards.js";
import { gettext, interpolate, ngettext } from "../../i18n.js";
import { copyLine, sameLine } from "../../line.js";

const SETTLE_TIMEOUT_MS = 6000; // a hint waits this long for the server to have the moves on screen

const HINTS_CLOSED = () => gettext("No hints on a practice game of a daily deal before its day is over (UTC).");

function topCard(pile) {
  return pile[pile.length - 1];
}

function smoothScroll() {
  const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
  return reduced ? "auto" : "smooth";
}

export class HintCoach {
  /**
   * @param {object} options
   * @param {object} options.el  hint, hintConfirm, hintYes, hintNo, hintMessage, hintText, hintUndo, hintClose
   * @param {number} options.gameId
   * @param {import("../../play.js").PlayController} options.play  the page's board
   * @param {() => void} options.onHinted  the server counted a hint: the game is unranked for good
   * @param {(ranked: boolean) => void} options.setRanked  whether the server counts the game as ranked
   */
  constructor({ el, gameId, play, onHinted, setRanked }) {
    this.el = el;
    this.gameId = gameId;
    this.play = play;
    this.onHinted = onHinted;
    this.setRanked = setRanked;
    this.hint = null; // [from, to] while a suggested move is lit on the board
    this.hinting = false; // a hint request is on its way
    this.accepted = false; // the player agreed that a hint makes this ranked game unranked
  }

  /** Listen to the coach's buttons, and to Escape before the board does (it closes the question first). */
  wire() {
    const el = this.el;
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !el.hintConfirm.hidden) {
        event.preventDefault();
        this.hideConfirm({ refocus: true });
      }
    });
    el.hint.addEventListener("click", () => this.onHintClick());
    el.hintYes.addEventListener("click", () => {
      this.accepted = true;
      this.askHint();
    });
    el.hintNo.addEventListener("click", () => this.hideConfirm({ refocus: true }));
    el.hintClose.addEventListener("click", () => {
      el.hintMessage.hidden = true;
      if (this.hint) {
        this.hint = null;
        this.play.render();
      }
    });
  }

  /** The lit move, for the board's marks. */
  lit() {
    return this.hint ? { move: this.hint, kind: "hint" } : null;
  }

  /** Whether the game may have hints: a practice game of today's daily deal may not, since its winning
   * lines stay hidden until the day is over. */
  hintsOpen() {
    return this.play.game?.hints_open ?? true;
  }

  /** The Hint button as the game allows: not while a hint is on its way. On a game that may have no hints
   * it stays pressable (aria-disabled), so that a tap, on a touch screen too, says why. */
  renderButton() {
    const { el, play } = this;
    const closed = !this.hintsOpen();
    el.hint.disabled = !play.playing || this.hinting || play.piles.length <= 1;
    el.hint.setAttribute("aria-disabled", String(closed));
    el.hint.classList.toggle("is-closed", closed);
    el.hint.title = closed ? HINTS_CLOSED() : "";
    el.hint.classList.toggle("is-busy", this.hinting);
    el.hint.setAttribute("aria-busy", String(this.hinting));
  }

  /** The game is over: the result panel says it all. */
  close() {
    this.hideConfirm();
    this.dismissAdvice();
    this.el.hintMessage.hidden = true;
  }

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
        if (this.play.undo(undoCount)) {
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
    if (!this.play.playing || this.hinting) return;
    if (!this.hintsOpen()) {
      this.el.hintText.textContent = HINTS_CLOSED();
      this.el.hintUndo.hidden = true;
      this.el.hintMessage.hidden = false;
      return;
    }
    if (this.play.game?.ranked && !this.accepted) {
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
    this.play.render();
    this.showAdvice(gettext("Looking for a good move…"), "busy");
    try {
      for (let attempt = 0; ; attempt += 1) {
        const ready = this.play.link ? await this.play.link.whenSettled(SETTLE_TIMEOUT_MS) : false;
        if (!this.play.playing) return;
        if (!ready) {
          this.showAdvice(
            gettext("Hints need a live connection: your latest moves have not reached the server yet. Try again in a moment."),
            "warn",
          );
          return;
        }
        const asked = copyLine(this.play.line);
        let answer;
        try {
          answer = await requestHint(this.gameId, this.accepted || !this.play.game.ranked);
        } catch (error) {
          if (error instanceof ApiError && error.code === "game_changed" && attempt === 0) {
            this.play.link?.catchUp(); // hear what changed, then ask once more
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
      if (this.play.finished) {
        this.el.hintMessage.hidden = true; // the result panel says it all
      } else {
        this.play.render();
        // On a phone the lit piles may be below the fold: bring the pile to move into view.
        if (this.hint) this.play.view.reveal(this.hint[0], { smooth: smoothScroll() === "smooth" });
      }
    }
  }

  takeHint(answer, asked) {
    if (typeof answer.hints === "number" && answer.hints > 0 && !answer.ranked) this.onHinted();
    if (typeof answer.ranked === "boolean") this.setRanked(answer.ranked);
    const { piles, line } = this.play;
    if (!this.play.playing) return;
    if (!sameLine(asked, line)) {
      this.hint = null;
      this.showAdvice(gettext("You moved while the hint was on its way: ask again for this position."), "warn");
      return;
    }
    switch (answer.status) {
      case "move": {
        const [from, to] = answer.move || [];
        if (!piles[from] || !piles[to]) {
          this.showAdvice(gettext("The hint did not fit the board. Please ask again."), "warn");
          return;
        }
        this.hint = [from, to];
        this.showAdvice(
          interpolate(gettext("Try moving the %(card)s onto the %(target)s: the game can still be won from there."), {
            card: cardName(topCard(piles[from])),
            target: cardName(topCard(piles[to])),
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
          Math.min(count, line.length),
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
      this.accepted = false;
      this.setRanked(true);
      this.el.hintMessage.hidden = true;
      this.showConfirm();
      return;
    }
    if (code === "game_finished") {
      this.el.hintMessage.hidden = true;
      this.play.loadFinished();
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
}
