// The player's "let others watch my games" switch (GET and PUT /api/me/watching), on the live list
// and the account page. A visitor who has not played has no setting: the switch stays hidden.

import { ApiError, getWatchSetting, setWatchSetting } from "./api.js";

export class WatchSetting {
  /**
   * @param {object} elements
   * @param {HTMLElement} elements.box  shown once the setting is known
   * @param {HTMLButtonElement} elements.toggle  a role="switch" button
   * @param {HTMLElement} elements.error  where a failure is said
   */
  constructor({ box, toggle, error }) {
    this.box = box;
    this.toggle = toggle;
    this.error = error;
  }

  async start() {
    this.toggle.addEventListener("click", () => this.flip());
    if (!document.body.dataset.player) return; // the page was drawn for a visitor: nothing to ask
    try {
      this.show((await getWatchSetting()).watchable);
      this.box.hidden = false;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return;
      this.fail(error);
    }
  }

  show(watchable) {
    this.toggle.setAttribute("aria-checked", String(watchable));
  }

  async flip() {
    const wanted = this.toggle.getAttribute("aria-checked") !== "true";
    this.toggle.disabled = true;
    this.error.hidden = true;
    try {
      this.show((await setWatchSetting(wanted)).watchable);
    } catch (error) {
      this.fail(error);
    } finally {
      this.toggle.disabled = false;
    }
  }

  fail(error) {
    this.error.textContent = error.message;
    this.error.hidden = false;
  }
}
