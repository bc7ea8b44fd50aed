// The profile page: a player's statistics, score chart, daily calendar and recent games, all drawn from
// GET /api/players/<nickname>. Every text from the server goes in with textContent, never as HTML.

import { getProfile } from "../api.js";
import { formatDuration } from "../clock.js";
import { anchorAt, chartBox, element, svgElement } from "../dom.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { calendarMonth, firstWeekday, formatDate as formatDay, formatNumber } from "../locale_format.js";
import { replayPageUrl } from "../nav.js";
import { score } from "../rules.js";

const BEST_SCORE = score(1, 0); // a win in no time: the chart's top
const CHART = { width: 640, height: 200, left: 44, right: 12, top: 12, bottom: 26 };

function locale() {
  return document.documentElement.lang || undefined;
}

function formatDate(isoDate, options) {
  // A day's own name (in the calendar) is long; elsewhere a day is shown with its Solar Hijri date in Persian.
  if (!options) return formatDay(isoDate);
  // Dates of daily deals are UTC dates: show them as such, whatever the device's time zone.
  return new Intl.DateTimeFormat(locale(), { ...options, timeZone: "UTC" }).format(new Date(`${isoDate}T00:00:00Z`));
}

function formatDays(count) {
  return interpolate(ngettext("%(count)s day", "%(count)s days", count), { count: formatNumber(count) });
}

// ---------------------------------------------------------------- statistics

function statText(name, stats) {
  const value = stats[name];
  if (value === null || value === undefined) return "–";
  switch (name) {
    case "win_rate":
      return formatNumber(value, { style: "percent", maximumFractionDigits: 1 });
    case "fastest_win":
    case "average_win_seconds":
      return formatDuration(Math.round(value));
    case "average_piles":
      return formatNumber(value, { maximumFractionDigits: 1 });
    case "current_streak":
    case "longest_streak":
      return formatDays(value);
    default:
      return formatNumber(value);
  }
}

function drawStats(page, stats) {
  // Races are counted by the race rooms, which the profile API (accounts) does not read: the page has them.
  const all = { ...stats, races_played: Number(page.dataset.racesPlayed), races_won: Number(page.dataset.racesWon) };
  for (const cell of page.querySelectorAll("[data-stat]")) cell.textContent = statText(cell.dataset.stat, all);
}

// ---------------------------------------------------------------- score chart

function drawChart(container, points) {
  container.replaceChildren();
  if (points.length === 0) {
    container.append(element("p", { className: "profile-note", text: gettext("No finished games yet.") }));
    return;
  }
  const box = chartBox(container, CHART);
  const { width, height, left, right, top, plotWidth, plotHeight } = box;
  const x = (index) => left + (points.length === 1 ? plotWidth / 2 : (index * plotWidth) / (points.length - 1));
  const y = (value) => top + plotHeight - (Math.min(value, BEST_SCORE) * plotHeight) / BEST_SCORE;

  const first = formatDate(points[0].at.slice(0, 10));
  const last = formatDate(points[points.length - 1].at.slice(0, 10));
  const svg = svgElement("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart-svg" });
  const title = svgElement("title");
  title.textContent = interpolate(
    ngettext(
      "Score of the last game, %(first)s",
      "Scores of the last %(count)s games, from %(first)s to %(last)s",
      points.length,
    ),
    { count: points.length, first, last },
  );
  svg.append(title);

  for (const level of [0, 1000, 2000]) {
    svg.append(svgElement("line", { class: "chart-grid", x1: left, x2: width - right, y1: y(level), y2: y(level) }));
    const label = svgElement("text", { class: "chart-label", x: left - 6, y: y(level) + 4, "text-anchor": anchorAt("right", box) });
    label.textContent = formatNumber(level);
    svg.append(label);
  }
  const line = points.map((point, index) => `${x(index).toFixed(1)},${y(point.score).toFixed(1)}`).join(" ");
  svg.append(svgElement("polyline", { class: "chart-line", points: line }));
  points.forEach((point, index) => {
    const dot = svgElement("circle", {
      class: point.won ? "chart-point won" : "chart-point",
      cx: x(index).toFixed(1),
      cy: y(point.score).toFixed(1),
      r: point.won ? 4 : 3,
    });
    const tip = svgElement("title");
    tip.textContent = `${formatDate(point.at.slice(0, 10))}: ${formatNumber(point.score)}`;
    dot.append(tip);
    svg.append(dot);
  });
  // The axis's ends name their days in the page's own calendar only: both calendars would not fit a phone.
  // Games all of one day share one label, in the middle: two ends reading the same date say nothing.
  const axisDate = (point) => formatDate(point.at.slice(0, 10), { dateStyle: "medium" });
  const [firstDay, lastDay] = [axisDate(points[0]), axisDate(points[points.length - 1])];
  const ends = firstDay === lastDay
    ? [[firstDay, "middle", left + plotWidth / 2]]
    : [[firstDay, "left", left], [lastDay, "right", width - right]];
  for (const [text, side, at] of ends) {
    const anchor = side === "middle" ? "middle" : anchorAt(side, box);
    const label = svgElement("text", { class: "chart-label", x: at, y: height - 6, "text-anchor": anchor });
    label.textContent = text;
    svg.append(label);
  }
  container.append(svg);
}

// ---------------------------------------------------------------- daily calendar

function isoDate(date) {
  return date.toISOString().slice(0, 10);
}

