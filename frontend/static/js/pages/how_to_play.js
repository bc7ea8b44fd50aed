// How to play: draws each picture of a row ([data-cards]) with the board's own cards, marks the pile that
// moves (data-from), the piles it may land on (data-to) and piles with nowhere to go (data-stuck), and
// names the picture for screen readers. main() runs the page; nothing runs on import.

import { cardName, renderCard } from "../cards.js";
import { gettext, interpolate } from "../i18n.js";

function places(text) {
  return new Set((text || "").split(" ").filter(Boolean).map(Number));
}

/** The words a screen reader says for a picture: its cards, then what moves where. */
export function describeRow(cards, from, to, stuck) {
  const names = cards.map(cardName);
  const words = [interpolate(gettext("A row of %(count)s piles: %(cards)s."), { count: cards.length, cards: names.join(", ") })];
  for (const target of to) {
    words.push(interpolate(gettext("The %(card)s may move onto the %(target)s."), { card: names[from], target: names[target] }));
  }
  for (const index of stuck) words.push(interpolate(gettext("The %(card)s cannot move."), { card: names[index] }));
  return words.join(" ");
}

export function drawRow(board) {
  const cards = board.dataset.cards.split(" ");
  const from = board.dataset.from === undefined ? null : Number(board.dataset.from);
  const to = places(board.dataset.to);
  const stuck = places(board.dataset.stuck);
  const row = document.createElement("ol");
  row.className = "tip-row";
  row.dir = "ltr";
  row.setAttribute("aria-hidden", "true");
  cards.forEach((card, index) => {
    const pile = document.createElement("li");
    pile.className = "tip-pile";
    if (index === from) pile.classList.add("tip-from");
    if (to.has(index)) pile.classList.add("tip-to");
    if (stuck.has(index)) pile.classList.add("tip-stuck");
    pile.append(renderCard(card));
    row.append(pile);
  });
  board.setAttribute("role", "img");
  board.setAttribute("aria-label", describeRow(cards, from, [...to], [...stuck]));
  board.replaceChildren(row);
}

export function main() {
  for (const board of document.querySelectorAll(".tip-board[data-cards]")) drawRow(board);
}

main();
