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
  const frames = [];
  let line = [];
  const add = (event, ms) => frames.push({ event, line, piles: replay(deal, line), ms });
  for (const event of events) {
    const ms = Date.parse(event.at) - start;
    if (event.kind === "finish" && event.line) {
      // A line sent whole (played offline, or finished over the API): its moves beyond the line
      // already shown become steps of their own, spread over the time since the last event, so the
      // replay can still be stepped through. Moves taken back offline are undone first, in one step.
      const target = event.line.map((move) => [move[0], move[1]]);
      let kept = 0;
      while (kept < line.length && kept < target.length && sameMove(line[kept], target[kept])) kept += 1;
      const before = frames.length ? frames[frames.length - 1].ms : 0;
      if (kept < line.length) {
        line = line.slice(0, kept);
        add({ kind: "undo", move: null, line: null, at: event.at, offline: true }, before);
      }
      const added = target.slice(kept, -1);
      added.forEach((move, index) => {
        line = [...line, move];
        const at = before + ((ms - before) * (index + 1)) / (added.length + 1);
        add({ kind: "move", move, line: null, at: new Date(start + at).toISOString(), offline: true }, at);
      });
      line = target;
    } else if (event.kind === "move") line = [...line, event.move];
    else if (event.kind === "undo") line = line.slice(0, -1);
    else if (event.kind === "finish" && event.move) line = [...line, event.move];
    add(event, ms);
  }
  return frames;
}

function sameMove(a, b) {
  return a[0] === b[0] && a[1] === b[1];
}
