// The game page: the player's board (play.js, PlayController: taps, drag, keyboard, undo, resume,
// the finish) with the page's own parts around it: the HUD's hint and still-winnable indicator, the
// ranked chip and deal code, the connection and crowd, and the result panel. main() runs the page;
// nothing runs on import.

import { createGame, getGame } from "../api.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { copyLine } from "../line.js";
import { dealLinkUrl, gamePageUrl } from "../nav.js";
import { PlayController, Stored } from "../play.js";
import { AfterGame } from "./game/after.js";
import { HintCoach } from "./game/coach.js";
import { WinnableIndicator } from "./game/winnable.js";

const FIRST_STATE_TIMEOUT_MS = 5000; // no game from the socket by then: load it over REST instead

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
        lit: () => this.coach.lit(),
        rendered: () => this.renderHud(),
        lineChanged: () => this.coach.dismissAdvice(),
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
    this.coach = new HintCoach({
      el: this.el,
      gameId: this.gameId,
      play: this.play,
      onHinted: () => this.markHinted(),
      setRanked: (ranked) => this.setRanked(ranked),
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
    this.coach.accepted = this.hinted;
    this.showMeta();
  }

  // ---------------------------------------------------------------- drawing

  /** The page's own parts of the HUD, after the board and the shared HUD were drawn. */
  renderHud() {
    const el = this.el;
    const play = this.play;
    this.coach.renderButton();
    this.winnable.update();
    const stuck = play.stuck;
    el.stuckActions.hidden = !stuck;
    el.stuckUndo.hidden = play.line.length === 0;
    this.page.classList.toggle("is-stuck", stuck);
  }

  showMeta() {
    const { el } = this;
    const game = this.play.game;
    // Only the daily deal is ranked: any other game says "Unranked" from the start, and a daily game
    // after a hint says it too (it is off the leaderboards for good).
    const unranked = game.mode !== "daily" || (this.hinted && !game.ranked);
    el.ranked.hidden = false;
    if (unranked) el.ranked.textContent = gettext("Unranked");
    else el.ranked.textContent = game.ranked ? gettext("Ranked") : gettext("Practice");
    el.ranked.classList.toggle("is-ranked", Boolean(game.ranked));
    el.ranked.classList.toggle("is-unranked", unranked);
    if (game.mode !== "daily") el.ranked.title = gettext("Only the daily deal is ranked: this game is for play and practice.");
    else if (unranked) el.ranked.title = gettext("A hint was used: this game does not count on any leaderboard.");
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
    this.coach.close();
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

  /** N starts a new game once this one is over (the board has the playing keys). */
  onShortcut(key) {
    if (key !== "n" || !this.play.finished) return false;
    this.startAnother("new", undefined, this.el.newGame);
    return true;
  }

  // ---------------------------------------------------------------- events

  wireEvents() {
    const el = this.el;
    this.coach.wire();
    el.stuckUndo.addEventListener("click", () => this.play.undo());
    // With no move left there is nothing to lose: end at once.
    el.stuckEnd.addEventListener("click", () => this.play.endGame({ confirmFirst: false }));
    el.newGame.addEventListener("click", () => this.startAnother("new", undefined, el.newGame));
    el.copyLink.addEventListener("click", () => this.copyDealLink());
    window.addEventListener("online", () => this.showConnection());
    window.addEventListener("offline", () => this.showConnection());
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
