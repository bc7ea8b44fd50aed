// Thin wrappers over Django's JavaScript catalog (base.html loads it before any module).
// Calling these by name keeps the strings visible to `makemessages -d djangojs`; the fallbacks only
// matter if the catalog failed to load, so the page still reads in English rather than breaking.

export function gettext(msgid) {
  return typeof window.gettext === "function" ? window.gettext(msgid) : msgid;
}

export function ngettext(singular, plural, count) {
  if (typeof window.ngettext === "function") return window.ngettext(singular, plural, count);
  return count === 1 ? singular : plural;
}

/** interpolate("%(n)s piles", {n: 3}) → "3 piles" (named placeholders only). */
export function interpolate(format, values) {
  if (typeof window.interpolate === "function") return window.interpolate(format, values, true);
  return format.replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));
}
