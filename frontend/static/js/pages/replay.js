// The replay page: a game rebuilt from its stored events and played back at the speed it was played
// (or faster), on the same read-only board view as the live board. Play, pause, step either way, jump;
// undos and hints are shown as they happened. The page speaks of the player's game as "their" game.
// main() runs the page; nothing runs on import.

import { ApiError, getGame, getGameEvents } from "../api.js";
import { BoardView } from "../board/view.js";
import { cardName } from "../cards.js";
import { formatDuration } from "../clock.js";
import { showSpeed } from "../dom.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { dailyBoardUrl } from "../nav.js";
import { timeline } from "./replay/timeline.js";

const SPEEDS = [1, 2, 4, 8];
// A player who left the table for a while: the replay waits at most this long (at 1×) between events.
const LONGEST_PAUSE_MS = 10_000;

function topCard(pile) {
  return pile[pile.length - 1];
}

/** Every event of the game, however many answers the API takes to send them. */
async function loadEvents(gameId) {
  const events = [];
  let after = 0;
  for (;;) {
    const page = await getGameEvents(gameId, after);
    events.push(...page.events);
    if (!page.more || page.events.length === 0) return { player: page.player, events };
    after = page.events[page.events.length - 1].v;
  }
}

function describe(frame, before) {
  const { event } = frame;
  switch (event.kind) {
    case "start":
      return gettext("The deal, as it was handed out.");
    case "move":
      return interpolate(gettext("They moved the %(card)s onto the %(target)s."), {
        card: cardName(topCard(before.piles[event.move[0]])),
        target: cardName(topCard(before.piles[event.move[1]])),
      });
    case "undo":
      return gettext("They took the last move back.");
    case "hint":
      return gettext("They asked for a hint.");
    default:
      if (event.result?.won) return gettext("They won: one pile left.");
      return interpolate(ngettext("The game ended with %(piles)s pile.", "The game ended with %(piles)s piles.", frame.piles.length), {
        piles: frame.piles.length,
      });
  }
}

class Replayer {
  constructor(el, frames, view) {
    this.el = el;
    this.frames = frames;
    this.view = view;
    this.index = 0;
    this.speed = 1;
    this.timer = 0;
    this.playing = false;
    el.jump.max = String(frames.length - 1);
    el.play.addEventListener("click", () => (this.playing ? this.pause() : this.play()));
    el.forward.addEventListener("click", () => this.step(1));
    el.back.addEventListener("click", () => this.step(-1));
    el.first.addEventListener("click", () => this.jumpTo(0));
    el.last.addEventListener("click", () => this.jumpTo(this.frames.length - 1));
    el.jump.addEventListener("input", () => this.jumpTo(Number(el.jump.value)));
    el.speed.addEventListener("click", () => this.cycleSpeed());
    this.go(0, { animate: false });
  }

  get atEnd() {
    return this.index >= this.frames.length - 1;
  }

  marks() {
    const next = this.frames[this.index + 1];
    return next?.event.kind === "move" ? { lit: { move: next.event.move, kind: "next" } } : {};
  }

  go(index, { animate }) {
    const previous = this.index;
    this.index = Math.max(0, Math.min(index, this.frames.length - 1));
    const frame = this.frames[this.index];
    const forwardMove = animate && this.index === previous + 1 && frame.line.length === this.frames[previous].line.length + 1;
    if (forwardMove) this.view.animateMove(frame.line[frame.line.length - 1], frame.piles, this.marks());
    else this.view.show(frame.piles, this.marks(), { animate });
    this.update();
  }

  update() {
    const el = this.el;
    const frame = this.frames[this.index];
    el.jump.value = String(this.index);
    el.clock.textContent = formatDuration(Math.floor(frame.ms / 1000));
    el.position.textContent = interpolate(gettext("Step %(n)s of %(total)s"), { n: this.index, total: this.frames.length - 1 });
    el.event.textContent = describe(frame, this.frames[Math.max(0, this.index - 1)]);
    el.event.dataset.kind = frame.event.kind;
    el.play.textContent = this.playing ? gettext("Pause") : this.atEnd ? gettext("Play again") : gettext("Play");
    el.play.setAttribute("aria-pressed", String(this.playing));
    el.back.disabled = this.index === 0;
    el.first.disabled = this.index === 0;
    el.forward.disabled = this.atEnd;
    el.last.disabled = this.atEnd;
    showSpeed(el.speed, this.speed);
    el.controls.dataset.state = this.playing ? "playing" : this.atEnd ? "done" : "paused";
  }

