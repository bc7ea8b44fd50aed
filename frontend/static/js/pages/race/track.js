// The race's track: a card for each racer, with their piles, score, moves and state and, once the race
// is on, a small read-only board. Each racer's progress is a versioned stream (stream.js) applied by
// the one event → line reducer (line.js); opponents' finishes and every tenth pile are read out.

import { announce } from "../../announce.js";
import { BoardView } from "../../board/view.js";
import { gettext, interpolate, ngettext } from "../../i18n.js";
import { lineAfter } from "../../line.js";
import { localDigits } from "../../locale_format.js";
import { replay } from "../../rules.js";
import { VersionedStream } from "../../stream.js";
import { element } from "../../dom.js";

export class RaceTrack {
  /**
   * @param {HTMLElement} list  the racers' list
   * @param {object} options
   * @param {() => void} options.askAgain  ask the server for the room again (it brings every racer's whole line)
   * @param {(player: number) => void} options.kick  the host kicks a racer out of the lobby
   */
  constructor(list, { askAgain, kick }) {
    this.list = list;
    this.askAgain = askAgain;
    this.kick = kick;
    this.room = null;
    this.me = null; // this page's player id
    this.seated = false; // this page's player has a seat
    this.racers = new Map(); // racer id → {entry, card, view, fields, progress}: the track as this page knows it
  }

  /** Draw the room's racers; progress heard since the room was written is kept. */
  show(room, { me, seated }) {
    this.room = room;
    this.me = me;
    this.seated = seated;
    const started = room.state === "racing" || room.state === "finished";
    const previous = this.racers;
    this.racers = new Map();
    const cards = room.racers.map((fresh) => {
      const kept = previous.get(fresh.racer)?.entry;
      // Progress heard since this room was written is newer than the room's copy: keep it.
      const entry = kept && kept.v > fresh.v && started ? { ...fresh, ...pick(kept) } : { ...fresh };
      // A finish can reach the room (its standings so far) before its progress: said once, either way.
      if (kept && started && entry.v > kept.v) this.announceProgress(kept, entry);
      const progress = previous.get(fresh.racer)?.progress ?? this.progressStream(fresh.racer);
      progress.startAt(entry.v);
      const known = { entry, card: null, view: null, fields: {}, progress };
      known.card = this.card(known, started);
      this.racers.set(entry.racer, known);
      return known.card;
    });
    this.list.replaceChildren(...cards);
    for (const known of this.racers.values()) {
      this.updateCard(known, null);
      known.progress.drain(); // progress heard ahead of this room
    }
  }

  /** A racer's `progress`, in version order; one the track cannot place asks for the room again. */
  progress(progress) {
    const known = this.racers.get(progress.racer);
    if (!known || !this.room?.deal) {
      this.askAgain(); // a racer or a start this page has not heard of yet
      return;
    }
    known.progress.take(progress.v, progress);
  }

  /** A racer's progress, applied once and in version order (a missing version asks for the room). */
  progressStream(racer) {
    return new VersionedStream({
      apply: (progress) => this.applyProgress(racer, progress),
      onGap: () => this.askAgain(), // the room brings every racer's whole line
    });
  }

  applyProgress(racer, progress) {
    const known = this.racers.get(racer);
    if (!known) return;
    const entry = known.entry;
    this.announceProgress(entry, progress);
    Object.assign(entry, {
      v: progress.v,
      line: lineAfter(entry.line ?? [], progress),
      piles: progress.piles,
      score: progress.score,
      moves: progress.moves,
      status: progress.status,
      finished: progress.status === "finished",
    });
    this.updateCard(known, progress.kind === "move" ? progress.move : null);
  }

  /**
   * Read an opponent's progress out: their finish, and every tenth pile they clear (each move would
   * drown the player's own announcements).
   */
  announceProgress(entry, progress) {
    if (!entry.ghost && entry.player === this.me) return; // the player hears their own moves
    const player = entry.nickname;
    if (progress.status === "finished" && entry.status !== "finished") {
      const words =
        progress.piles === 1
          ? gettext("%(player)s won their game!")
          : ngettext(
              "%(player)s finished with %(piles)s pile left.",
              "%(player)s finished with %(piles)s piles left.",
              progress.piles,
            );
      announce(interpolate(words, { player, piles: progress.piles }));
    } else if (Math.floor(progress.piles / 10) < Math.floor(entry.piles / 10)) {
      const words = ngettext("%(player)s: %(piles)s pile left.", "%(player)s: %(piles)s piles left.", progress.piles);
      announce(interpolate(words, { player, piles: progress.piles }));
    }
  }

