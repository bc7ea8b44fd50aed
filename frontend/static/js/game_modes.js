// What a game's mode is called on the pages that list or show other people's games.

import { gettext } from "./i18n.js";

/** "Daily deal", "Race", "Arena", "Shared deal" or "New game". */
export function modeLabel(mode) {
  switch (mode) {
    case "daily":
      return gettext("Daily deal");
    case "race":
      return gettext("Race");
    case "arena":
      return gettext("Arena");
    case "code":
      return gettext("Shared deal");
    default:
      return gettext("New game");
  }
}
