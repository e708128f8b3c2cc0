import { test } from "node:test";
import assert from "node:assert/strict";
import { barLabel, dayName, languageName, minutesText, monthName, niceMax } from "../src/usageSeries";

test("month and day names are UTC keys spelled out", () => {
  assert.equal(monthName("2026-11"), "November 2026");
  assert.equal(monthName("2027-01"), "January 2027");
  assert.equal(dayName("2026-11-07"), "7 Nov 2026");
  assert.equal(dayName("2026-12-31"), "31 Dec 2026");
});

test("a bar's label gives the day, the minutes and the calls", () => {
  assert.equal(barLabel({ date: "2026-11-27", minutes: 1.5, jobs: 1 }), "27 Nov 2026: 1.50 minutes, 1 call");
  assert.equal(barLabel({ date: "2026-11-28", minutes: 0, jobs: 0 }), "28 Nov 2026: 0.00 minutes, 0 calls");
  assert.equal(minutesText(1), "1.00 minute");
});

test("the scale tops out at 1, 2 or 5 times a power of ten, 1 when empty", () => {
  assert.equal(niceMax(0), 1);
  assert.equal(niceMax(-1), 1);
  assert.equal(niceMax(0.1), 0.1);
  assert.equal(niceMax(0.4), 0.5);
  assert.equal(niceMax(0.03), 0.05);
  assert.equal(niceMax(1), 1);
  assert.equal(niceMax(1.01), 2);
  assert.equal(niceMax(3), 5);
  assert.equal(niceMax(7.5), 10);
  assert.equal(niceMax(10), 10);
  assert.equal(niceMax(12.3), 20);
  assert.equal(niceMax(480), 500);
  assert.equal(niceMax(501), 1000);
});

test("an upload without a language reads as detected", () => {
  assert.equal(languageName(null), "Detected at run time");
  assert.equal(languageName("en-US"), "en-US");
});