  card(known, started) {
    const { entry } = known;
    const room = this.room;
    const card = element("li", { className: "racer-card" });
    card.dataset.testid = "racer";
    card.dataset.racer = String(entry.racer);
    card.dataset.player = String(entry.player);
    if (!entry.ghost && entry.player === this.me) card.dataset.own = "true";
    const head = element("div", { className: "racer-head" });
    const name = element("bdi", { className: "racer-name", text: entry.nickname });
    name.dataset.testid = "racer-name";
    head.append(name);
    const badges = [];
    if (entry.ghost) badges.push(gettext("ghost"));
    if (!entry.ghost && entry.player === room.host) badges.push(gettext("host"));
    if (!entry.ghost && entry.player === this.me) badges.push(gettext("you"));
    for (const text of badges) head.append(element("span", { className: "racer-badge", text }));
    const dot = element("span", { className: "racer-connection" });
    dot.dataset.testid = "racer-connection";
    head.append(dot);
    // On a phone the racers are a compact strip above the board: name, piles, place and a bar; each
    // opens to its miniature on demand (site.css).
    const place = element("span", { className: "racer-place" });
    place.dataset.testid = "racer-place";
    known.fields.place = place;
    head.append(place);
    card.append(head);
    const bar = element("span", { className: "racer-bar" });
    bar.dataset.testid = "racer-bar";
    bar.setAttribute("aria-hidden", "true");
    known.fields.bar = element("span", { className: "racer-bar-fill" });
    bar.append(known.fields.bar);
    card.append(bar);

    const stats = element("dl", { className: "racer-stats" });
    for (const [key, label] of [
      ["piles", gettext("Piles")],
      ["score", gettext("Score")],
      ["moves", gettext("Moves")],
    ]) {
      const value = element("dd");
      value.dataset.testid = `racer-${key}`;
      const pair = element("div", { className: "racer-stat" }); // a term and its value wrap together
      pair.append(element("dt", { text: label }), value);
      stats.append(pair);
      known.fields[key] = value;
    }
    const state = element("p", { className: "racer-state" });
    state.dataset.testid = "racer-state";
    known.fields.state = state;
    card.append(stats, state);

    if (room.state === "lobby" && room.host === this.me && this.seated && entry.player !== this.me && !entry.ghost) {
      const kick = element("button", { className: "btn btn-ghost btn-small", text: gettext("Kick") });
      kick.type = "button";
      kick.dataset.testid = "kick";
      kick.addEventListener("click", () => this.kick(entry.player));
      card.append(kick);
    }
    if (started && room.deal) {
      const mini = element("div", { className: "racer-mini" });
      mini.id = `racer-mini-${entry.racer}`;
      known.view = new BoardView(mini, { interactive: false, size: "small" });
      const expand = element("button", { className: "btn btn-ghost btn-small racer-expand", text: gettext("Board") });
      expand.type = "button";
      expand.dataset.testid = "racer-expand";
      expand.setAttribute("aria-expanded", "false");
      expand.setAttribute("aria-controls", mini.id);
      expand.addEventListener("click", () => {
        const open = expand.getAttribute("aria-expanded") !== "true";
        expand.setAttribute("aria-expanded", String(open));
        card.dataset.expanded = String(open);
      });
      head.append(expand);
      card.append(mini);
    }
    return card;
  }

  updateCard(known, move) {
    const { entry, card, fields } = known;
    const room = this.room;
    card.dataset.ready = String(entry.ready);
    card.dataset.connected = String(entry.connected);
    card.dataset.status = entry.status;
    card.dataset.piles = String(entry.piles);
    card.dataset.moves = String(entry.moves);
    fields.piles.textContent = localDigits(entry.piles);
    fields.score.textContent = localDigits(entry.score);
    fields.moves.textContent = localDigits(entry.moves);
    const standing = room.standings?.find((line) => line.racer === entry.racer);
    fields.place.textContent = standing ? `#${localDigits(standing.place)}` : "";
    fields.bar.style.inlineSize = `${(100 * (52 - entry.piles)) / 51}%`;
    card.querySelector('[data-testid="racer-connection"]').textContent = entry.connected
      ? gettext("connected")
      : gettext("disconnected");
    let state;
    if (entry.left) state = gettext("left the race");
    else if (entry.status === "finished") state = entry.piles === 1 ? gettext("won their game!") : gettext("finished");
    else if (entry.status === "playing") state = gettext("racing");
    else state = entry.ready ? gettext("ready") : gettext("not ready yet");
    fields.state.textContent = state;
    if (known.view && room.deal && Array.isArray(entry.line)) {
      let piles;
      try {
        piles = replay(room.deal, entry.line);
      } catch {
        this.askAgain();
        return;
      }
      if (move) known.view.animateMove(move, piles);
      else known.view.show(piles);
    }
  }
}

/** The parts of a racer's entry that progress updates. */
function pick(entry) {
  const { v, line, piles, score, moves, status, finished } = entry;
  return { v, line, piles, score, moves, status, finished };
}
