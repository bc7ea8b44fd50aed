import assert from "node:assert/strict";
import { test } from "node:test";

import { calendarMonth, firstWeekday, formatDate, formatNumber, localDigits, toJalali } from "../static/js/locale_format.js";

test("Nowruz 1403 fell on 20 March 2024", () => {
  assert.deepEqual(toJalali(2024, 3, 20), [1403, 1, 1]);
});

test("Nowruz 1404 fell on 21 March 2025", () => {
  assert.deepEqual(toJalali(2025, 3, 21), [1404, 1, 1]);
});

test("the last day of the leap year 1403 (30 Esfand) was 20 March 2025", () => {
  assert.deepEqual(toJalali(2025, 3, 20), [1403, 12, 30]);
});

test("22 Bahman 1357 was 11 February 1979", () => {
  assert.deepEqual(toJalali(1979, 2, 11), [1357, 11, 22]);
});

test("1 January 2000 was 11 Dey 1378", () => {
  assert.deepEqual(toJalali(2000, 1, 1), [1378, 10, 11]);
});

test("every day from 2000 to 2040 agrees with the Persian calendar of the platform", () => {
  const persian = new Intl.DateTimeFormat("en-u-ca-persian-nu-latn", {
    year: "numeric", month: "numeric", day: "numeric", timeZone: "UTC",
  });
  for (let time = Date.UTC(2000, 0, 1); time <= Date.UTC(2040, 11, 31); time += 86_400_000) {
    const date = new Date(time);
    const parts = Object.fromEntries(persian.formatToParts(date).map((part) => [part.type, part.value]));
    const expected = [Number.parseInt(parts.year, 10), Number(parts.month), Number(parts.day)];
    assert.deepEqual(toJalali(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()), expected, date.toISOString());
  }
});

test("Persian shows Persian digits", () => {
  assert.equal(localDigits("12:05", "fa"), "۱۲:۰۵");
  assert.equal(formatNumber(2127, {}, "fa"), "۲٬۱۲۷");
});

test("English keeps ASCII digits", () => {
  assert.equal(localDigits("12:05", "en"), "12:05");
  assert.equal(formatNumber(2127, {}, "en"), "2,127");
});

test("a Persian date shows the Solar Hijri date beside the Gregorian one", () => {
  assert.equal(formatDate("2026-11-30", "fa"), "۹ آذر ۱۴۰۵ (۳۰ نوامبر ۲۰۲۶)");
});

test("an English date is the Gregorian date alone", () => {
  assert.equal(formatDate("2026-11-30", "en"), "30 Nov 2026");
});

test("a calendar's months are Solar Hijri in Persian and Gregorian in English", () => {
  // 21 November 2026 is 30 Aban 1405; 22 November is 1 Azar.
  assert.equal(calendarMonth("2026-11-21", "fa").title, "آبان ۱۴۰۵");
  assert.equal(calendarMonth("2026-11-22", "fa").title, "آذر ۱۴۰۵");
  assert.notEqual(calendarMonth("2026-11-21", "fa").key, calendarMonth("2026-11-22", "fa").key);
  assert.equal(calendarMonth("2026-11-21", "en").key, calendarMonth("2026-11-22", "en").key);
  assert.equal(calendarMonth("2026-11-22", "en").title, "November 2026");
  assert.deepEqual([firstWeekday("fa"), firstWeekday("en")], [6, 1]); // Saturday, Monday
});
