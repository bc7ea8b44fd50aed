// Thin wrappers over Django's JavaScript catalog (base.html loads it before any module).
// Calling these by name keeps the strings visible to `makemessages -d djangojs`; the fallbacks only
// matter if the catalog failed to load, so the page still reads in English rather than breaking.

import { formatNumber } from "./locale_format.js";

export function gettext(msgid) {
  return typeof window.gettext === "function" ? window.gettext(msgid) : msgid;
}

export function ngettext(singular, plural, count) {
  if (typeof window.ngettext === "function") return window.ngettext(singular, plural, count);
  return count === 1 ? singular : plural;
}

/**
 * interpolate("%(n)s piles", {n: 3}) → "3 piles" (named placeholders only). Numbers are written in the
 * page's digits ("۳ دسته" in Persian); strings, such as deal codes, stay as they are.
 */
export function interpolate(format, values) {
  const shown = Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      name,
      typeof value === "number" ? formatNumber(value, { useGrouping: false }) : value,
    ]),
  );
  if (typeof window.interpolate === "function") return window.interpolate(format, shown, true);
  return format.replace(/%\((\w+)\)s/g, (_, name) => String(shown[name]));
}
