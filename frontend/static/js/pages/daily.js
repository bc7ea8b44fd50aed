// A day's leaderboard page: the summary and its histogram, the ranking in pages of 50 with the reader's
// own row one click away ("My rank"), the day's seed, and the all-time boards. Everything is drawn
// from the leaderboards API; nicknames go in with textContent, never as HTML.
// main() runs the page; nothing runs on import.

import {
  ApiError,
  getAllTimeBoards,
  getDailyBoard,
  getDailyMine,
  getDailySeed,
  getDailySummary,
} from "../api.js";
import { formatDuration } from "../clock.js";
import { anchorAt, byTestIds, chartBox, element, svgElement } from "../dom.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { formatNumber } from "../locale_format.js";
import { profileUrl, replayPageUrl, startGameAndGo } from "../nav.js";

const CHART = { width: 640, height: 180, left: 36, right: 8, top: 10, bottom: 26 };
const PILE_LABELS = [1, 5, 10, 20, 30, 40, 52];

// ---------------------------------------------------------------- summary

function drawSummary(page, summary) {
  const values = {
    players: formatNumber(summary.players),
    wins: formatNumber(summary.wins),
    win_rate: summary.win_rate === null ? "–" : formatNumber(summary.win_rate, { style: "percent", maximumFractionDigits: 1 }),
    median_score: summary.median_score === null ? "–" : formatNumber(summary.median_score, { maximumFractionDigits: 1 }),
  };
  for (const cell of page.querySelectorAll("[data-summary]")) cell.textContent = values[cell.dataset.summary];
  drawPilesChart(page.querySelector('[data-testid="piles-chart"]'), summary);
}

/** Bars of players by final pile count, 1 (a win, in gold) to 52. */
function drawPilesChart(container, summary) {
  container.replaceChildren();
  if (summary.players === 0) {
    container.append(element("p", { className: "profile-note", text: gettext("No results yet.") }));
    return;
  }
  const box = chartBox(container, CHART);
  const { width, height, left, right, top, plotWidth, plotHeight } = box;
  const most = Math.max(...summary.piles.map((bar) => bar.players));
  const slot = plotWidth / summary.piles.length;
  const svg = svgElement("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart-svg" });
  svg.append(
    svgElement(
      "title",
      {},
      interpolate(
        ngettext(
          "Piles left at the end by %(players)s player; %(wins)s won with one pile.",
          "Piles left at the end by %(players)s players; %(wins)s won with one pile.",
          summary.players,
        ),
        { players: formatNumber(summary.players), wins: formatNumber(summary.wins) },
      ),
    ),
  );
  svg.append(svgElement("line", { class: "chart-grid", x1: left, x2: width - right, y1: top + plotHeight, y2: top + plotHeight }));
  svg.append(svgElement("text", { class: "chart-label", x: left - 6, y: top + 8, "text-anchor": anchorAt("right", box) }, formatNumber(most)));
  summary.piles.forEach((bar, index) => {
    const x = left + index * slot;
    if (bar.players > 0) {
      const barHeight = Math.max(1, (bar.players * plotHeight) / most);
      const rect = svgElement("rect", {
        class: bar.piles === 1 ? "chart-bar won" : "chart-bar",
        x: (x + slot * 0.12).toFixed(1),
        y: (top + plotHeight - barHeight).toFixed(1),
        width: (slot * 0.76).toFixed(1),
        height: barHeight.toFixed(1),
        "data-piles": bar.piles,
      });
      rect.append(
        svgElement(
          "title",
          {},
          interpolate(ngettext("%(players)s player: %(piles)s piles", "%(players)s players: %(piles)s piles", bar.players), {
            players: formatNumber(bar.players),
            piles: bar.piles,
          }),
        ),
      );
      svg.append(rect);
    }
    if (PILE_LABELS.includes(bar.piles)) {
      svg.append(svgElement("text", { class: "chart-label", x: (x + slot / 2).toFixed(1), y: height - 8, "text-anchor": "middle" }, formatNumber(bar.piles)));
    }
  });
  container.append(svg);
}

