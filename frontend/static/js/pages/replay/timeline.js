// A game's stored events turned into the moments of its replay, with the rules of rules.js: after each
// event, the move line, the row of piles and the time since the start (server times, in ms).

import { replay } from "../../rules.js";

/**
 * @param {string[]} deal
 * @param {{kind: string, move: number[]|null, line: number[][]|null, at: string}[]} events  oldest first
 * @returns {{event: object, line: number[][], piles: string[][], ms: number}[]}
 */
export function timeline(deal, events) {
  const start = Date.parse(events[0].at);
  let line = [];
  return events.map((event) => {
    if (event.kind === "move") line = [...line, event.move];
    else if (event.kind === "undo") line = line.slice(0, -1);
    else if (event.kind === "finish" && event.line) line = event.line.map((move) => [move[0], move[1]]);
    else if (event.kind === "finish" && event.move) line = [...line, event.move];
    return { event, line, piles: replay(deal, line), ms: Date.parse(event.at) - start };
  });
}
