// A game's timer runs on the server's clock: `started_at` and `server_now` come from the same server,
// so the time played is server_now − started_at plus the time since that answer arrived, measured on
// the browser's monotonic clock. A device whose clock is wrong, or is changed mid-game, shows the
// same time as the server.

import { localDigits } from "./locale_format.js";

const TICK_MS = 250;

export class GameClock {
  /**
   * @param {object} game  the game JSON: `started_at` and `server_now` (ISO times)
   * @param {() => number} [now]  a monotonic clock in milliseconds (tests pass their own)
   */
  constructor({ started_at: startedAt, server_now: serverNow }, now = () => performance.now()) {
    this.now = now;
    this.playedAtAnswerMs = Date.parse(serverNow) - Date.parse(startedAt);
    this.answeredAt = now();
    this.timer = 0;
  }

  /** Whole seconds played so far. */
  seconds() {
    return Math.max(0, Math.floor((this.playedAtAnswerMs + this.now() - this.answeredAt) / 1000));
  }

  /** Call onTick(seconds) now and a few times a second until stop(). */
  start(onTick) {
    this.stop();
    const tick = () => onTick(this.seconds());
    tick();
    this.timer = setInterval(tick, TICK_MS);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = 0;
  }
}

/** 95 → "1:35", 3725 → "1:02:05" (in Persian digits on a Persian page). */
export function formatDuration(totalSeconds) {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return localDigits(h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`);
}