  play() {
    if (this.atEnd) this.go(0, { animate: true });
    this.playing = true;
    this.update();
    this.schedule();
  }

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    this.update();
  }

  /** The next event after the time it took the player (shortened when they left the table). */
  schedule() {
    clearTimeout(this.timer);
    if (!this.playing) return;
    if (this.atEnd) {
      this.pause();
      return;
    }
    const gap = this.frames[this.index + 1].ms - this.frames[this.index].ms;
    this.timer = setTimeout(() => {
      this.go(this.index + 1, { animate: true });
      this.schedule();
    }, Math.min(Math.max(gap, 0), LONGEST_PAUSE_MS) / this.speed);
  }

  step(by) {
    this.pause();
    this.go(this.index + by, { animate: by > 0 });
  }

  jumpTo(index) {
    this.pause();
    this.go(index, { animate: false });
  }

  cycleSpeed() {
    this.speed = SPEEDS[(SPEEDS.indexOf(this.speed) + 1) % SPEEDS.length];
    this.update();
    this.schedule();
  }
}

function summaryText(game, player) {
  const result = game.result;
  if (!result) return interpolate(gettext("%(player)s is still playing this game."), { player });
  const time = formatDuration(result.seconds);
  if (result.won) {
    return interpolate(gettext("%(player)s won in %(time)s and scored %(score)s."), { player, time, score: result.score });
  }
  return interpolate(
    ngettext(
      "%(player)s ended with %(piles)s pile after %(time)s and scored %(score)s.",
      "%(player)s ended with %(piles)s piles after %(time)s and scored %(score)s.",
      result.piles,
    ),
    { player, piles: result.piles, time, score: result.score },
  );
}

function drawHead(el, game, player) {
  el.title.textContent = interpolate(gettext("%(player)s’s game"), { player });
  el.title.dir = "auto";
  el.summary.replaceChildren(summaryText(game, player));
  const rank = game.result?.rank;
  if (typeof rank === "number" && game.daily_date) {
    const link = document.createElement("a");
    link.href = dailyBoardUrl(game.daily_date);
    link.dataset.testid = "replay-board-link";
    link.textContent = interpolate(gettext("Number %(rank)s of %(of)s on the daily leaderboard of %(date)s."), {
      rank,
      of: game.result.of,
      date: game.daily_date,
    });
    el.summary.append(" ", link);
  }
}

export async function main() {
  const page = document.getElementById("replay-page");
  const byTestId = (id) => page.querySelector(`[data-testid="${id}"]`);
  const el = {
    title: byTestId("replay-title"),
    summary: byTestId("replay-summary"),
    error: byTestId("replay-error"),
    controls: byTestId("replay-controls"),
    first: byTestId("replay-first"),
    back: byTestId("replay-back"),
    play: byTestId("replay-play"),
    forward: byTestId("replay-forward"),
    last: byTestId("replay-last"),
    speed: byTestId("replay-speed"),
    jump: byTestId("replay-jump"),
    clock: byTestId("replay-clock"),
    position: byTestId("replay-position"),
    event: byTestId("replay-event"),
    felt: byTestId("replay-felt"),
  };
  const gameId = page.dataset.gameId;
  try {
    const [game, { player, events }] = await Promise.all([getGame(gameId), loadEvents(gameId)]);
    drawHead(el, game, player);
    const view = new BoardView(el.felt, { interactive: false });
    new Replayer(el, timeline(game.deal, events), view);
    el.controls.hidden = false;
  } catch (failure) {
    el.error.hidden = false;
    el.error.textContent =
      failure instanceof ApiError && failure.status === 404
        ? gettext("This game cannot be replayed yet: a daily game opens to everyone when its day is over (midnight UTC), and a game in progress only to its player.")
        : gettext("The replay could not be loaded. Please reload the page.");
  } finally {
    page.setAttribute("aria-busy", "false");
  }
}

main();
