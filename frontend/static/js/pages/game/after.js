// After the game: the result panel, the solver's analysis, and its winning lines replayed on the
// board, read-only, at a pace the player can follow (pause, 1×/2×/4×, stop).

import { announce } from "../../announce.js";
import { ApiError, getAnalysis } from "../../api.js";
import { cardName } from "../../cards.js";
import { formatDuration } from "../../clock.js";
import { showSpeed } from "../../dom.js";
import { gettext, interpolate, ngettext } from "../../i18n.js";
import { formatDate, localDigits } from "../../locale_format.js";
import { offerNickname } from "../../name_offer.js";
import { dailyBoardUrl, profileUrl } from "../../nav.js";
import { applyMove, isGoodGame, replay, scoreParts } from "../../rules.js";

const REPLAY_STEP_MS = 400;
const REPLAY_SPEEDS = [1, 2, 4];

function topCard(pile) {
  return pile[pile.length - 1];
}

function smoothScroll() {
  const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
  return reduced ? "auto" : "smooth";
}

function breakdownRow(label, detail, value) {
  const term = document.createElement("dt");
  term.textContent = label;
  const description = document.createElement("dd");
  if (detail) {
    const small = document.createElement("span");
    small.className = "detail";
    small.dir = "ltr"; // "51 × 10" must not be reordered on a right-to-left page
    small.textContent = detail;
    description.append(small, " ");
  }
  const strong = document.createElement("strong");
  strong.textContent = localDigits(value);
  description.append(strong);
  return [term, description];
}

function plainRow(label, value, { ltr = false } = {}) {
  const term = document.createElement("dt");
  term.textContent = label;
  const description = document.createElement("dd");
  description.textContent = value;
  if (ltr) description.dir = "ltr";
  return [term, description];
}

/** The navigation's link to the player's profile, after a rename. */
function showNickname(me) {
  const link = document.querySelector('[data-testid="nav-profile"]');
  if (!link) return;
  link.href = profileUrl(me.nickname);
  link.querySelector("bdi").textContent = me.nickname;
}

export class AfterGame {
  /**
   * @param {object} options
   * @param {object} options.el  the game page's elements
   * @param {number} options.gameId
   * @param {object} options.game  the game JSON (mode, ranked, deal_code)
   * @param {string[]} options.deal
   * @param {number[][]} options.finalLine  the line the game ended with
   * @param {import("../../board/view.js").BoardView} options.view  a read-only view of the board
   * @param {boolean} options.hinted  a hint was used
   * @param {string|null} options.owner  the player's nickname when the game is someone else's
   * @param {(mode: string, code: string|undefined, button: HTMLElement) => void} options.startAnother
   */
  constructor({ el, gameId, game, deal, finalLine, view, hinted, owner, startAnother }) {
    this.el = el;
    this.gameId = gameId;
    this.game = game;
    this.deal = deal;
    this.finalLine = finalLine;
    this.view = view;
    this.hinted = hinted;
    this.owner = owner;
    this.startAnother = startAnother;
    this.result = null;
    this.analysis = null;
    this.run = null; // the winning line being replayed
    this.speed = 1;
    el.replayDeal.addEventListener("click", () => this.startReplay("deal"));
    el.replayFromThere.addEventListener("click", () => this.startReplay("from-there"));
    el.analysisRetry.addEventListener("click", () => this.loadAnalysis());
    el.replayPause.addEventListener("click", () => this.togglePause());
    el.replaySpeed.addEventListener("click", () => this.cycleSpeed());
    el.replayStop.addEventListener("click", () => this.stopReplay({ restore: true }));
    el.share.addEventListener("click", () => this.share());
  }

  /** Draw the result panel, ask for the analysis, and offer a guest to pick a name. */
  show(result) {
    this.result = result;
    this.drawResult(result);
    this.loadAnalysis();
    if (!this.owner && !this.el.nameOfferSlot.hasChildNodes()) {
      offerNickname(this.el.nameOfferSlot, { onSaved: showNickname });
    }
  }

