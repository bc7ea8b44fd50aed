// The rules of Accordion for the browser: a copy of games/engine/ (docs/rules.md).
// The server is still the referee; this copy lets the board answer at once. Both are checked
// against the same vectors in tests/vectors/ (frontend/tests/rules.test.mjs, tests/engine/).
//
// Notation: a card is two characters, rank then suit ("TD" is the ten of diamonds); a row of piles
// is an array of piles, each an array of cards bottom → top; a move is [from, to], 0-based
// positions in the current row, with to = from − 1 or from − 3.

export const RANKS = "A23456789TJQK";
export const SUITS = "CDHS";
export const DECK = Object.freeze([...SUITS].flatMap((suit) => [...RANKS].map((rank) => rank + suit)));
export const GOOD_GAME_PILES = 5;

const DECK_SET = new Set(DECK);
const POINTS_PER_REMOVED_PILE = 10;
const WIN_BONUS = 500;
const TIME_BONUS_SECONDS = 1200;

/** A move the rules do not allow: `reason` says why, `index` is its place in a list (or null). */
export class IllegalMove extends Error {
  constructor(move, reason, index = null) {
    super(reason);
    this.name = "IllegalMove";
    this.move = move;
    this.reason = reason;
    this.index = index;
  }
}

/** A deal that is not 52 distinct cards. */
export class InvalidDeal extends Error {
  constructor(reason) {
    super(reason);
    this.name = "InvalidDeal";
  }
}

/** Two top cards match when they share a rank or a suit. */
export function cardsMatch(a, b) {
  return a[0] === b[0] || a[1] === b[1];
}

/** The top card of each pile. Accepts piles (arrays, bottom → top) or a row of top cards. */
export function topsOf(piles) {
  return piles.map((pile) => (typeof pile === "string" ? pile : pile[pile.length - 1]));
}

/** Every legal move, ordered by source pile, then one place left before three. */
export function legalMoves(piles) {
  const tops = topsOf(piles);
  const moves = [];
  for (let from = 1; from < tops.length; from += 1) {
    if (cardsMatch(tops[from], tops[from - 1])) moves.push([from, from - 1]);
    if (from >= 3 && cardsMatch(tops[from], tops[from - 3])) moves.push([from, from - 3]);
  }
  return moves;
}

/** The positions the pile at `index` may move onto (one place left first); [] for any other index. */
export function targetsFrom(piles, index) {
  if (!Number.isInteger(index) || index < 1 || index >= piles.length) return [];
  const tops = topsOf(piles);
  const targets = [];
  for (const to of [index - 1, index - 3]) {
    if (to >= 0 && cardsMatch(tops[index], tops[to])) targets.push(to);
  }
  return targets;
}

/**
 * What tapping the pile at `index` does, with `selected` the pile picked by an earlier tap (or null) and
 * `targets` where it may go: `move` to play (or null), the `selected` pile and `targets` after the tap, and
 * `stuck` when the tapped pile cannot move at all. A pile with one move plays it; one with two is picked;
 * a tap after a pick plays onto the tapped pile if it is a target, and otherwise drops the pick.
 */
export function tapPile(piles, { index, selected, targets }) {
  if (selected !== null) {
    return { move: targets.includes(index) ? [selected, index] : null, selected: null, targets: [], stuck: false };
  }
  const options = targetsFrom(piles, index);
  if (options.length === 1) return { move: [index, options[0]], selected: null, targets: [], stuck: false };
  if (options.length > 1) return { move: null, selected: index, targets: options, stuck: false };
  return { move: null, selected: null, targets: [], stuck: true };
}

// Return the reason `move` is not a well-formed move in a row of `count` piles, or null.
function shapeProblem(move, count) {
  if (!Array.isArray(move) || move.length !== 2) return "a move is a pair [from, to]";
  const [from, to] = move;
  if (!Number.isInteger(from) || !Number.isInteger(to)) return "positions must be whole numbers";
  if (count === 1) return "the row is a single pile: the game is won and no move remains";
  if (from < 0 || from >= count || to < 0 || to >= count) {
    return `position out of range: the row has ${count} piles (0 to ${count - 1})`;
  }
  if (to !== from - 1 && to !== from - 3) return "a pile moves onto the pile 1 or 3 places to its left";
  return null;
}

