// The watch page: someone else's game, live, on a read-only board. Wires the watcher's socket
// (stream.js, a StreamLink) to the board view, the clock and the HUD: every move flies its pile, undos slide
// back, the finish shows the result with a link to the replay. main() runs the page.

import { getGame } from "../api.js";
import { BoardView } from "../board/view.js";
import { GameClock, formatDuration } from "../clock.js";
import { showConnection } from "../dom.js";
import { modeLabel } from "../game_modes.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { localDigits } from "../locale_format.js";
import { replayPageUrl } from "../nav.js";
import { commonLength, copyLine, lineAfter, sameLine } from "../line.js";
import { isGoodGame, replay, score } from "../rules.js";
import { StreamLink } from "../stream.js";

function modeText(game) {
  return game.mode === "daily" && game.daily_date
    ? interpolate(gettext("Daily deal · %(date)s"), { date: game.daily_date })
    : modeLabel(game.mode);
}

class WatchPage {
  constructor(page) {
    this.page = page;
    this.gameId = Number(page.dataset.gameId);
    const byTestId = (id) => page.querySelector(`[data-testid="${id}"]`);
    const byRole = (role) => page.querySelector(`[data-role="${role}"]`);
    this.el = {
      felt: byRole("felt"),
      player: byTestId("watch-player"),
      mode: byRole("mode"),
      race: byRole("race"),
      connection: byTestId("connection"),
      timer: byTestId("timer"),
      score: byTestId("score"),
      pilesCount: byTestId("piles-count"),
      watchers: byTestId("watchers"),
      badge: byTestId("winnable"),
      status: byTestId("status"),
      result: byTestId("result"),
      resultTitle: byRole("result-title"),
      finalScore: byTestId("final-score"),
      replayLink: byTestId("replay-link"),
    };
    this.view = new BoardView(this.el.felt, { interactive: false });
    this.game = null;
    this.deal = [];
    this.line = [];
    this.piles = [];
    this.clock = null;
    this.badge = null; // the latest still-winnable answer: {v, status}
    this.link = new StreamLink({
      wsPath: page.dataset.wsPath,
      onState: (state) => this.onState(state),
      onEvent: (event) => this.onEvent(event),
      onMessage: (message) => this.onMessage(message),
      onStatus: (status) => this.showConnection(status),
      onRefused: (refusal) => this.onRefused(refusal),
    });
  }

  start() {
    this.el.replayLink.href = replayPageUrl(this.gameId);
    this.link.start();
  }

  // ---------------------------------------------------------------- what the socket brings

  onState({ game, race }) {
    const first = this.game === null;
    this.game = game;
    this.deal = game.deal;
    this.line = copyLine(game.moves);
    this.piles = replay(this.deal, this.line);
    if (first) this.showWho(race);
    this.el.felt.setAttribute("aria-busy", "false");
    this.view.show(this.piles);
    this.clock?.stop();
    this.clock = new GameClock(game);
    if (game.status === "finished") {
      this.showResult(game.result);
    } else {
      this.clock.start((seconds) => {
        this.el.timer.textContent = formatDuration(seconds);
      });
      this.el.status.textContent = gettext("Live: every move appears as it is played.");
    }
    this.renderHud();
  }

  onEvent(event) {
    this.showLine(lineAfter(this.line, event));
    if (event.kind === "undo") this.el.status.textContent = gettext("The player took a move back.");
    else if (event.kind === "hint") this.el.status.textContent = gettext("The player took a hint.");
    else if (event.kind === "finish") {
      this.link.stop();
      this.showConnection("ended");
      this.showResult(event.result);
    }
    this.renderHud();
  }

  /** The board at `line`: one more move flies its card, anything else slides the piles. */
  showLine(line) {
    const before = this.line;
    if (sameLine(before, line)) return;
    this.line = line;
    this.piles = replay(this.deal, line);
    const oneMore = line.length === before.length + 1 && commonLength(before, line) === before.length;
    if (oneMore) this.view.animateMove(line.at(-1), this.piles);
    else this.view.show(this.piles, {}, { animate: true });
  }