  drawResult(result) {
    const el = this.el;
    const { piles, won } = result;
    const seconds = typeof result.seconds === "number" ? result.seconds : null;
    const parts = scoreParts(piles, seconds);
    const goodGame = result.good_game ?? isGoodGame(piles);
    if (won) {
      el.resultTitle.textContent = this.owner
        ? interpolate(gettext("%(player)s won!"), { player: this.owner })
        : gettext("You won!");
    } else if (goodGame) el.resultTitle.textContent = gettext("Good game!");
    else el.resultTitle.textContent = gettext("Game over");
    el.result.classList.toggle("won", Boolean(won));
    el.result.classList.toggle("good", !won && goodGame);

    const rows = breakdownRow(
      gettext("Piles removed"),
      interpolate(gettext("%(removed)s × %(points)s"), { removed: parts.removed, points: parts.pointsPerPile }),
      parts.removedPoints,
    );
    if (won) {
      rows.push(...breakdownRow(gettext("Win bonus"), "", parts.winBonus));
      const detail =
        seconds === null ? "" : interpolate(gettext("%(limit)s − %(seconds)s s"), { limit: parts.timeLimit, seconds });
      rows.push(...breakdownRow(gettext("Time bonus"), detail, parts.timeBonus));
    } else {
      rows.push(...plainRow(gettext("Piles left"), localDigits(piles)));
    }
    if (seconds !== null) rows.push(...plainRow(gettext("Time"), formatDuration(seconds), { ltr: true }));
    el.breakdown.replaceChildren(...rows);
    el.finalScore.textContent = localDigits(result.score);
    const title = el.resultTitle.textContent;
    announce(interpolate(gettext("%(title)s — final score %(score)s"), { title, score: result.score }));
    el.shareBox.hidden = this.game.mode !== "daily" || Boolean(this.owner);

    this.drawNote(result);

    const game = this.game;
    el.playAgain.hidden = !game.deal_code && game.mode !== "daily";
    if (game.deal_code) {
      el.playAgain.textContent = this.owner ? gettext("Play this deal") : gettext("Play this deal again");
      el.playAgain.onclick = () => this.startAnother("code", game.deal_code, el.playAgain);
    } else if (game.mode === "daily") {
      // Practice only when this is the player's own game of today's deal: anyone else's, or another
      // day's, leads to today's deal, which may be the reader's ranked attempt.
      const today = (game.server_now ?? new Date().toISOString()).slice(0, 10);
      el.playAgain.textContent =
        !this.owner && game.daily_date === today
          ? gettext("Replay today's deal (practice)")
          : gettext("Play today's daily deal");
      el.playAgain.onclick = () => this.startAnother("daily", undefined, el.playAgain);
    }
    el.result.hidden = false;
    el.result.focus({ preventScroll: true });
    el.result.scrollIntoView({ behavior: smoothScroll(), block: "nearest" });
  }

  /** The line under the score: the day's rank, or why the game does not count. */
  drawNote(result) {
    const el = this.el;
    const game = this.game;
    let note = "";
    const owner = this.owner; // someone else's game: its notes speak of them, not of the reader
    if (typeof result.rank === "number") {
      const words = owner
        ? gettext("%(player)s is number %(rank)s of %(of)s on the day's leaderboard.")
        : gettext("You are number %(rank)s of %(of)s on the day's leaderboard.");
      note = interpolate(words, { player: owner, rank: result.rank, of: result.of ?? result.rank });
    } else if (result.review === "pending") {
      note = owner
        ? interpolate(gettext("%(player)s's result is waiting for a quick review."), { player: owner })
        : gettext("Your result is waiting for a quick review. It joins the leaderboard as soon as it is checked: thank you for your patience.");
    } else if (this.hinted && !game.ranked) {
      note = gettext("A hint was used: this game does not count on any leaderboard.");
    } else if (game.practice_reason === "address_limit") {
      note = gettext("Practice game: the day's ranked attempts from your network are used up; an account a day old or more keeps a ranked attempt of its own.");
    } else if (game.mode === "daily" && !game.ranked) {
      note = gettext("Practice game: only your first daily deal of the day is ranked.");
    }
    el.resultNote.hidden = !note;
    el.resultNote.textContent = note;
    if (typeof result.rank === "number" && game.daily_date) {
      const board = document.createElement("a");
      board.href = `${dailyBoardUrl(game.daily_date)}#me`;
      board.dataset.testid = "result-board-link";
      board.textContent = gettext("See the leaderboard");
      el.resultNote.append(" ", board);
    }
  }

  // ---- sharing a daily result ----

