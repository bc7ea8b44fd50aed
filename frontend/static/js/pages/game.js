// The game page: the player's board (play.js, PlayController: taps, drag, keyboard, undo, resume,
// the finish) with the page's own parts around it: the HUD's hint and still-winnable indicator, the
// ranked chip and deal code, the connection and crowd, and the result panel. main() runs the page;
// nothing runs on import.

import { ApiError, createGame, getGame, requestHint } from "../api.js";
import { cardName } from "../cards.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { copyLine, sameLine } from "../line.js";
import { dealLinkUrl, gamePageUrl } from "../nav.js";
import { PlayController, Stored } from "../play.js";
import { AfterGame } from "./game/after.js";
import { WinnableIndicator } from "./game/winnable.js";

const SETTLE_TIMEOUT_MS = 6000; // a hint waits this long for the server to have the moves on screen
const FIRST_STATE_TIMEOUT_MS = 5000; // no game from the socket by then: load it over REST instead

function topCard(pile) {
  return pile[pile.length - 1];
}

function smoothScroll() {
  const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
  return reduced ? "auto" : "smooth";
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

class GamePage {
  constructor(page) {
    this.page = page;
    this.gameId = Number(page.dataset.gameId);
    this.owner = page.dataset.owner || null; // the player's nickname when the game is someone else's
    this.linkState = "idle";
    this.el = pageElements(page);
    this.storedHinted = new Stored(() => localStorage, `accordion:hinted:${this.gameId}`);
    this.hint = null; // [from, to] while a suggested move is lit on the board
    this.hinting = false; // a hint request is on its way
    this.hintAccepted = false; // the player agreed that a hint makes this ranked game unranked
    this.hinted = false; // this game has had a hint: it is unranked for good
    this.after = null; // the result panel, once the game is over
    this.refusal = null; // why the server refused the socket, if it did
    this.firstStateTimer = 0;
    this.loadingOverRest = false;

    this.play = new PlayController({
      el: this.el,
      gameId: this.gameId,
      wsPath: page.dataset.wsPath,
      words: {
        finished: "", // the result panel says it all
        stuck: gettext("No more moves"),
        endQuestion: gettext("End this game now? It is scored as it stands."),
      },
      page: {
        begin: (game) => this.begin(game),
        lit: () => (this.hint ? { move: this.hint, kind: "hint" } : null),
        rendered: () => this.renderHud(),
        lineChanged: () => this.dismissAdvice(),
        finished: () => this.showFinished(),
        game: (game) => this.onServerGame(game),
        change: (change) => this.onServerChange(change),
        settled: () => this.winnable.schedule(),
        refused: (refusal) => this.onRefused(refusal),
        crowd: (watchers) => this.showCrowd(watchers),
        connection: (state) => {
          this.setConnection(state);
          if (state === "offline" && !this.play.game) this.loadOverRest(); // no socket yet: REST, then play locally
        },
        shortcut: (key) => this.onShortcut(key),
      },
    });
    this.winnable = new WinnableIndicator({
      gameId: this.gameId,
      elements: { box: this.el.winnableBox, toggle: this.el.winnableToggle, badge: this.el.winnable },
      available: () => Boolean(this.play.game) && !this.play.game.ranked && this.play.game.hints_open && this.play.playing,
      link: () => this.play.link,
      onRanked: () => this.setRanked(true),
    });
  }

  start() {
    this.wireEvents(); // before the board's keys: Escape closes the hint's question first
    this.setConnection("idle");
    this.play.start();
    // The socket's first `state` is the game; if it does not come (sockets blocked, the server
    // refused), REST is the way in, and play can go on locally.
    this.firstStateTimer = setTimeout(() => this.loadOverRest(), FIRST_STATE_TIMEOUT_MS);
  }

  // ---------------------------------------------------------------- the game arrives

  async loadOverRest() {
    clearTimeout(this.firstStateTimer);
    if (this.play.game || this.loadingOverRest) return;
    this.loadingOverRest = true;
    try {
      const game = await getGame(this.gameId);
      if (!this.play.game) this.play.begin(game);
    } catch (error) {
      if (!this.play.game) this.showUnavailable(this.refusal?.error || error.message);
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

  /** The game arrived (the socket's first state, or a GET), before the board draws it. */
  begin(game) {
    clearTimeout(this.firstStateTimer);
    this.hinted = !game.ranked && (game.hints > 0 || this.storedHinted.read() === true);
    this.hintAccepted = this.hinted;
    this.showMeta();
  }

  // ---------------------------------------------------------------- drawing

  /** The page's own parts of the HUD, after the board and the shared HUD were drawn. */
  renderHud() {
    const el = this.el;
    const play = this.play;
    const hintsOpen = play.game?.hints_open ?? true;
    el.hint.disabled = !play.playing || this.hinting || play.piles.length <= 1 || !hintsOpen;
    // A practice game of today's daily deal: its winning lines stay hidden until the day is over.
    el.hint.title = hintsOpen ? "" : gettext("No hints on a practice game of a daily deal before its day is over (UTC).");
    el.hint.classList.toggle("is-busy", this.hinting);
    el.hint.setAttribute("aria-busy", String(this.hinting));
    this.winnable.update();
    const stuck = play.stuck;
    el.stuckActions.hidden = !stuck;
    el.stuckUndo.hidden = play.line.length === 0;
    this.page.classList.toggle("is-stuck", stuck);
  }

  showMeta() {
    const { el } = this;
    const game = this.play.game;
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
    this.play.game = { ...this.play.game, ranked };
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

  // ---------------------------------------------------------------- the end and the socket

  /** The game is over and drawn read-only: the result panel. */
  showFinished() {
    const play = this.play;
    this.winnable.stop();
    this.hideConfirm();
    this.dismissAdvice();
    this.el.hintMessage.hidden = true;
    this.after = new AfterGame({
      el: this.el,
      gameId: this.gameId,
      game: play.game,
      deal: play.deal,
      finalLine: copyLine(play.line),
      view: play.view,
      hinted: this.hinted,
      owner: this.owner,
      startAnother: (mode, code, button) => this.startAnother(mode, code, button),
    });
    this.after.show(play.game.result);
  }

  async startAnother(mode, code, button) {
    button.disabled = true;
    try {
      const game = await createGame(mode, code);
      window.location.assign(gamePageUrl(game.id));
    } catch (error) {
      button.disabled = false;
      this.play.setStatus(error.message);
    }
  }

  /** A later `state`: the page's copy of the game is up to date. */
  onServerGame(game) {
    if (game.hints > 0 && !game.ranked) this.markHinted();
    this.showMeta();
  }

  onServerChange(change) {
    if (change.kind === "hint") {
      this.markHinted();
      this.setRanked(false);
    } else if (change.kind === "finish" && this.play.game.ranked) {
      // Finished in another tab: an event carries no rank (one encoding serves every listener).
      this.loadRank();
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

  onRefused(refusal) {
    this.refusal = refusal;
    if (this.play.game) {
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
    if (this.play.game?.ranked && !this.hintAccepted) {
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
          answer = await requestHint(this.gameId, this.hintAccepted || !this.play.game.ranked);
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
    if (typeof answer.hints === "number" && answer.hints > 0 && !answer.ranked) this.markHinted();
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
      this.hintAccepted = false;
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

  /** N starts a new game once this one is over (the board has the playing keys). */
  onShortcut(key) {
    if (key !== "n" || !this.play.finished) return false;
    this.startAnother("new", undefined, this.el.newGame);
    return true;
  }

  // ---------------------------------------------------------------- events

  wireEvents() {
    const el = this.el;
    // Taken before the board's keys (PlayController skips a key a page took with preventDefault).
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !el.hintConfirm.hidden) {
        event.preventDefault();
        this.hideConfirm({ refocus: true });
      }
    });
    el.stuckUndo.addEventListener("click", () => this.play.undo());
    // With no move left there is nothing to lose: end at once.
    el.stuckEnd.addEventListener("click", () => this.play.endGame({ confirmFirst: false }));
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
        this.play.render();
      }
    });
  }

  async copyDealLink() {
    const code = this.play.game?.deal_code;
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
