// Small builders for the pages that draw tables and charts (the daily board, the profile), and the
// replays' speed button.

import { gettext, interpolate } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

/** The elements under `root` named by their data-testid: `{ name: testid }` in, `{ name: element }` out. */
export function byTestIds(root, ids) {
  return Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, root.querySelector(`[data-testid="${id}"]`)]));
}

/** An HTML element with an optional class, text and attributes. */
export function element(tag, { className, text, attrs } = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
  return node;
}

/** An SVG element with its attributes and an optional text. */
export function svgElement(tag, attrs = {}, text = undefined) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * The chart's box in the container's own pixels, so that its labels keep their size on a phone (a
 * 640-unit chart shrunk to a 300-pixel screen halved them), with its plot's size and the page's
 * direction. `chart.width` is for a container not laid out yet, and the widest it is drawn.
 */
export function chartBox(container, chart) {
  const width = Math.min(chart.width, Math.max(MIN_CHART_WIDTH, Math.round(container.clientWidth) || chart.width));
  return {
    ...chart,
    width,
    plotWidth: width - chart.left - chart.right,
    plotHeight: chart.height - chart.top - chart.bottom,
    rightToLeft: getComputedStyle(container).direction === "rtl",
  };
}

const MIN_CHART_WIDTH = 280;

/**
 * The text-anchor that puts a label's `side` ("left" or "right") at its x in a chart `box`. SVG
 * anchors follow the text's direction, so in a right-to-left page "end" is the left side.
 */
export function anchorAt(side, box) {
  return (side === "left") !== box.rightToLeft ? "start" : "end";
}

/** A replay's speed button: "2×" on it, and a name that says what it is and holds those words too. */
export function showSpeed(button, speed) {
  const shown = interpolate(gettext("%(speed)s×"), { speed });
  button.textContent = shown;
  button.setAttribute("aria-label", interpolate(gettext("Speed %(shown)s"), { shown }));
}

// A live link's state in the page's connection line: `labels` adds to or overrides the common words,
// and a state with no words hides the line.
export function showConnection(el, state, labels = {}) {
  const words = {
    connecting: gettext("Connecting…"),
    live: gettext("Live"),
    offline: gettext("Reconnecting…"),
    refused: gettext("Not connected"),
    ...labels,
  };
  el.dataset.state = state;
  el.textContent = words[state] ?? "";
  el.hidden = !el.textContent;
}