  /** A summary for chat apps that gives nothing of the deal away: the day, win or piles left, score, time,
   * and the link to that day's board, where a friend sees the standings and can play the deal. */
  shareSummary() {
    const { piles, won, score } = this.result;
    const values = {
      date: formatDate(this.game.daily_date),
      piles,
      score,
      time: typeof this.result.seconds === "number" ? formatDuration(this.result.seconds) : "–",
    };
    const words = won
      ? gettext("Accordion Live, daily deal of %(date)s: won! %(score)s points in %(time)s.")
      : ngettext(
          "Accordion Live, daily deal of %(date)s: %(piles)s pile left, %(score)s points in %(time)s.",
          "Accordion Live, daily deal of %(date)s: %(piles)s piles left, %(score)s points in %(time)s.",
          piles,
        );
    return `${interpolate(words, values)} ${new URL(dailyBoardUrl(this.game.daily_date), window.location.origin)}`;
  }

  async share() {
    const el = this.el;
    const summary = this.shareSummary();
    try {
      await navigator.clipboard.writeText(summary);
      el.shareText.hidden = true;
      el.shareDone.textContent = gettext("Copied: paste it into a chat.");
    } catch {
      // No clipboard (an old browser, or permission refused): show the words selected, to copy by hand.
      el.shareText.value = summary;
      el.shareText.hidden = false;
      el.shareText.focus();
      el.shareText.select();
      el.shareDone.textContent = gettext("Copy the selected text and paste it into a chat.");
    }
  }

  // ---- the solver's analysis ----