// ---------------------------------------------------------------- ranking

/** One row of a board: the reader's own is marked (and focusable); its game can be replayed when `replayable`
 * or when it is the reader's own. */
function boardRow(entry, { mine, replayable }) {
  const row = element("tr", { attrs: { "data-testid": mine ? "my-row" : "board-row", "data-game": entry.game } });
  if (mine) {
    row.classList.add("is-me");
    row.setAttribute("aria-current", "true");
    row.tabIndex = -1;
  }
  const player = element("td", { className: "player" });
  const name = { href: profileUrl(entry.player), dir: "auto", title: entry.player };
  player.append(element("a", { className: "player-name", text: entry.player, attrs: name }));
  if (mine) player.append(" ", element("span", { className: "player-chip", text: gettext("you") }));
  const replay = element("td");
  if (replayable || mine) {
    replay.append(element("a", { text: gettext("Replay"), attrs: { href: replayPageUrl(entry.game), "data-testid": "replay-link" } }));
  }
  if (entry.provisional) {
    player.append(" ", element("span", {
      className: "provisional-chip",
      text: gettext("provisional"),
      attrs: { title: gettext("This place may still change: a day's first places are checked before they are final."), "data-testid": "provisional" },
    }));
  }
  row.append(
    element("td", { className: "num", text: formatNumber(entry.rank) }),
    player,
    element("td", { className: "num", text: formatNumber(entry.score) }),
    element("td", { className: "num", text: entry.won ? gettext("won") : formatNumber(entry.piles) }),
    element("td", { className: "num", text: formatDuration(entry.seconds), attrs: { dir: "ltr" } }),
    replay,
  );
  return row;
}

/** Why the reader has no row on a day's board. */
function offBoardNote(status) {
  const notes = {
    under_review: gettext("Your result is waiting for a quick review. It joins the board as soon as it is checked: thank you for your patience."),
    off_board: gettext("Your result was reviewed and is not on the board."),
    none: gettext("You have no finished ranked attempt on this day."),
  };
  return notes[status] ?? notes.none;
}

class Ranking {
  constructor(page, { date, dayOver }) {
    this.page = page;
    this.date = date;
    this.dayOver = dayOver;
    this.number = 1;
    this.pages = 1;
    this.mine = null;
    Object.assign(
      this,
      byTestIds(page, {
        table: "board",
        empty: "board-empty",
        pager: "pager",
        position: "page-position",
        previous: "previous-page",
        next: "next-page",
        myRank: "my-rank",
        myNote: "my-rank-note",
      }),
    );
    this.body = this.table.querySelector("tbody");
    this.previous.addEventListener("click", () => this.show(this.number - 1));
    this.next.addEventListener("click", () => this.show(this.number + 1));
    this.myRank.addEventListener("click", () => this.showMine());
  }

  async show(number, { focusMine = false } = {}) {
    const board = await getDailyBoard(this.date, number);
    this.number = board.page;
    this.pages = board.pages;
    this.dayOver = board.day_over;
    this.draw(board);
    const url = new URL(window.location.href);
    if (board.page > 1) url.searchParams.set("page", String(board.page));
    else url.searchParams.delete("page");
    window.history.replaceState(null, "", url);
    if (focusMine) {
      const row = this.body.querySelector('[data-testid="my-row"]');
      row?.scrollIntoView({ block: "center" });
      row?.focus({ preventScroll: true });
    }
  }

  draw(board) {
    this.table.hidden = board.entries.length === 0;
    this.empty.hidden = board.entries.length > 0;
    this.body.replaceChildren(...board.entries.map((entry) => this.row(entry)));
    this.pager.hidden = board.pages <= 1;
    this.previous.disabled = board.page <= 1;
    this.next.disabled = board.page >= board.pages;
    this.position.textContent = interpolate(gettext("Page %(page)s of %(pages)s"), {
      page: formatNumber(board.page),
      pages: formatNumber(board.pages),
    });
  }

