// The opt-in "still winnable?" indicator of an unranked game in progress (in a ranked game it would
// be a hint). The server allows 30 solver requests a minute per player, hints and checks together:
// after the last acknowledged move the indicator waits a moment, and never asks more often than every
// 3 s, nor before a pause the server asked for.

import { ApiError, getWinnable } from "../../api.js";
import { gettext } from "../../i18n.js";

const DEBOUNCE_MS = 800;
const MIN_GAP_MS = 3000;
const BUSY_RETRY_MS = 5000;
const LIMITED_RETRY_MS = 20000;
const STORAGE_KEY = "accordion:winnable-indicator";

function readChoice() {
  try {
    return localStorage.getItem(STORAGE_KEY) === "on";
  } catch {
    return false;
  }
}

function writeChoice(on) {
  try {
    localStorage.setItem(STORAGE_KEY, on ? "on" : "off");
  } catch {
    /* storage disabled: the choice lasts as long as the page */
  }
}

export class WinnableIndicator {
  /**
   * @param {object} options
   * @param {number} options.gameId
   * @param {{box: HTMLElement, toggle: HTMLElement, badge: HTMLElement}} options.elements
   * @param {() => boolean} options.available  an unranked game still being played
   * @param {() => {settled: boolean, version: number|null} | null} options.link  the page's link now
   * @param {() => void} options.onRanked  the server counts the game as ranked after all
   */
  constructor({ gameId, elements, available, link, onRanked }) {
    this.gameId = gameId;
    this.el = elements;
    this.available = available;
    this.link = link;
    this.onRanked = onRanked;
    this.on = readChoice();
    this.timer = 0;
    this.inFlight = false;
    this.again = false;
    this.lastAt = 0; // when the last check was sent (Date.now())
    this.pausedUntil = 0; // after "busy" or "rate_limited"
    this.el.toggle.addEventListener("click", () => this.switchTo(!this.on));
  }

  /** Show or hide the switch and the answer as the game allows. */
  update() {
    const available = this.available();
    this.el.box.hidden = !available;
    this.el.toggle.setAttribute("aria-checked", String(this.on));
    this.el.badge.hidden = !available || !this.on;
  }

  switchTo(on) {
    this.on = on;
    writeChoice(on);
    if (on) {
      this.schedule(0);
    } else {
      this.stop();
    }
    this.update();
  }

  /** Check soon: after `delay`, but never sooner than the minimum gap or a pause the server asked for. */
  schedule(delay = DEBOUNCE_MS) {
    if (!this.on || !this.available()) return;
    this.show(null, { checking: true });
    clearTimeout(this.timer);
    const now = Date.now();
    const wait = Math.max(delay, this.lastAt + MIN_GAP_MS - now, this.pausedUntil - now, 0);
    this.timer = setTimeout(() => this.check(), wait);
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = 0;
    this.again = false;
  }

  /** Show an answer (status null: keep the last one, dimmed while a new check is due). */
  show(status, { checking = false, label = "" } = {}) {
    const labels = {
      win: gettext("Still winnable"),
      lost: gettext("No longer winnable"),
      unknown: gettext("Can't tell"),
    };
    const badge = this.el.badge;
    if (status) {
      badge.dataset.state = status;
      badge.textContent = label || (labels[status] ?? labels.unknown);
    } else if (!badge.dataset.state) {
      badge.textContent = gettext("Checking…");
    }
    badge.classList.toggle("is-checking", checking);
    badge.setAttribute("aria-busy", String(checking));
  }

  async check() {
    this.timer = 0;
    if (!this.on || !this.available()) return;
    if (this.inFlight) {
      this.again = true;
      return;
    }
    // Moves still on their way: the link's next settled moment schedules a new check.
    if (!this.link()?.settled) return;
    this.inFlight = true;
    this.lastAt = Date.now();
    try {
      const answer = await getWinnable(this.gameId);
      if (!this.available()) return;
      // An answer about an older version than the board has heard of is out of date: drop it.
      const version = this.link()?.version ?? null;
      if (typeof answer.version === "number" && version !== null && answer.version < version) return;
      this.show(answer.status, { checking: !this.link()?.settled });
    } catch (error) {
      this.failed(error);
    } finally {
      this.inFlight = false;
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    }
  }

  failed(error) {
    const code = error instanceof ApiError ? error.code : "";
    if (code === "rate_limited") {
      this.pausedUntil = Date.now() + LIMITED_RETRY_MS;
      this.show("unknown", { label: gettext("Can't tell: too many checks this minute") });
      this.again = true;
    } else if (code === "busy" || code === "network") {
      this.pausedUntil = Date.now() + BUSY_RETRY_MS;
      this.show("unknown", { label: gettext("Can't tell: the solver is busy") });
      this.again = true;
    } else if (code === "game_finished") {
      /* the finish is on its way to the board */
    } else if (error instanceof ApiError && error.status === 400) {
      this.onRanked(); // the indicator would be a hint
    } else {
      this.show("unknown");
    }
  }
}
