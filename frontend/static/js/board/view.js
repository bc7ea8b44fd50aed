// A row of piles drawn into any container. It knows no rules, sockets or clocks: the page says which
// piles to light, and hears taps through `onTap`.
//
// - interactive: each pile is a button; a tap (or Enter/Space) calls onTap(index, event). The row is
//   one tab stop (a roving tabindex): the arrow keys move the focus between piles, Home/End jump to
//   the first and last pile.
// - read-only (watchers, replays, a finished game): piles are list items, never focusable, with no
//   handlers; the row's label says it is only to look at.
// - size "small": a compact row (race miniatures), the `row-small` class in site.css.
// - an interactive row tells the stylesheet how many piles it holds (--piles) and the room it has on
//   the first screen (--room-w, --room-h): on a phone the game page sizes its cards from them, so the
//   whole row fits the screen and the cards grow as piles go (site.css, "Phones: the whole row").

import { cardName, renderCard } from "../cards.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { localDigits } from "../locale_format.js";
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
    this.cursor = 0; // the pile that holds the row's tab stop
    this.row = document.createElement("div");
    this.row.className = "row";
    this.row.classList.toggle("row-small", size === "small");
    this.row.classList.toggle("read-only", !interactive);
    this.row.dataset.testid = "row";
    // The rules read the row left to right, top to bottom, in every language.
    this.row.dir = "ltr";
    this.row.setAttribute("role", interactive ? "group" : "list");
    this.row.setAttribute(
      "aria-label",
      interactive ? gettext("The row of piles") : gettext("The row of piles (to look at only)"),
    );
    container.replaceChildren(this.row);
    if (interactive) {
      this.listenForTaps();
      this.listenForKeys();
      // Whatever grows or shrinks around the board (a hint's panel, a longer status) moves the row.
      const around = new ResizeObserver(() => remeasure());
      const remeasure = () => {
        if (this.row.isConnected) {
          this.measureRoom();
        } else {
          around.disconnect(); // a view replaced by another stops listening
          window.removeEventListener("resize", remeasure);
        }
      };
      window.addEventListener("resize", remeasure);
      around.observe(container.parentElement ?? document.body);
    }
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
        total: piles.length,
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
    if (this.interactive && this.row.isConnected) this.measureRoom();
    if (this.interactive && elements.length) {
      this.cursor = Math.min(focusIndex ?? this.cursor, elements.length - 1);
      elements.forEach((element, index) => {
        element.tabIndex = index === this.cursor ? 0 : -1;
      });
      if (focusIndex !== null) elements[this.cursor].focus({ preventScroll: true });
    }
    slidePiles(this.row, before, flight);
  }

  pileElement(pile, index, { total, movable, target, selected, lit }) {
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
    // The pile's name is text inside it, not an aria-label: the drawn card (hidden from screen readers)
    // would otherwise be visible text missing from the name (WCAG 2.5.3, "label in name").
    const name = document.createElement("span");
    name.className = "visually-hidden";
    name.textContent = this.pileLabel(pile, index, { total, movable, target, selected, lit });
    element.append(name);

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
      count.textContent = localDigits(pile.length);
      count.setAttribute("aria-hidden", "true");
      element.append(count);
    }
    return element;
  }

  pileLabel(pile, index, { total, movable, target, selected, lit }) {
    let label = interpolate(
      ngettext(
        "%(card)s, pile %(position)s of %(total)s, %(count)s card",
        "%(card)s, pile %(position)s of %(total)s, %(count)s cards",
        pile.length,
      ),
      { position: index + 1, total, card: cardName(pile[pile.length - 1]), count: pile.length },
    );
    if (selected) label += `. ${gettext("Chosen")}`;
    else if (target) label += `. ${gettext("Move here")}`;
    else if (movable) label += `. ${gettext("Can move")}`;
    if (lit?.kind === "hint") {
      label += `. ${lit.move[0] === index ? gettext("Hint: move this pile") : gettext("Hint: move onto this pile")}`;
    }
    return label;
  }

  /** The pile count, and the room from the row's top to the bottom of the first screen. */
  measureRoom() {
    const box = this.row.getBoundingClientRect();
    const top = box.top + window.scrollY;
    this.row.style.setProperty("--piles", String(this.piles.length));
    this.row.style.setProperty("--room-w", `${Math.floor(box.width)}px`);
    this.row.style.setProperty("--room-h", `${Math.max(0, Math.floor(window.innerHeight - top))}px`);
  }

  // While a move animates, piles slide under the pointer: a press on one pile and the release over
  // another makes the browser send the click to the row. The pile pressed is the one the player meant.
  /** Move the row's tab stop (and the focus) to pile `index`. */
  focusPile(index) {
    const target = this.pileAt(index);
    if (!target) return;
    this.pileAt(this.cursor)?.setAttribute("tabindex", "-1");
    this.cursor = index;
    target.tabIndex = 0;
    target.focus();
  }

  /** How many piles the first line of the wrapped row holds: the step of the up and down arrows. */
  pilesPerLine() {
    const piles = [...this.row.children];
    const top = piles[0]?.offsetTop;
    const count = piles.findIndex((pile) => pile.offsetTop !== top);
    return count === -1 ? piles.length : count;
  }

  listenForKeys() {
    this.row.addEventListener("focusin", (event) => {
      const pile = event.target.closest(PILE);
      if (pile && Number(pile.dataset.index) !== this.cursor) this.focusPile(Number(pile.dataset.index));
    });
    this.row.addEventListener("keydown", (event) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      const last = this.row.children.length - 1;
      const steps = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: this.pilesPerLine(), ArrowUp: -this.pilesPerLine() };
      let next;
      if (event.key in steps) next = this.cursor + steps[event.key];
      else if (event.key === "Home") next = 0;
      else if (event.key === "End") next = last;
      else return;
      event.preventDefault();
      if (next >= 0 && next <= last) this.focusPile(next);
    });
  }

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