function checkMove(tops, move, index) {
  const problem = shapeProblem(move, tops.length);
  if (problem) throw new IllegalMove(move, problem, index);
  const [from, to] = move;
  if (!cardsMatch(tops[from], tops[to])) {
    throw new IllegalMove(
      move,
      `cards do not match: ${tops[from]} onto ${tops[to]} share neither suit nor rank`,
      index,
    );
  }
}

/** The row after `move`, as a new array (the piles passed in are not changed). Throws IllegalMove. */
export function applyMove(piles, move) {
  const rows = piles.map((pile) => (typeof pile === "string" ? [pile] : pile));
  checkMove(topsOf(rows), move, null);
  const [from, to] = move;
  const next = rows.slice();
  next[to] = [...rows[to], ...rows[from]];
  next.splice(from, 1);
  return next;
}

/** Throw InvalidDeal unless `deal` is an array of 52 distinct cards. */
export function validateDeal(deal) {
  if (!Array.isArray(deal)) throw new InvalidDeal("a deal must be a list of 52 cards");
  if (deal.length !== 52) throw new InvalidDeal(`a deal must have 52 cards, not ${deal.length}`);
  const seen = new Set();
  deal.forEach((card, position) => {
    if (typeof card !== "string" || !DECK_SET.has(card)) {
      throw new InvalidDeal(`position ${position} holds something that is not a card such as 'TD'`);
    }
    if (seen.has(card)) throw new InvalidDeal(`card ${card} appears twice in the deal`);
    seen.add(card);
  });
}

/**
 * Play `moves` from `deal`; return the piles (arrays, bottom → top). Throws InvalidDeal for a bad
 * deal, or IllegalMove whose `index` is the 0-based place of the first move that is not allowed.
 */
export function replay(deal, moves) {
  validateDeal(deal);
  if (!Array.isArray(moves)) throw new IllegalMove(moves, "the moves must be a list of [from, to] pairs", 0);
  const piles = deal.map((card) => [card]);
  const tops = deal.slice();
  for (let index = 0; index < moves.length; index += 1) {
    const move = moves[index];
    checkMove(tops, move, index);
    const [from, to] = move;
    piles[to] = piles[to].concat(piles[from]);
    piles.splice(from, 1);
    tops[to] = tops[from];
    tops.splice(from, 1);
  }
  return piles;
}

/** Five piles or fewer earns "Good game!" (only one pile is a win). */
export function isGoodGame(piles) {
  return piles <= GOOD_GAME_PILES;
}

/**
 * The score and its parts, as the result panel shows them: 10 points a removed pile; a win (one
 * pile) adds 500 and max(0, 1200 − seconds). `seconds` null or undefined: no time bonus.
 * Throws RangeError for impossible values.
 */
export function scoreParts(piles, seconds = null) {
  if (!Number.isInteger(piles) || piles < 1 || piles > 52) {
    throw new RangeError("piles must be a whole number from 1 to 52");
  }
  const timed = seconds !== null && seconds !== undefined;
  if (timed && (!Number.isInteger(seconds) || seconds < 0)) {
    throw new RangeError("seconds must be a whole number of at least 0");
  }
  const won = piles === 1;
  const removed = 52 - piles;
  const parts = {
    removed,
    pointsPerPile: POINTS_PER_REMOVED_PILE,
    removedPoints: POINTS_PER_REMOVED_PILE * removed,
    winBonus: won ? WIN_BONUS : 0,
    timeLimit: TIME_BONUS_SECONDS,
    timeBonus: won && timed ? Math.max(0, TIME_BONUS_SECONDS - seconds) : 0,
  };
  return { ...parts, total: parts.removedPoints + parts.winBonus + parts.timeBonus };
}

/** The score alone: see scoreParts. */
export function score(piles, seconds = null) {
  return scoreParts(piles, seconds).total;
}
