// A game's stored events turned into the moments of its replay, with the rules of rules.js and the
// event → line reducer of line.js: after each event, the move line, the row of piles and the time since
// the start (server times, in ms).

import { commonLength, copyLine, lineAfter } from "../../line.js";
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
      const target = copyLine(event.line);
      const kept = commonLength(line, target);
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
    }
    line = lineAfter(line, event);
    add(event, ms);
  }
  return frames;
}
