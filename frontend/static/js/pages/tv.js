// /tv: the featured live game full screen, switching to the next one when it ends (tv.js).
// main() runs the page; nothing runs on import.

import { TvScreen } from "../tv.js";

export function main() {
  new TvScreen(document.getElementById("tv-page"), { size: "full" }).start();
}

main();
