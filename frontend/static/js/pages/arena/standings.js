// An arena's standings table: the rows the server sends (the top ten), then the reader's own row when
// it is below them. A row on fire (a win right after a win) shows a flame; while the arena runs, a
// row's current game opens on the watch page.

import { element } from "../../dom.js";
import { gettext } from "../../i18n.js";
import { localDigits } from "../../locale_format.js";

export class StandingsTable {
  /**
   * @param {HTMLElement} body  the table's tbody
   * @param {object} options
   * @param {string} options.watchUrl  the watch page's address for game 0
   */
  constructor(body, { watchUrl }) {
    this.body = body;
    this.watchUrl = watchUrl;
  }

  /** Draw `rows` and `me` (the reader's row, or null); `live`: the arena runs, its games may be watched. */
  show(rows, me, { live }) {
    const mine = me ? rows.find((row) => row.player === me.player) : null;
    const drawn = rows.map((row) => this.row(row, { me: row === mine, live }));
    if (me && !mine) {
      const gap = element("tr", { className: "standings-gap" });
      gap.append(element("td", { text: "…", attrs: { colspan: "6" } }));
      drawn.push(gap, this.row(me, { me: true, live }));
    }
    this.body.replaceChildren(...drawn);
  }

  row(entry, { me, live }) {
    const row = element("tr");
    row.dataset.testid = "standing";
    row.dataset.rank = String(entry.rank);
    row.dataset.player = String(entry.player);
    if (me) {
      row.dataset.me = "true";
      row.className = "is-me";
    }
    const name = element("td");
    name.append(element("bdi", { text: entry.nickname }));
    if (entry.fire) {
      name.append(" ", element("span", { className: "fire", text: "🔥", attrs: { title: gettext("On fire: a win right after a win doubles the win bonus"), "data-testid": "fire" } }));
    }
    const watch = element("td");
    if (live && entry.game) {
      const link = element("a", { text: gettext("Watch"), attrs: { "data-testid": "standing-watch" } });
      link.href = this.watchUrl.replace(/0$/, String(entry.game));
      watch.append(link);
    }
    row.append(
      element("td", { className: "num", text: localDigits(entry.rank) }),
      name,
      element("td", { className: "num", text: localDigits(entry.points), attrs: { "data-testid": "standing-points" } }),
      element("td", { className: "num", text: localDigits(entry.games) }),
      element("td", { className: "num", text: localDigits(entry.wins) }),
      watch,
    );
    return row;
  }
}