  onMessage(message) {
    if (message.t === "crowd" && Number.isInteger(message.watchers)) {
      this.showWatchers(message.watchers);
    } else if (message.t === "winnable") {
      this.badge = { v: message.v, status: message.status };
      this.showBadge();
    }
  }

  onRefused(refusal) {
    this.el.felt.setAttribute("aria-busy", "false");
    this.el.status.textContent = refusal.error || gettext("This game cannot be watched.");
    this.page.dataset.refused = refusal.code;
    this.el.mode.textContent = gettext("Not live"); // not "Loading…": nothing more is coming
    if (refusal.code === "game_finished") this.showEndedGame();
  }

  /** Arrived after the end: draw the final board and the result, if the game may be read. */
  async showEndedGame() {
    let game;
    try {
      game = await getGame(this.gameId);
    } catch {
      return; // the status already says why: the replay link is shown with the result only
    }
    this.game = game;
    this.deal = game.deal;
    this.line = copyLine(game.moves);
    this.piles = replay(this.deal, this.line);
    this.el.mode.textContent = modeText(game);
    this.view.show(this.piles);
    this.showResult(game.result);
    this.renderHud();
  }

  // ---------------------------------------------------------------- drawing

  /** The game's mode, and its race when it is a racer's board (the page names the player already). */
  showWho(race) {
    this.el.mode.textContent = modeText(this.game);
    if (race) {
      this.el.race.hidden = false;
      this.el.race.href = this.page.dataset.raceUrl.replace(/CODE$/, encodeURIComponent(race));
      this.el.race.textContent = interpolate(gettext("Race %(code)s: see every racer"), { code: race });
    }
  }

  renderHud() {
    const count = this.piles.length;
    this.el.pilesCount.textContent = localDigits(count);
    this.el.score.textContent = localDigits(this.game?.result?.score ?? score(count));
    this.showBadge();
  }

  showWatchers(watchers) {
    this.el.watchers.textContent = localDigits(watchers);
    this.el.watchers.closest("[data-role='watchers-stat']")?.setAttribute(
      "aria-label",
      interpolate(ngettext("%(count)s watching", "%(count)s watching", watchers), { count: watchers }),
    );
  }

  /** The badge is about one position: shown only while the board is at that version. */
  showBadge() {
    const badge = this.badge;
    const current = badge && this.link.version === badge.v && this.game?.status !== "finished";
    this.el.badge.hidden = !current;
    if (!current) return;
    this.el.badge.dataset.state = badge.status;
    this.el.badge.textContent =
      badge.status === "win" ? gettext("Still winnable") : gettext("Can no longer be won");
  }

  showConnection(status) {
    showConnection(this.el.connection, status, { ended: gettext("Game over"), refused: "" });
  }

  showResult(result) {
    this.clock?.stop();
    this.game = { ...this.game, status: "finished", result };
    if (!result) return;
    const name = this.el.player.textContent;
    this.el.timer.textContent = formatDuration(result.seconds);
    let title;
    if (result.won) {
      title = interpolate(gettext("%(name)s won!"), { name });
    } else if (isGoodGame(result.piles)) {
      title = interpolate(ngettext("Good game! %(name)s ended with %(count)s pile.", "Good game! %(name)s ended with %(count)s piles.", result.piles), {
        name,
        count: result.piles,
      });
    } else {
      title = interpolate(ngettext("%(name)s ended with %(count)s pile.", "%(name)s ended with %(count)s piles.", result.piles), {
        name,
        count: result.piles,
      });
    }
    this.el.resultTitle.textContent = title;
    this.el.finalScore.textContent = localDigits(result.score);
    this.el.result.hidden = false;
    this.el.status.textContent = "";
    this.renderHud();
  }
}

export function main() {
  new WatchPage(document.getElementById("watch-page")).start();
}

main();
