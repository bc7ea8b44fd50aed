// The live list: every game being played whose player lets others watch, the most interesting first
// (most watched, then closest to a win), with its player, piles, time and watchers; a game on a daily
// deal whose day is not over shows those too, but no way to watch it. It loads from GET /api/live,
// then follows /ws/live/, which sends what changed at most once a second. A race's games are shown
// together, linked to the race. Also the player's "let others watch my games" switch.
// main() runs the page.

import { getLive } from "../api.js";
import { formatDuration } from "../clock.js";
import { showConnection } from "../dom.js";
import { modeLabel } from "../game_modes.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { WatchSetting } from "../watch_setting.js";
import { LiveSocket } from "../socket.js";

const TICK_MS = 1000;

/** The list's order, as the server sorts it: most watched, then fewest piles, then the newest. */
function interest(a, b) {
  return b.watchers - a.watchers || a.piles - b.piles || b.id - a.id;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function watchersLabel(count) {
  return interpolate(ngettext("%(count)s watching", "%(count)s watching", count), { count });
}

function pilesLabel(count) {
  return interpolate(ngettext("%(count)s pile", "%(count)s piles", count), { count });
}

class LivePage {
  constructor(page) {
    this.page = page;
    const byTestId = (id) => page.querySelector(`[data-testid="${id}"]`);
    this.el = {
      list: byTestId("live-list"),
      empty: byTestId("live-empty"),
      error: byTestId("live-error"),
      connection: byTestId("connection"),
    };
    this.setting = new WatchSetting({
      box: page.querySelector('[data-role="setting"]'),
      toggle: byTestId("watchable-toggle"),
      error: byTestId("live-error"),
    });
    this.games = new Map(); // id → entry
    this.clockOffsetMs = 0; // server clock − this browser's clock
    this.socket = new LiveSocket({
      nextPath: () => "/ws/live/",
      onMessage: (message) => {
        if (message.t === "live") this.take(message.server_now, message.games, message.gone, message.full);
      },
      onState: (state) => this.showConnection(state),
    });
  }

  start() {
    this.load();
    this.socket.start();
    this.setting.start();
    setInterval(() => this.tickTimers(), TICK_MS);
  }

  // ---------------------------------------------------------------- the list

  async load() {
    try {
      const live = await getLive();
      this.take(live.server_now, live.games, [], true);
    } catch (error) {
      this.el.error.textContent = error.message;
      this.el.error.hidden = false;
    }
  }

  take(serverNow, games, gone, full) {
    this.clockOffsetMs = Date.parse(serverNow) - Date.now();
    if (full) this.games.clear();
    for (const id of gone) this.games.delete(id);
    for (const entry of games) this.games.set(entry.id, entry);
    this.render();
  }

  showConnection(state) {
    showConnection(this.el.connection, state);
  }

  /** A race's games become one item; each solo game is one; ordered like the server orders them. */
  items() {
    const entries = [...this.games.values()].sort(interest);
    const items = [];
    const races = new Map();
    for (const entry of entries) {
      if (!entry.race) {
        items.push({ kind: "game", entry });
      } else if (races.has(entry.race)) {
        races.get(entry.race).entries.push(entry);
      } else {
        const race = { kind: "race", code: entry.race, entries: [entry] };
        races.set(entry.race, race);
        items.push(race);
      }
    }
    return items;
  }

  render() {
    const items = this.items().map((item) => (item.kind === "race" ? this.raceItem(item) : this.gameItem(item.entry)));
    this.el.list.replaceChildren(...items);
    this.el.list.dataset.loaded = "true";
    this.el.empty.hidden = items.length > 0;
    this.tickTimers();
  }

  /** A game on a daily deal whose day is not over: its piles and time show, but nobody may watch it. */
  withheldNote() {
    return element(
      "p",
      "live-locked",
      gettext("Today's daily deal: nobody can watch it until the day ends (midnight UTC)."),
    );
  }

  gameItem(entry) {
    const item = element("li", "live-item");
    item.dataset.testid = "live-game";
    item.dataset.game = String(entry.id);
    const head = element("div", "live-item-head");
    head.append(element("bdi", "live-player", entry.player), element("span", "mode-chip", modeLabel(entry.mode)));
    item.append(head, this.facts(entry));
    if (entry.withheld) {
      item.classList.add("is-locked");
      item.append(this.withheldNote());
    } else {
      const link = element("a", "btn btn-gold btn-small", gettext("Watch"));
      link.href = this.page.dataset.watchUrl.replace(/0$/, String(entry.id));
      link.dataset.testid = "watch-link";
      item.append(link);
    }
    return item;
  }

  raceItem(race) {
    const item = element("li", "live-item live-race");
    item.dataset.testid = "live-race";
    item.dataset.race = race.code;
    const head = element("div", "live-item-head");
    head.append(
      element("span", "live-player", interpolate(gettext("Race %(code)s"), { code: race.code })),
      element("span", "mode-chip", watchersLabel(race.entries.reduce((sum, entry) => sum + entry.watchers, 0))),
    );
    const racers = element("ul", "live-racers");
    for (const entry of race.entries) {
      const racer = element("li", "live-racer");
      racer.append(element("bdi", "live-player", entry.player), element("span", "live-fact", pilesLabel(entry.piles)));
      racers.append(racer);
    }
    item.append(head, racers);
    if (race.entries.some((entry) => entry.withheld)) {
      // A race on today's daily deal (a ghost of the host's own attempt): its room is the host's alone.
      item.classList.add("is-locked");
      item.append(this.withheldNote());
    } else {
      const link = element("a", "btn btn-gold btn-small", gettext("Watch the race"));
      link.href = this.page.dataset.raceUrl.replace(/CODE$/, encodeURIComponent(race.code));
      item.append(link);
    }
    return item;
  }

  facts(entry) {
    const facts = element("p", "live-facts");
    const time = element("span", "live-fact live-time");
    time.dir = "ltr";
    time.dataset.startedAt = entry.started_at;
    facts.append(
      element("span", "live-fact", pilesLabel(entry.piles)),
      time,
      element("span", "live-fact live-watchers", watchersLabel(entry.watchers)),
    );
    return facts;
  }

  tickTimers() {
    const now = Date.now() + this.clockOffsetMs;
    for (const time of this.el.list.querySelectorAll("[data-started-at]")) {
      time.textContent = formatDuration((now - Date.parse(time.dataset.startedAt)) / 1000);
    }
  }
}

export function main() {
  new LivePage(document.getElementById("live-page")).start();
}

main();