  async loadAnalysis() {
    const el = this.el;
    el.analysis.hidden = false;
    el.analysis.setAttribute("aria-busy", "true");
    el.analysisDeal.textContent = gettext("Asking the solver about your game…");
    el.analysisLoss.hidden = true;
    el.analysisNote.hidden = true;
    el.analysisRetry.hidden = true;
    el.replayDeal.hidden = true;
    el.replayFromThere.hidden = true;
    try {
      this.analysis = await getAnalysis(this.gameId);
      this.drawAnalysis(this.analysis);
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

  drawAnalysis(analysis) {
    const el = this.el;
    const won = Boolean(this.result?.won);
    if (won) {
      el.analysisDeal.textContent = this.owner
        ? interpolate(gettext("%(player)s cleared the deal: it takes a winning line, and they found one."), {
            player: this.owner,
          })
        : gettext("You cleared the deal: it takes a winning line, and you found one.");
    } else if (analysis.withheld) {
      el.analysisDeal.textContent = gettext("Whether this deal could be won is told after the day ends (midnight UTC).");
    } else if (analysis.deal_winnable === true) {
      el.analysisDeal.textContent = gettext("This deal could be won.");
    } else if (analysis.deal_winnable === false) {
      el.analysisDeal.textContent = gettext("This deal could not be won: no line of moves leaves a single pile.");
    } else {
      el.analysisDeal.textContent = gettext("The solver could not tell in time whether this deal can be won.");
    }
    el.analysis.dataset.dealWinnable = String(analysis.deal_winnable);

    const losing = analysis.first_losing_move;
    const lostAt = !won && Number.isInteger(losing) && losing >= 0 && losing < this.finalLine.length;
    el.analysisLoss.hidden = true;
    if (lostAt) {
      el.analysisLoss.hidden = false;
      el.analysisLoss.textContent = this.losingMoveText(losing);
    } else if (!won && analysis.deal_winnable === true && typeof losing !== "number") {
      el.analysisLoss.hidden = false;
      el.analysisLoss.textContent = this.owner
        ? interpolate(gettext("%(player)s's last position could still have been won."), { player: this.owner })
        : gettext("Your last position could still have been won.");
    }

    el.analysisNote.hidden = !analysis.withheld;
    el.analysisNote.textContent = analysis.withheld
      ? gettext("The winning line of today's daily deal is shown after the day ends (midnight UTC), so that nobody can copy it.")
      : "";

    el.replayDeal.hidden = !(Array.isArray(analysis.deal_line) && analysis.deal_line.length > 0);
    const fromThere = lostAt && Array.isArray(analysis.line_from_there) && analysis.line_from_there.length > 0;
    el.replayFromThere.hidden = !fromThere;
    if (fromThere) {
      el.replayFromThereLabel.textContent = interpolate(gettext("Show how to win from move %(n)s"), { n: losing + 1 });
    }
  }

  losingMoveText(losing) {
    const n = losing + 1;
    const player = this.owner;
    try {
      const before = replay(this.deal, this.finalLine.slice(0, losing));
      const [from, to] = this.finalLine[losing];
      const words = player
        ? gettext("%(player)s's game could no longer be won after move %(n)s (the %(card)s onto the %(target)s).")
        : gettext("Your game could no longer be won after move %(n)s (the %(card)s onto the %(target)s).");
      return interpolate(words, { n, player, card: cardName(topCard(before[from])), target: cardName(topCard(before[to])) });
    } catch {
      const words = player
        ? gettext("%(player)s's game could no longer be won after move %(n)s.")
        : gettext("Your game could no longer be won after move %(n)s.");
      return interpolate(words, { n, player });
    }
  }

  // ---- replaying a winning line ----

  startReplay(kind) {
    const analysis = this.analysis;
    if (!analysis) return;
    const losing = analysis.first_losing_move;
    const start = kind === "deal" ? [] : this.finalLine.slice(0, losing);
    const line = kind === "deal" ? analysis.deal_line : analysis.line_from_there;
    const title =
      kind === "deal"
        ? gettext("A winning line from the deal")
        : interpolate(gettext("How to win from move %(n)s"), { n: losing + 1 });
    if (!Array.isArray(line) || line.length === 0) return;
    let piles;
    try {
      replay(this.deal, [...start, ...line]); // the whole line must be legal before it is shown
      piles = replay(this.deal, start);
    } catch {
      this.el.analysisNote.hidden = false;
      this.el.analysisNote.textContent = gettext("That line does not fit this deal: it cannot be shown.");
      return;
    }
    this.stopReplay({ restore: false });
    this.run = { title, line: line.map((move) => [move[0], move[1]]), piles, index: 0, timer: 0, paused: false };
    this.view.show(piles, this.replayMarks(), { animate: true });
    this.el.felt.classList.add("replaying");
    this.updateBar();
    this.el.replayBar.hidden = false;
    this.el.replayBar.scrollIntoView({ behavior: smoothScroll(), block: "start" });
    // A longer first beat: the viewer sees the starting position and the first move lit.
    this.queueStep(2 * REPLAY_STEP_MS);
  }

  get done() {
    return this.run !== null && this.run.index >= this.run.line.length;
  }

  replayMarks() {
    return this.done ? {} : { lit: { move: this.run.line[this.run.index], kind: "next" } };
  }

  queueStep(delay = REPLAY_STEP_MS) {
    const run = this.run;
    if (!run) return;
    clearTimeout(run.timer);
    run.timer = setTimeout(() => this.step(), delay / this.speed);
  }

  step() {
    const run = this.run;
    if (!run || run.paused || this.done) return;
    const move = run.line[run.index];
    run.piles = applyMove(run.piles, move); // checked legal when the replay started
    run.index += 1;
    this.view.animateMove(move, run.piles, this.replayMarks());
    this.updateBar();
    if (!this.done) this.queueStep();
  }

  updateBar() {
    const run = this.run;
    if (!run) return;
    const el = this.el;
    const total = run.line.length;
    el.replayTitle.textContent = run.title;
    const done = ngettext("Done in %(total)s move: one pile left.", "Done in %(total)s moves: one pile left.", total);
    el.replayProgress.textContent = this.done
      ? interpolate(done, { total })
      : interpolate(gettext("Move %(n)s of %(total)s"), { n: run.index, total });
    el.replayMeter.style.inlineSize = `${(100 * run.index) / total}%`;
    el.replayBar.dataset.state = this.done ? "done" : run.paused ? "paused" : "playing";
    el.replayPause.hidden = this.done;
    el.replaySpeed.hidden = this.done;
    el.replayPause.textContent = run.paused ? gettext("Resume") : gettext("Pause");
    el.replayPause.setAttribute("aria-pressed", String(run.paused));
    showSpeed(el.replaySpeed, this.speed);
    el.replayStop.textContent = this.done ? gettext("Back to your game") : gettext("Stop");
  }

  togglePause() {
    const run = this.run;
    if (!run || this.done) return;
    run.paused = !run.paused;
    if (run.paused) clearTimeout(run.timer);
    else this.queueStep();
    this.updateBar();
  }

  cycleSpeed() {
    this.speed = REPLAY_SPEEDS[(REPLAY_SPEEDS.indexOf(this.speed) + 1) % REPLAY_SPEEDS.length];
    if (this.run && !this.run.paused && !this.done) this.queueStep();
    this.updateBar();
  }

  /** End a replay; with `restore`, the board shows the player's own final position again. */
  stopReplay({ restore }) {
    const run = this.run;
    if (!run) return;
    clearTimeout(run.timer);
    this.run = null;
    this.el.replayBar.hidden = true;
    this.el.felt.classList.remove("replaying");
    if (restore) this.view.show(replay(this.deal, this.finalLine), {}, { animate: true });
  }
}