  row(entry) {
    return boardRow(entry, { mine: this.mine?.entry?.game === entry.game, replayable: this.dayOver });
  }

  /** The reader's own row: loaded with the page it is on, highlighted, focused. */
  async showMine() {
    this.myNote.hidden = true;
    const status = this.mine?.status ?? "none";
    if (status === "on_board") {
      await this.show(this.mine.page, { focusMine: true });
      this.myNote.hidden = false;
      this.myNote.textContent = interpolate(gettext("You are number %(rank)s of %(count)s on this day's board."), {
        rank: formatNumber(this.mine.entry.rank),
        count: formatNumber(this.count ?? this.mine.entry.rank),
      });
      return;
    }
    this.myNote.hidden = false;
    this.myNote.textContent = offBoardNote(status);
  }
}

// ---------------------------------------------------------------- your day (today, once your attempt is over)

const SECOND_MS = 1000;

/** Today's result of the reader, their rank, the board around them, a countdown to the next deal and a
 * button to practise the deal. The countdown runs from the server's figure on the browser's monotonic clock,
 * so a device whose clock is wrong counts down to the server's midnight all the same. */
class MyDay {
  constructor(panel) {
    this.panel = panel;
    Object.assign(
      this,
      byTestIds(panel, {
        result: "my-day-result",
        rank: "my-day-rank",
        around: "around",
        nextDeal: "next-deal",
        practice: "practice-daily",
        error: "practice-error",
      }),
    );
    this.practice.addEventListener("click", () => this.practise());
    this.countDown(Number(panel.dataset.nextDealIn));
  }

  draw(mine, { count }) {
    if (mine.status !== "on_board") {
      this.result.textContent = mine.status === "none" ? gettext("Your game on today's deal was practice, so it is not on the board.") : "";
      this.rank.textContent = mine.status === "none" ? "" : offBoardNote(mine.status);
      return;
    }
    const { entry } = mine;
    const values = { score: formatNumber(entry.score), time: formatDuration(entry.seconds), piles: formatNumber(entry.piles) };
    this.result.textContent = entry.won
      ? interpolate(gettext("You won today's deal: %(score)s points in %(time)s."), values)
      : interpolate(ngettext("%(piles)s pile left: %(score)s points in %(time)s.", "%(piles)s piles left: %(score)s points in %(time)s.", entry.piles), values);
    this.rank.textContent = interpolate(gettext("You are number %(rank)s of %(count)s on this day's board."), {
      rank: formatNumber(entry.rank),
      count: formatNumber(Math.max(count ?? entry.rank, entry.rank)),
    });
    const rows = mine.around.map((row) => {
      const own = row.game === entry.game;
      const drawn = boardRow(row, { mine: own, replayable: false });
      drawn.setAttribute("data-testid", own ? "around-me" : "around-row");
      drawn.removeAttribute("tabindex");
      return drawn;
    });
    this.around.querySelector("tbody").replaceChildren(...rows);
    this.around.hidden = rows.length === 0;
  }

  countDown(seconds) {
    const started = performance.now();
    const tick = () => {
      const left = Math.ceil(seconds - (performance.now() - started) / SECOND_MS);
      if (left > 0) {
        this.nextDeal.textContent = interpolate(gettext("Next daily deal in %(time)s"), { time: formatDuration(left) });
        return;
      }
      clearInterval(timer);
      this.nextDeal.textContent = gettext("A new daily deal is out: reload the page to play it.");
    };
    const timer = setInterval(tick, SECOND_MS / 4);
    tick();
  }

  async practise() {
    this.error.hidden = true;
    this.practice.disabled = true;
    try {
      await startGameAndGo("daily");
    } catch (failure) {
      this.practice.disabled = false;
      this.error.hidden = false;
      this.error.textContent = failure.message;
    }
  }
}

