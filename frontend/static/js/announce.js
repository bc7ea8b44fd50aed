// The page's one polite live region (base.html's `[data-testid="announcer"]`): moves, undos, the end
// of a game and opponents' progress are read out from here, after whatever the reader is saying.

import { cardName } from "./cards.js";
import { interpolate, ngettext } from "./i18n.js";

/** Have screen readers say `text` politely. Saying the same words twice still announces them. */
export function announce(text) {
  const region = document.querySelector('[data-testid="announcer"]');
  if (!region || !text) return;
  // A change of text is what readers announce: empty the region first so a repeat is heard too.
  region.textContent = "";
  requestAnimationFrame(() => {
    region.textContent = text;
  });
}

/** "nine of spades onto nine of hearts. 40 piles left." (`before`: the piles the move was played on). */
export function announceMove(before, move, pilesLeft) {
  const topOf = (index) => cardName(before[index][before[index].length - 1]);
  const words = ngettext(
    "%(card)s onto %(target)s. %(count)s pile left.",
    "%(card)s onto %(target)s. %(count)s piles left.",
    pilesLeft,
  );
  announce(interpolate(words, { card: topOf(move[0]), target: topOf(move[1]), count: pilesLeft }));
}

/** "Undone. 41 piles left." */
export function announceUndo(pilesLeft) {
  const words = ngettext("Undone. %(count)s pile left.", "Undone. %(count)s piles left.", pilesLeft);
  announce(interpolate(words, { count: pilesLeft }));
}
