// The arenas: upcoming, live and finished (GET /api/arenas), each with its length, its start or end in
// the reader's own time and its players; and the form that opens a new one (POST /api/arenas), whose
// page opens at once. main() runs the page; nothing runs on import.

import { createArena, getArenas } from "../api.js";
import { arenaEntry } from "../arena_entry.js";
import { gettext } from "../i18n.js";

const STATES = ["live", "upcoming", "finished"];
const REFRESH_MS = 15000;

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
      this.lists[state].list.replaceChildren(...found.map(arenaEntry));
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