// ---------------------------------------------------------------- the seed and the all-time boards

function drawSeed(page, seed) {
  const values = {
    commitment: seed.commitment,
    seed: seed.seed && interpolate(gettext("%(seed)s (attempt %(attempt)s)"), { seed: seed.seed, attempt: seed.attempt ?? "?" }),
  };
  const pending = { commitment: gettext("not published yet"), seed: gettext("published when the day is over") };
  for (const cell of page.querySelectorAll("[data-seed]")) {
    const value = values[cell.dataset.seed];
    cell.textContent = value || pending[cell.dataset.seed];
    cell.classList.toggle("seed-pending", !value);
  }
}

function allTimeValue(board, row) {
  switch (board) {
    case "wins":
      return interpolate(ngettext("%(count)s win", "%(count)s wins", row.value), { count: formatNumber(row.value) });
    case "streaks":
      return interpolate(ngettext("%(count)s day", "%(count)s days", row.value), { count: formatNumber(row.value) });
    default:
      return formatNumber(row.value, { maximumFractionDigits: 0 });
  }
}

function drawAllTime(page, boards) {
  for (const list of page.querySelectorAll("[data-board]")) {
    const rows = boards[list.dataset.board];
    if (rows.length === 0) {
      list.replaceChildren(element("li", { className: "profile-note", text: gettext("Nobody yet.") }));
      continue;
    }
    list.replaceChildren(
      ...rows.map((row) => {
        const item = element("li");
        item.append(
          element("span", { className: "all-time-rank", text: formatNumber(row.rank) }),
          element("a", { text: row.player, attrs: { href: profileUrl(row.player), dir: "auto" } }),
          element("span", { className: "all-time-value", text: allTimeValue(list.dataset.board, row) }),
        );
        return item;
      }),
    );
  }
}

// ---------------------------------------------------------------- the page

export async function main() {
  const page = document.getElementById("daily-page");
  const { date, today } = page.dataset;
  const error = page.querySelector('[data-testid="daily-error"]');
  const begun = date <= today;

  function showError(failure) {
    error.hidden = false;
    error.textContent = failure instanceof ApiError ? failure.message : gettext("Something went wrong. Please reload the page.");
  }

  const loads = [getDailySeed(date).then((seed) => drawSeed(page, seed)), getAllTimeBoards().then((boards) => drawAllTime(page, boards))];
  if (begun) {
    const ranking = new Ranking(page, { date, dayOver: date < today });
    const myDayPanel = page.querySelector('[data-testid="my-day"]');
    const myDay = myDayPanel ? new MyDay(myDayPanel) : null;
    const counted = getDailySummary(date).then((summary) => {
      ranking.count = summary.players;
      drawSummary(page, summary);
    });
    const requested = Number.parseInt(new URLSearchParams(window.location.search).get("page") || "1", 10);
    loads.push(
      counted,
      getDailyMine(date)
        .then((mine) => {
          ranking.mine = mine;
          // The rank's "of N" needs the day's count: drawn once the summary is in (or has failed).
          const drawMyDay = () => myDay?.draw(mine, { count: ranking.count });
          counted.then(drawMyDay, drawMyDay);
        })
        .then(() => ranking.show(Number.isInteger(requested) && requested > 0 ? requested : 1))
        // A page number from an old link may be past today's last page: show the first instead.
        .catch((failure) => (failure instanceof ApiError && failure.status === 404 ? ranking.show(1) : Promise.reject(failure)))
        .then(() => {
          if (window.location.hash === "#me") ranking.showMine();
        }),
    );
  }
  const results = await Promise.allSettled(loads);
  const failed = results.find((result) => result.status === "rejected");
  if (failed) showError(failed.reason);
  page.setAttribute("aria-busy", "false");
}

main();
