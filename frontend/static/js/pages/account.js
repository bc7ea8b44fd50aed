// The account page: change nickname, sign up, log in, change password, log out, delete the account. Each
// form posts JSON to the same API any client uses (with the CSRF header); the server's message explains a
// refusal.

import { changePassword, deleteAccount, logIn, logOut, renameMe, signUp } from "../api.js";
import { ask } from "../ask.js";
import { gettext } from "../i18n.js";
import { homeUrl, profileUrl } from "../nav.js";

const ACTIONS = {
  async rename(form) {
    await renameMe(form.elements.nickname.value);
    window.location.reload(); // the header shows the new name too
  },
  async signup(form) {
    const me = await signUp(form.elements.nickname.value, form.elements.password.value);
    window.location.assign(profileUrl(me.nickname));
  },
  async login(form) {
    const me = await logIn(form.elements.nickname.value, form.elements.password.value);
    window.location.assign(profileUrl(me.nickname));
  },
  async password(form) {
    await changePassword(form.elements.old.value, form.elements.new.value);
    form.reset();
    form.querySelector('[data-role="done"]').hidden = false;
  },
  async logout() {
    await logOut();
    window.location.reload();
  },
  async delete(form) {
    await deleteAccount(form.elements.password.value);
    window.location.assign(homeUrl()); // a visitor now: the session has ended
  },
};

// Asked before a form's action runs, while its button is still enabled (the question's dialog gives the
// focus back to it); false leaves everything as it was.
const CONFIRMATIONS = {
  async delete(form) {
    if (!form.elements.password.value) throw new Error(gettext("Type your current password to delete your account."));
    return ask({
      question: gettext("Delete your account and all your games for good? This cannot be undone."),
      yes: gettext("Delete for good"),
      no: gettext("Keep my account"),
    });
  },
};

function wire(form) {
  const error = form.querySelector('[data-role="error"]');
  const done = form.querySelector('[data-role="done"]');
  const button = form.querySelector('button[type="submit"]');
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.hidden = true;
    if (done) done.hidden = true;
    try {
      const confirm = CONFIRMATIONS[form.dataset.form];
      if (confirm && !(await confirm(form))) return;
      button.disabled = true;
      await ACTIONS[form.dataset.form](form);
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
      form.querySelector("input:not([type=hidden]):not([hidden])")?.focus();
    } finally {
      button.disabled = false;
    }
  });
  // The button is disabled in the HTML: a form sent before this handler exists would post the password
  // to the page itself instead of the API.
  button.disabled = false;
}

export function main() {
  const page = document.getElementById("account-page");
  for (const form of page.querySelectorAll("form[data-form]")) wire(form);
  // Back from another page via the browser's cache: no button may stay disabled.
  window.addEventListener("pageshow", () => {
    for (const button of page.querySelectorAll("button")) button.disabled = false;
  });
}

main();
