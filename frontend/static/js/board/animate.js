// Motion for a row of piles, FLIP style: measure where every pile is, redraw, then let each pile
// slide from its old place to its new one. Piles are known by their bottom card (data-key), which
// never changes while a pile exists. Nothing moves for a reader who asked for reduced motion.

const SLIDE = { duration: 220, easing: "cubic-bezier(.2,.8,.3,1)" };
const FLIGHT_MS = 260;
const MOVED_PX = 0.5; // a shift smaller than this is rounding, not motion

function motionAllowed() {
  const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
  return !reduced && typeof Element.prototype.animate === "function";
}

/** Where each pile of `row` is now, by its key: call before redrawing. */
export function measurePiles(row) {
  const rects = new Map();
  for (const element of row.children) rects.set(element.dataset.key, element.getBoundingClientRect());
  return rects;
}

/**
 * Animate `row`, just redrawn, from the places in `before`. With `flight` ({key, to}: the moved pile's
 * key and the index it landed on) the top card flies in from the moved pile's old place.
 */
export function slidePiles(row, before, flight = null) {
  if (!before || !motionAllowed()) return;
  for (const element of row.children) {
    const after = element.getBoundingClientRect();
    if (flight && Number(element.dataset.index) === flight.to) {
      flyCard(element, before.get(flight.key), after);
      continue;
    }
    const old = before.get(element.dataset.key);
    if (!old) {
      element.animate([{ opacity: 0, transform: "scale(.85)" }, { opacity: 1, transform: "none" }], SLIDE);
      continue;
    }
    const dx = old.left - after.left;
    const dy = old.top - after.top;
    if (Math.abs(dx) > MOVED_PX || Math.abs(dy) > MOVED_PX) {
      element.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], SLIDE);
    }
  }
}

function flyCard(element, from, after) {
  const card = element.querySelector(".card");
  if (!from || !card) return;
  const dx = from.left - after.left;
  const dy = from.top - after.top;
  element.style.zIndex = "5"; // over its neighbours while it flies
  card
    .animate([{ transform: `translate(${dx}px, ${dy}px) scale(1.06)` }, { transform: "none" }], {
      ...SLIDE,
      duration: FLIGHT_MS,
    })
    .finished.catch(() => {})
    .finally(() => element.style.removeProperty("z-index"));
}
