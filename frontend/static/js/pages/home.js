// The home page: start the daily deal, a new deal, or a deal a friend shared by its code; below, the
// site's arenas and the featured live game (tv.js).
// main() runs the page; nothing runs on import.

import { arenaEntry } from "../arena_entry.js";
import { gettext } from "../i18n.js";
import { startGameAndGo } from "../nav.js";
import { TvScreen } from "../tv.js";

/** The site's arenas the page came with (live now, else the next to start), each as a line in the
 * reader's own time; the page has none of it when there is no such arena. */
function showArenas() {
  const data = document.getElementById("home-arenas-data");
  if (!data) return;
  const list = document.querySelector('[data-testid="home-arena-list"]');
  list.replaceChildren(...JSON.parse(data.textContent).map(arenaEntry));
}

export function main() {
  const page = document.getElementById("home-page");
  const buttons = [...page.querySelectorAll("button")];
  const error = page.querySelector('[data-testid="home-error"]');
  const form = page.querySelector('[data-testid="code-form"]');
  const input = page.querySelector('[data-testid="code-input"]');
  const submit = form.querySelector('button[type="submit"]');
  const suggestion = page.querySelector('[data-testid="code-suggestion"]');

  function busy(on, pressed) {
    for (const button of buttons) button.disabled = on;
    pressed?.classList.toggle("is-busy", on);
    page.setAttribute("aria-busy", on ? "true" : "false");
  }

  function showError(message) {
    error.textContent = message;
    error.hidden = !message;
    offerCode("");
  }

  // A mistyped code's refusal may name the code it most likely meant: one tap plays that one.
  function offerCode(code) {
    // The code stays Latin and left to right inside a Persian label (docs/i18n.md).
    const shown = Object.assign(document.createElement("bdi"), { dir: "ltr", textContent: code });
    suggestion.replaceChildren(gettext("Play"), " ", shown);
    suggestion.dataset.code = code;
    suggestion.parentElement.hidden = !code;
  }

  async function start(mode, code, pressed) {
    showError("");
    busy(true, pressed);
    try {
      await startGameAndGo(mode, code);
    } catch (failure) {
      busy(false, pressed);
      showError(failure.message);
      if (failure.code === "deal_code_typo" && failure.body?.suggestion) offerCode(failure.body.suggestion);
      if (mode === "code") input.focus();
    }
  }

  for (const button of page.querySelectorAll("button[data-mode]")) {
    button.addEventListener("click", () => start(button.dataset.mode, undefined, button));
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const code = input.value.trim().toUpperCase();
    if (!code) {
      showError(gettext("Type a deal code, such as K7QD-M2XP-X."));
      input.focus();
      return;
    }
    input.value = code;
    start("code", code, submit);
  });

  suggestion.addEventListener("click", () => {
    input.value = suggestion.dataset.code;
    start("code", input.value, suggestion);
  });

  // Back from a game page via the browser's cache: the buttons must work again.
  window.addEventListener("pageshow", () => busy(false));

  // Arriving from a shared link (?code=…): the code is filled in, the Play button is one tap away.
  if (input.value) submit.focus({ preventScroll: true });

  showArenas();
  new TvScreen(document.querySelector('[data-testid="tv"]'), { size: "small" }).start();
}

main();
