// "Pick the name others see": one field and a button, offered after a game to a guest who still
// has the nickname generated for them. No sign-up: it only renames the player (PATCH /api/me).
//
//   offerNickname(resultPanel, { onSaved: (me) => … });   // draws nothing for accounts or chosen names
// (pages/game/after.js draws it under a game's result)

import { getMe, renameMe } from "./api.js";
import { gettext } from "./i18n.js";

let offers = 0; // distinct ids when a page shows the offer more than once

/**
 * Append the offer to `container` if the session's player is a guest who has not chosen a nickname.
 * Resolves to true when the offer was drawn. `onSaved(me)` gets the player (GET /api/me's shape) after
 * a successful rename.
 */
export async function offerNickname(container, { onSaved } = {}) {
  let me;
  try {
    me = await getMe();
  } catch {
    return false; // a visitor, or the server cannot be reached: nothing to offer now
  }
  if (me.account || me.nickname_chosen) return false;

  offers += 1;
  const form = document.createElement("form");
  form.className = "name-offer";
  form.noValidate = true;
  form.dataset.testid = "name-offer";
  const label = document.createElement("label");
  label.htmlFor = `name-offer-input-${offers}`;
  // Not "for the leaderboard": the offer follows games that count on none too (races, practice).
  label.textContent = gettext("Pick the name others see");
  const row = document.createElement("div");
  row.className = "name-offer-row";
  const input = document.createElement("input");
  Object.assign(input, { id: label.htmlFor, name: "nickname", type: "text", placeholder: me.nickname, dir: "auto" });
  input.autocomplete = "nickname";
  input.spellcheck = false;
  input.dataset.testid = "name-offer-input";
  const button = document.createElement("button");
  button.type = "submit";
  button.className = "btn btn-gold btn-small";
  button.textContent = gettext("Save name");
  button.dataset.testid = "name-offer-save";
  const message = document.createElement("p");
  message.className = "name-offer-message";
  message.setAttribute("role", "status");
  message.tabIndex = -1; // takes the focus when the form it replaces goes
  message.dataset.testid = "name-offer-message";
  message.hidden = true;
  row.append(input, button);
  form.append(label, row, message);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    message.hidden = true;
    try {
      const saved = await renameMe(input.value);
      const name = document.createElement("bdi"); // a right-to-left name cannot reorder the sentence
      name.textContent = saved.nickname;
      message.replaceChildren(`${gettext("Saved. Your name on the leaderboard:")} `, name);
      message.classList.remove("is-error");
      message.hidden = false;
      row.hidden = true;
      label.hidden = true;
      message.focus(); // the focused button has just been hidden: keep the keyboard user's place
      onSaved?.(saved);
    } catch (failure) {
      message.textContent = failure.message;
      message.classList.add("is-error");
      message.hidden = false;
      button.disabled = false;
      input.focus();
    }
  });
  container.append(form);
  return true;
}
