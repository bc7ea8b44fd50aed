// A row of piles drawn into any container. It knows no rules, sockets or clocks: the page says which
// piles to light, and hears taps through `onTap`.
//
// - interactive: each pile is a button; a tap (or Enter/Space) calls onTap(index, event).
// - read-only (watchers, replays, a finished game): piles are list items, never focusable, with no
//   handlers; the row's label says it is only to look at.
// - size "small": a compact row (race miniatures), the `row-small` class in site.css.

import { cardName, renderCard } from "../cards.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { measurePiles, slidePiles } from "./animate.js";

const MAX_EDGES = 4; // stacked edge lines drawn under a pile's top card
const PILE = '[data-testid="pile"]';

export class BoardView {
  /**
   * @param {HTMLElement} container  the view replaces its children with the row
   * @param {object} options
   * @param {boolean} [options.interactive]
   * @param {"full"|"small"} [options.size]
   * @param {(index: number, event: Event) => void} [options.onTap]  interactive views only
   */
  constructor(container, { interactive = false, size = "full", onTap = () => {} } = {}) {
    this.interactive = interactive;
    this.onTap = onTap;
    this.piles = [];
    this.row = document.createElement("div");
    this.row.className = "row";
    this.row.classList.toggle("row-small", size === "small");
    this.row.classList.toggle("read-only", !interactive);
    this.row.dataset.testid = "row";
    this.row.setAttribute("role", interactive ? "group" : "list");
    this.row.setAttribute(
      "aria-label",
      interactive ? gettext("The row of piles") : gettext("The row of piles (to look at only)"),
    );
    container.replaceChildren(this.row);
    if (interactive) this.listenForTaps();
  }

  /**
   * Draw `piles` (arrays of cards, bottom → top).
   * marks: `lit` ({move, kind}: kind "hint" or "next", the two piles of a suggested or replayed move);
   * on an interactive board also `movable` and `targets` (pile indexes), `selected` (index or null)
   * and `waiting` (the board waits for the server: piles drawn bright, none movable).
   * `animate`: piles slide from where they were.
   */
  show(piles, marks = {}, { animate = false } = {}) {
    this.draw(piles, marks, animate ? measurePiles(this.row) : null, null);
  }

  /** Draw `piles`, the row after `move`, with the moved card flying onto its new pile. */
  animateMove(move, piles, marks = {}) {
    const moved = this.piles[move[0]];
    const flight = moved ? { key: moved[0], to: move[1] } : null;
    this.draw(piles, marks, measurePiles(this.row), flight);
  }

  /** Shake a pile that cannot move. */
  shake(index) {
    const element = this.pileAt(index);
    if (!element) return;
    element.classList.remove("nope");
    void element.offsetWidth; // restart the animation
    element.classList.add("nope");
  }

  /** Scroll a pile into view (a lit pile may be below the fold on a phone). */
  reveal(index, { smooth = true } = {}) {
    this.pileAt(index)?.scrollIntoView({ behavior: smooth ? "smooth" : "auto", block: "nearest" });
  }

  pileAt(index) {
    return this.row.children[index] ?? null;
  }

  // ---- internals ----

  draw(piles, marks, before, flight) {
    // Only a board the player can tap shows what can move: on a read-only one it would look tappable.
    const shown = this.interactive ? marks : { lit: marks.lit };
    const { movable = [], targets = [], selected = null, lit = null, waiting = false } = shown;
    const focused = this.interactive ? document.activeElement?.closest?.(PILE) : null;
    const focusIndex = focused && this.row.contains(focused) ? Number(focused.dataset.index) : null;
    const movableSet = new Set(movable);
    const elements = piles.map((pile, index) =>
      this.pileElement(pile, index, {
        movable: movableSet.has(index),
        target: targets.includes(index),
        selected: selected === index,
        lit: lit && (lit.move[0] === index || lit.move[1] === index) ? lit : null,
      }),
    );
    this.piles = piles;
    this.row.replaceChildren(...elements);
    this.row.classList.toggle("choosing", selected !== null);
    this.row.classList.toggle("waiting", waiting);
    if (focusIndex !== null && elements.length) {
      elements[Math.min(focusIndex, elements.length - 1)].focus({ preventScroll: true });
    }
    slidePiles(this.row, before, flight);
  }

  pileElement(pile, index, { movable, target, selected, lit }) {
    const top = pile[pile.length - 1];
    const element = document.createElement(this.interactive ? "button" : "div");
    const classes = ["pile"];
    if (selected) classes.push("selected");
    else if (target) classes.push("target");
    if (movable) classes.push("movable");
    if (lit) classes.push(lit.kind === "hint" ? "hinted" : "replay-next");
    element.className = classes.join(" ");
    if (this.interactive) {
      element.type = "button";
      if (selected) element.setAttribute("aria-pressed", "true");
    } else {
      element.setAttribute("role", "listitem");
    }
    element.dataset.testid = "pile";
    element.dataset.index = String(index);
    element.dataset.top = top;
    element.dataset.height = String(pile.length);
    element.dataset.key = pile[0];
    if (lit) element.dataset.hint = lit.move[0] === index ? "from" : "to";
    element.style.setProperty("--edges", String(Math.min(pile.length - 1, MAX_EDGES)));
    element.setAttribute("aria-label", this.pileLabel(pile, index, { movable, target, selected, lit }));

    for (let depth = Math.min(pile.length - 1, MAX_EDGES); depth >= 1; depth -= 1) {
      const edge = document.createElement("span");
      edge.className = "pile-edge";
      edge.style.setProperty("--depth", String(depth));
      edge.setAttribute("aria-hidden", "true");
      element.append(edge);
    }
    element.append(renderCard(top));
    if (pile.length > 1) {
      const count = document.createElement("span");
      count.className = "pile-count";
      count.textContent = String(pile.length);
      count.setAttribute("aria-hidden", "true");
      element.append(count);
    }
    return element;
  }

  pileLabel(pile, index, { movable, target, selected, lit }) {
    let label = interpolate(
      ngettext("Pile %(position)s: %(card)s, %(count)s card", "Pile %(position)s: %(card)s, %(count)s cards", pile.length),
      { position: index + 1, card: cardName(pile[pile.length - 1]), count: pile.length },
    );
    if (selected) label += `. ${gettext("Chosen")}`;
    else if (target) label += `. ${gettext("Move here")}`;
    else if (movable) label += `. ${gettext("Can move")}`;
    if (lit?.kind === "hint") {
      label += `. ${lit.move[0] === index ? gettext("Hint: move this pile") : gettext("Hint: move onto this pile")}`;
    }
    return label;
  }

  // While a move animates, piles slide under the pointer: a press on one pile and the release over
  // another makes the browser send the click to the row. The pile pressed is the one the player meant.
  listenForTaps() {
    let pressed = null;
    this.row.addEventListener("pointerdown", (event) => {
      pressed = event.target.closest(PILE);
    });
    this.row.addEventListener("click", (event) => {
      const pile = event.target.closest(PILE) ?? pressed;
      pressed = null;
      if (!pile?.isConnected || !this.row.contains(pile)) return;
      this.onTap(Number(pile.dataset.index), event);
    });
  }
}