function weekdayNames(start) {
  // 2023-12-31 was a Sunday: day `start + i` after it names the calendar's i-th column.
  const format = new Intl.DateTimeFormat(locale(), { weekday: "narrow", timeZone: "UTC" });
  return Array.from({ length: 7 }, (_, day) => format.format(new Date(Date.UTC(2023, 11, 31 + start + day))));
}

function dayCell(date, result) {
  // The site's own date (in Persian the Solar Hijri first, the Gregorian beside it) after the weekday.
  const weekday = formatDate(date, { weekday: "long" });
  const label = `${weekday} ${formatDay(date)}`;
  if (!result) {
    return element("span", { className: "day", attrs: { "data-date": date, title: label } });
  }
  const outcome = result.won
    ? gettext("won")
    : interpolate(ngettext("%(piles)s pile left", "%(piles)s piles left", result.piles), { piles: result.piles });
  const cell = element("a", {
    className: result.won ? "day played won" : "day played",
    text: result.won ? "★" : formatNumber(result.piles),
    attrs: { href: result.url, "data-date": date, title: `${label}: ${outcome}`, "aria-label": `${label}: ${outcome}` },
  });
  return cell;
}

function drawCalendar(container, calendar) {
  // Months and weeks as the page's calendar has them: Solar Hijri months from Saturday in Persian,
  // Gregorian months from Monday in English. The newest month comes first, so today is at the top
  // rather than six months of grids down a phone's screen.
  container.replaceChildren();
  // Each played day leads to its game's replay, which says when a day's game can be replayed by others.
  const results = new Map(calendar.days.map((day) => [day.date, { ...day, url: replayPageUrl(day.game) }]));
  const start = firstWeekday();
  const names = weekdayNames(start);
  const last = new Date(`${calendar.last_day}T00:00:00Z`);
  let grid = null;
  let monthKey = null;
  for (let day = new Date(`${calendar.first_day}T00:00:00Z`); day <= last; day = new Date(day.getTime() + 86_400_000)) {
    const date = isoDate(day);
    const month = calendarMonth(date);
    if (month.key !== monthKey) {
      monthKey = month.key;
      const block = element("section", { className: "month" });
      block.append(element("h3", { className: "month-name", text: month.title }));
      grid = element("div", { className: "month-grid" });
      for (const name of names) grid.append(element("span", { className: "weekday", text: name, attrs: { "aria-hidden": "true" } }));
      const blanks = (day.getUTCDay() - start + 7) % 7;
      for (let i = 0; i < blanks; i += 1) grid.append(element("span", { className: "day blank", attrs: { "aria-hidden": "true" } }));
      block.append(grid);
      container.prepend(block);
    }
    grid.append(dayCell(date, results.get(date)));
  }
}

// ---------------------------------------------------------------- recent games

function dealText(game) {
  if (game.daily_date) {
    const daily = interpolate(gettext("Daily %(date)s"), { date: formatDate(game.daily_date) });
    return game.ranked ? daily : interpolate(gettext("%(deal)s (practice)"), { deal: daily });
  }
  return game.deal_code || gettext("New deal");
}

/**
 * "Race this game as a ghost" for a finished game, or null where the server would refuse it: every game
 * of the viewer's own, and anyone else's but one on a daily deal whose day (UTC, the server's) is not over.
 */
function ghostButton(template, game) {
  const { mine, today } = template.dataset;
  if (mine !== "true" && game.daily_date && game.daily_date >= today) return null;
  const form = template.content.querySelector("form").cloneNode(true);
  form.querySelector('input[name="ghost"]').value = String(game.id);
  return form;
}

function drawRecent(page, games) {
  const ghostTemplate = page.querySelector('template[data-role="ghost-race"]');
  const table = page.querySelector('[data-testid="recent-games"]');
  const body = table.querySelector("tbody");
  body.replaceChildren();
  const finished = new Intl.DateTimeFormat(locale(), { dateStyle: "medium" });
  for (const game of games) {
    const row = element("tr", { attrs: { "data-testid": "recent-game", "data-game": String(game.id) } });
    const deal = element("td", { text: dealText(game) });
    if (game.deal_code && !game.daily_date) deal.dir = "ltr";
    const link = element("a", { className: "btn btn-ghost btn-small", text: gettext("Replay"), attrs: { href: game.url } });
    row.append(
      element("td", { text: finished.format(new Date(game.finished_at)) }),
      deal,
      element("td", { className: "num", text: formatNumber(game.score) }),
      element("td", { className: "num", text: game.won ? gettext("Won") : formatNumber(game.piles) }),
      element("td", { className: "num", text: formatDuration(game.seconds), attrs: { dir: "ltr" } }),
      element("td", {}),
    );
    row.lastChild.append(link);
    const ghost = ghostTemplate && ghostButton(ghostTemplate, game);
    if (ghost) row.lastChild.append(ghost);
    body.append(row);
  }
  table.hidden = games.length === 0;
  page.querySelector('[data-role="no-games"]').hidden = games.length > 0;
}

// ---------------------------------------------------------------- the page

export async function main() {
  const page = document.getElementById("profile-page");
  const error = page.querySelector('[data-testid="profile-error"]');
  try {
    const profile = await getProfile(page.dataset.nickname);
    drawStats(page, profile.stats);
    drawChart(page.querySelector('[data-testid="score-chart"]'), profile.scores);
    drawCalendar(page.querySelector('[data-testid="calendar"]'), profile.calendar);
    drawRecent(page, profile.recent);
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
  } finally {
    page.setAttribute("aria-busy", "false");
  }
}

main();
