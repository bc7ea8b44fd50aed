// An in-page question with two answers, drawn in a native <dialog> (modal: focus stays inside, Escape
// answers "no"), so the page never falls back to the browser's plain confirm().

/**
 * Ask `question`; resolves true when the player picks `yes`, false for `no`, Escape or a click outside.
 * @param {{question: string, yes: string, no: string}} words
 * @returns {Promise<boolean>}
 */
export function ask({ question, yes, no }) {
  const dialog = document.createElement("dialog");
  dialog.className = "ask-dialog";
  dialog.dataset.testid = "ask-dialog";
  const text = document.createElement("p");
  text.id = "ask-dialog-question";
  text.className = "ask-question";
  text.textContent = question;
  dialog.setAttribute("aria-labelledby", text.id);
  const actions = document.createElement("div");
  actions.className = "callout-actions";
  const button = (label, testid, style) => {
    const element = document.createElement("button");
    element.type = "button";
    element.className = `btn ${style} btn-small`;
    element.dataset.testid = testid;
    element.textContent = label;
    return element;
  };
  const yesButton = button(yes, "ask-yes", "btn-danger");
  const noButton = button(no, "ask-no", "btn-light");
  actions.append(yesButton, noButton);
  dialog.append(text, actions);
  document.body.append(dialog);
  const returnFocus = document.activeElement;

  return new Promise((resolve) => {
    const answer = (value) => {
      dialog.close();
      dialog.remove();
      returnFocus?.focus?.({ preventScroll: true });
      resolve(value);
    };
    yesButton.addEventListener("click", () => answer(true));
    noButton.addEventListener("click", () => answer(false));
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      answer(false);
    });
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) answer(false); // the backdrop
    });
    dialog.showModal();
    noButton.focus(); // the safe answer is the default
  });
}
