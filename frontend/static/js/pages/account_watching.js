// The account page's "let others watch my games" switch (the page's forms are pages/account.js).
// main() runs it; nothing else runs on import.

import { WatchSetting } from "../watch_setting.js";

export function main() {
  const box = document.querySelector('[data-role="watch-setting"]');
  if (!box) return; // a visitor who has not played: no games to show
  new WatchSetting({
    box,
    toggle: box.querySelector('[data-testid="watchable-toggle"]'),
    error: box.querySelector('[data-role="error"]'),
  }).start();
}

main();
