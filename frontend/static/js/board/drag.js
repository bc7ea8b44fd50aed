// Drag a pile onto its target, with a mouse, a pen or a finger (pointer events). Tapping stays the
// main way to play: a press that barely moves is left to the board's tap handling, a drop on one of
// the pile's targets plays the move, and a drop anywhere else puts the pile back.

const PILE = '[data-testid="pile"]';
const DRAG_THRESHOLD_PX = 8; // a press that moves less than this is a tap

/**
 * @param {HTMLElement} row  an interactive BoardView's row
 * @param {object} options
 * @param {(index: number) => number[]} options.targetsOf  the piles `index` may move onto now ([] for none)
 * @param {(from: number, to: number) => void} options.onDrop
 */
export function enableDrag(row, { targetsOf, onDrop }) {
  let press = null; // {pile, index, x, y, pointerId} from pointerdown until the drag starts or ends
  let drag = null; // {pile, index, targets, over} while a pile follows the pointer
  let swallowClick = false;

  const pileUnder = (x, y) => {
    const pile = document.elementFromPoint(x, y)?.closest(PILE) ?? null;
    return pile && row.contains(pile) ? pile : null; // not a pile of another board (a race's miniatures)
  };
  const pileAt = (index) => row.querySelector(`${PILE}[data-index="${index}"]`);

  function light(over) {
    if (drag.over === over) return;
    drag.over?.classList.remove("drop-over");
    drag.over = over;
    over?.classList.add("drop-over");
  }

  function finish() {
    if (drag) {
      drag.pile.classList.remove("dragging");
      drag.pile.style.removeProperty("translate");
      drag.over?.classList.remove("drop-over");
      for (const index of drag.targets) pileAt(index)?.classList.remove("drop-target");
      row.classList.remove("is-dragging");
    }
    press = null;
    drag = null;
  }

  row.addEventListener("pointerdown", (event) => {
    if (!event.isPrimary || event.button !== 0) return;
    const pile = event.target.closest(PILE);
    if (!pile) return;
    press = { pile, index: Number(pile.dataset.index), x: event.clientX, y: event.clientY, pointerId: event.pointerId };
  });

  row.addEventListener("pointermove", (event) => {
    if (!press || event.pointerId !== press.pointerId) return;
    const dx = event.clientX - press.x;
    const dy = event.clientY - press.y;
    if (!drag) {
      if (Math.hypot(dx, dy) < DRAG_THRESHOLD_PX) return;
      const targets = targetsOf(press.index);
      if (targets.length === 0 || !press.pile.isConnected) {
        press = null; // nothing to drag: the board's tap handling says why
        return;
      }
      drag = { pile: press.pile, index: press.index, targets, over: null };
      row.setPointerCapture(event.pointerId);
      row.classList.add("is-dragging");
      drag.pile.classList.add("dragging");
      for (const index of targets) pileAt(index)?.classList.add("drop-target");
    }
    drag.pile.style.translate = `${dx}px ${dy}px`;
    const over = pileUnder(event.clientX, event.clientY);
    light(over && drag.targets.includes(Number(over.dataset.index)) ? over : null);
  });

  row.addEventListener("pointerup", (event) => {
    if (!drag || event.pointerId !== press?.pointerId) {
      press = null;
      return;
    }
    const { index, over } = drag;
    // The click that follows a drag (in this same task, if at all) is not a tap.
    swallowClick = true;
    setTimeout(() => {
      swallowClick = false;
    }, 0);
    finish();
    if (over) onDrop(index, Number(over.dataset.index));
  });

  row.addEventListener("pointercancel", finish);

  row.addEventListener(
    "click",
    (event) => {
      if (!swallowClick) return;
      swallowClick = false;
      event.stopImmediatePropagation();
    },
    true,
  );
}
