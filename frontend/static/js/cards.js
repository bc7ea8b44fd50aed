// Drawing cards. A card is two characters, rank then suit ("TD" is the ten of diamonds).

import { gettext, interpolate } from "./i18n.js";

// U+FE0E asks for the text glyph: without it some phones draw ♥ and ♦ as coloured emoji.
const SUIT_SYMBOLS = { C: "\u2663\uFE0E", D: "\u2666\uFE0E", H: "\u2665\uFE0E", S: "\u2660\uFE0E" };
const FACES = new Set(["J", "Q", "K"]);

export function rankLabel(card) {
  return card[0] === "T" ? "10" : card[0];
}

export function suitSymbol(card) {
  return SUIT_SYMBOLS[card[1]] || "?";
}

export function isRed(card) {
  return card[1] === "D" || card[1] === "H";
}

function rankName(rank) {
  switch (rank) {
    case "A": return gettext("ace");
    case "2": return gettext("two");
    case "3": return gettext("three");
    case "4": return gettext("four");
    case "5": return gettext("five");
    case "6": return gettext("six");
    case "7": return gettext("seven");
    case "8": return gettext("eight");
    case "9": return gettext("nine");
    case "T": return gettext("ten");
    case "J": return gettext("jack");
    case "Q": return gettext("queen");
    case "K": return gettext("king");
    default: return rank;
  }
}

function suitName(suit) {
  switch (suit) {
    case "C": return gettext("clubs");
    case "D": return gettext("diamonds");
    case "H": return gettext("hearts");
    case "S": return gettext("spades");
    default: return suit;
  }
}

/** "ten of diamonds", for screen readers. */
export function cardName(card) {
  return interpolate(gettext("%(rank)s of %(suit)s"), { rank: rankName(card[0]), suit: suitName(card[1]) });
}

function span(className, text) {
  const element = document.createElement("span");
  element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

function corner(card, where) {
  const element = span(`card-corner ${where}`);
  element.append(span("card-rank", rankLabel(card)), span("card-suit", suitSymbol(card)));
  return element;
}

/** A face-up card: rank and suit in two corners, a large suit (or framed letter for J Q K) in the middle. */
export function renderCard(card) {
  const element = span(`card ${isRed(card) ? "red" : "black"}`);
  element.dataset.card = card;
  element.setAttribute("aria-hidden", "true");
  const middle = span(FACES.has(card[0]) ? "card-middle face" : "card-middle");
  if (FACES.has(card[0])) {
    middle.append(span("face-letter", card[0]), span("face-suit", suitSymbol(card)));
  } else {
    middle.textContent = suitSymbol(card);
  }
  element.append(corner(card, "top"), middle, corner(card, "bottom"));
  return element;
}
