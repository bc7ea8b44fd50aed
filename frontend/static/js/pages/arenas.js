// The arenas: upcoming, live and finished (GET /api/arenas), each with its length, its start or end in
// the reader's own time and its players; and the form that opens a new one (POST /api/arenas), whose
// page opens at once. main() runs the page; nothing runs on import.

import { createArena, getArenas } from "../api.js";
import { element } from "../dom.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { localDigits } from "../locale_format.js";

const STATES = ["live", "upcoming", "finished"];
const REFRESH_MS = 15000;

/** "14:05" (or "Mon 14:05" when not today) in the page's language and the reader's time zone. */
function clockTime(iso) {
  const when = new Date(iso);
  const today = new Date().toDateString() === when.toDateString();
  const options = today ? { timeStyle: "short" } : { weekday: "short", hour: "2-digit", minute: "2-digit" };
  return localDigits(new Intl.DateTimeFormat(document.documentElement.lang || undefined, options).format(when));
}

function arenaItem(arena) {
  const item = element("li", { className: "live-game arena-entry", attrs: { "data-testid": "arena", "data-code": arena.code } });
  const link = element("a", { className: "live-player", attrs: { "data-testid": "arena-link" } });
  link.href = arena.url;
  link.append(`${gettext("Arena")} `, element("code", { text: arena.code, attrs: { dir: "ltr" } }));
  const minutes = Math.round((Date.parse(arena.ends_at) - Date.parse(arena.starts_at)) / 60000);
  const length = interpolate(ngettext("%(count)s minute", "%(count)s minutes", minutes), { count: localDigits(minutes) });
  let when;
  if (arena.state === "upcoming") when = interpolate(gettext("starts at %(time)s"), { time: clockTime(arena.starts_at) });
  else if (arena.state === "live") when = interpolate(gettext("ends at %(time)s"), { time: clockTime(arena.ends_at) });
  else when = interpolate(gettext("ended at %(time)s"), { time: clockTime(arena.ends_at) });
  const players = interpolate(ngettext("%(count)s player", "%(count)s players", arena.players ?? 0), {
    count: localDigits(arena.players ?? 0),
  });
  item.append(link, element("span", { className: "live-facts", text: `${length} · ${when} · ${players}` }));
  return item;
}

class ArenasPage {
  constructor(page) {
    const byTestId = (id) => page.querySelector(`[data-testid="${id}"]`);
    this.el = {
      form: byTestId("arena-form"),
      minutes: byTestId("arena-minutes"),
      startsIn: byTestId("arena-starts-in"),
      create: byTestId("arena-create"),
      error: byTestId("arena-error"),
    };
    this.lists = Object.fromEntries(STATES.map((state) => [state, { list: byTestId(`arenas-${state}`), empty: byTestId(`arenas-${state}-empty`) }]));
  }

  start() {
    this.el.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.create();
    });
    this.load();
    setInterval(() => this.load(), REFRESH_MS);
  }

  showError(message) {
    this.el.error.textContent = message;
    this.el.error.hidden = !message;
  }

  async load() {
    let arenas;
    try {
      arenas = await getArenas();
    } catch (error) {
      this.showError(error.message);
      return;
    }
    for (const state of STATES) {
      const found = Array.isArray(arenas[state]) ? arenas[state] : [];
      this.lists[state].list.replaceChildren(...found.map(arenaItem));
      this.lists[state].empty.hidden = found.length > 0;
    }
  }

  async create() {
    const minutes = Number(this.el.minutes.value);
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 120) {
      this.showError(gettext("An arena lasts from 1 to 120 minutes."));
      this.el.minutes.focus();
      return;
    }
    this.showError("");
    this.el.create.disabled = true;
    try {
      const arena = await createArena(minutes, Number(this.el.startsIn.value));
      window.location.assign(arena.url);
    } catch (error) {
      this.el.create.disabled = false;
      this.showError(error.message);
    }
  }
}

export function main() {
  new ArenasPage(document.getElementById("arenas-page")).start();
}

main();
