// An arena as one line of a list (the arenas page, the home page): its name and code linking to its
// page, its length, its start or end in the reader's own time, and its players.

import { element } from "./dom.js";
import { gettext, interpolate, ngettext } from "./i18n.js";
import { localDigits } from "./locale_format.js";

/** "14:05" (or "Mon 14:05" when not today) in the page's language and the reader's time zone. */
function clockTime(iso) {
  const when = new Date(iso);
  const today = new Date().toDateString() === when.toDateString();
  const options = today ? { timeStyle: "short" } : { weekday: "short", hour: "2-digit", minute: "2-digit" };
  return localDigits(new Intl.DateTimeFormat(document.documentElement.lang || undefined, options).format(when));
}

/** What an arena is called: the site's own are named for their schedule (as the pages' arena_name). */
function arenaName(kind) {
  if (kind === "hourly") return gettext("Hourly arena");
  if (kind === "daily") return gettext("Daily arena");
  return gettext("Arena");
}

/** The list item of an arena as GET /api/arenas gives it. */
export function arenaEntry(arena) {
  const item = element("li", { className: "live-game arena-entry", attrs: { "data-testid": "arena", "data-code": arena.code } });
  const link = element("a", { className: "live-player", attrs: { "data-testid": "arena-link" } });
  link.href = arena.url;
  link.append(`${arenaName(arena.kind)} `, element("code", { text: arena.code, attrs: { dir: "ltr" } }));
  const minutes = Math.round((Date.parse(arena.ends_at) - Date.parse(arena.starts_at)) / 60000);
  const length = interpolate(ngettext("%(count)s minute", "%(count)s minutes", minutes), { count: localDigits(minutes) });
  let when;
  if (arena.state === "upcoming") when = interpolate(gettext("starts at %(time)s"), { time: clockTime(arena.starts_at) });
  else if (arena.state === "live") when = interpolate(gettext("ends at %(time)s"), { time: clockTime(arena.ends_at) });
  else when = interpolate(gettext("ended at %(time)s"), { time: clockTime(arena.ends_at) });
  const players = interpolate(ngettext("%(count)s player", "%(count)s players", arena.players ?? 0), {
    count: localDigits(arena.players ?? 0),
  });
  item.append(link, element("span", { className: "live-facts", text: `${length} · ${when} · ${players}` }));
  return item;
}
