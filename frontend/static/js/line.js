// A game's move line, [[from, to], ...], and how one event of the game changes it (docs/api.md,
// "Games are streams of events"). The player's link, the watch page, the race track and the replay
// all keep a line by this one reducer.

export function sameMove(a, b) {
  return a[0] === b[0] && a[1] === b[1];
}

export function sameLine(a, b) {
  return a.length === b.length && a.every((move, i) => sameMove(move, b[i]));
}

export function copyLine(line) {
  return (line || []).map((move) => [move[0], move[1]]);
}

/** How many moves two lines share from their start. */
export function commonLength(a, b) {
  let common = 0;
  while (common < a.length && common < b.length && sameMove(a[common], b[common])) common += 1;
  return common;
}

/**
 * The line after one event: a start empties it, a move appends `move`, an undo takes the last move
 * back, a finish takes its whole `line` when it has one, else appends its winning `move`; a hint
 * leaves it as it is. The line given is never changed.
 */
export function lineAfter(line, { kind, move = null, line: whole = null }) {
  switch (kind) {
    case "start":
      return [];
    case "move":
      return [...copyLine(line), [move[0], move[1]]];
    case "undo":
      return copyLine(line).slice(0, -1);
    case "finish":
      if (Array.isArray(whole)) return copyLine(whole);
      return move ? [...copyLine(line), [move[0], move[1]]] : copyLine(line);
    default:
      return copyLine(line);
  }
}
