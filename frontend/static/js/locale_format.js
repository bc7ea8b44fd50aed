// Numbers and dates in the page's language: Persian digits and the Solar Hijri (Jalali) calendar beside
// the Gregorian date in Persian, plain digits in English. Deal codes and race codes are never passed
// here: they are identifiers, typed and shared in Latin letters and digits.

const PERSIAN_DIGITS = "۰۱۲۳۴۵۶۷۸۹";
const JALALI_MONTHS = [
  "فروردین", "اردیبهشت", "خرداد", "تیر", "مرداد", "شهریور", "مهر", "آبان", "آذر", "دی", "بهمن", "اسفند",
];
// Day count of the Gregorian months before each month, in a common year.
const DAYS_BEFORE_MONTH = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

/** The page's language ("fa", "en"), from <html lang>; "en" outside a page (node tests). */
export function pageLanguage() {
  return globalThis.document?.documentElement?.lang || "en";
}

/** Every ASCII digit of `text` as a Persian digit when the language is Persian ("1:05" → "۱:۰۵"). */
export function localDigits(text, language = pageLanguage()) {
  const value = String(text);
  return language === "fa" ? value.replace(/[0-9]/g, (digit) => PERSIAN_DIGITS[Number(digit)]) : value;
}

/** 2127 → "2,127" in English, "۲٬۱۲۷" in Persian. */
export function formatNumber(value, options = {}, language = pageLanguage()) {
  return localDigits(new Intl.NumberFormat(language === "fa" ? "fa" : "en", options).format(value), language);
}

/**
 * The Solar Hijri date of a Gregorian one: [year, month (1–12), day]. The arithmetic counts days from
 * 1600 (or 621) and walks the calendar's 33-year cycles, which match the astronomical calendar for
 * the years anyone plays in (1800–2200).
 */
export function toJalali(gregorianYear, gregorianMonth, gregorianDay) {
  let year = gregorianYear <= 1600 ? 0 : 979;
  const yearsFromEpoch = gregorianYear - (gregorianYear <= 1600 ? 621 : 1600);
  const leapYear = gregorianMonth > 2 ? yearsFromEpoch + 1 : yearsFromEpoch;
  let days =
    365 * yearsFromEpoch +
    Math.floor((leapYear + 3) / 4) -
    Math.floor((leapYear + 99) / 100) +
    Math.floor((leapYear + 399) / 400) -
    80 +
    gregorianDay +
    DAYS_BEFORE_MONTH[gregorianMonth - 1];
  year += 33 * Math.floor(days / 12053);
  days %= 12053;
  year += 4 * Math.floor(days / 1461);
  days %= 1461;
  if (days > 365) {
    year += Math.floor((days - 1) / 365);
    days = (days - 1) % 365;
  }
  const month = days < 186 ? 1 + Math.floor(days / 31) : 7 + Math.floor((days - 186) / 30);
  const day = 1 + (days < 186 ? days % 31 : (days - 186) % 30);
  return [year, month, day];
}

/**
 * A UTC calendar date ("2026-11-30") for people: "30 Nov 2026" in English; in Persian the Solar Hijri
 * date first, the Gregorian beside it: "۹ آذر ۱۴۰۵ (۳۰ نوامبر ۲۰۲۶)".
 */
export function formatDate(isoDate, language = pageLanguage()) {
  const [year, month, day] = isoDate.slice(0, 10).split("-").map(Number);
  const gregorian = new Intl.DateTimeFormat(language === "fa" ? "fa-u-ca-gregory" : "en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    timeZone: "UTC",
  }).format(new Date(Date.UTC(year, month - 1, day)));
  if (language !== "fa") return gregorian;
  const [jalaliYear, jalaliMonth, jalaliDay] = toJalali(year, month, day);
  return localDigits(`${jalaliDay} ${JALALI_MONTHS[jalaliMonth - 1]} ${jalaliYear} (${gregorian})`, language);
}

/**
 * The calendar month a UTC date ("2026-11-30") belongs to on the page: a Solar Hijri month in Persian
 * ("آذر ۱۴۰۵"), a Gregorian one in English ("November 2026"). `key` tells months apart.
 */
export function calendarMonth(isoDate, language = pageLanguage()) {
  const [year, month, day] = isoDate.slice(0, 10).split("-").map(Number);
  if (language !== "fa") {
    const title = new Intl.DateTimeFormat("en-GB", { month: "long", year: "numeric", timeZone: "UTC" }).format(
      new Date(Date.UTC(year, month - 1, day)),
    );
    return { key: `${year}-${month}`, title };
  }
  const [jalaliYear, jalaliMonth] = toJalali(year, month, day);
  return { key: `${jalaliYear}-${jalaliMonth}`, title: localDigits(`${JALALI_MONTHS[jalaliMonth - 1]} ${jalaliYear}`, language) };
}

/** The day a calendar's weeks start on (0 Sunday … 6 Saturday): Saturday in Persian, Monday in English. */
export function firstWeekday(language = pageLanguage()) {
  return language === "fa" ? 6 : 1;
}
