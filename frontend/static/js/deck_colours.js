// The optional four-colour deck (clubs green, diamonds blue): a switch in every page's footer, the
// choice remembered in this browser's localStorage and shown as the `four-colour` class on <html>.

const KEY = "accordion:four-colour";

function stored() {
  try {
    return localStorage.getItem(KEY) === "1";
  } catch {
    return false; // storage disabled: the usual two colours
  }
}

function remember(on) {
  try {
    localStorage.setItem(KEY, on ? "1" : "0");
  } catch {
    /* storage disabled: the choice lasts for this page only */
  }
}

function apply(on, toggle) {
  document.documentElement.classList.toggle("four-colour", on);
  toggle?.setAttribute("aria-checked", String(on));
}

export function main() {
  const toggle = document.querySelector('[data-testid="four-colour-toggle"]');
  apply(stored(), toggle);
  toggle?.addEventListener("click", () => {
    const on = toggle.getAttribute("aria-checked") !== "true";
    remember(on);
    apply(on, toggle);
  });
}

main();
