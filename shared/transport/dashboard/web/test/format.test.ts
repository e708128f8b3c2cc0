import { test } from "node:test";
import assert from "node:assert/strict";
import { bytes, clock, label, metadataValue, parseKeyterms, since, speakerClass, usageShare, when } from "../src/format";

test("clock is mm:ss, h:mm:ss past an hour, never negative", () => {
  assert.equal(clock(0), "00:00");
  assert.equal(clock(65.9), "01:05");
  assert.equal(clock(599), "09:59");
  assert.equal(clock(3600), "1:00:00");
  assert.equal(clock(3725), "1:02:05");
  assert.equal(clock(-3), "00:00");
});

test("bytes uses B, KB and MB, with no .0 on whole megabytes", () => {
  assert.equal(bytes(0), "0 B");
  assert.equal(bytes(1023), "1023 B");
  assert.equal(bytes(2048), "2 KB");
  assert.equal(bytes(64 << 10), "64 KB");
  assert.equal(bytes(10 << 20), "10 MB");
  assert.equal(bytes(4.5 * 1024 * 1024), "4.5 MB");
  assert.equal(bytes((10 << 20) + 1), "10 MB");
  assert.equal(bytes(12.34 * 1024 * 1024), "12.3 MB");
});

test("when says never for a missing time and shows the date of a real one", () => {
  assert.equal(when(null), "never");
  assert.equal(when(undefined), "never");
  assert.equal(when(""), "never");
  assert.match(when("2026-11-24T12:00:00.000Z"), /2026/);
});

test("parseKeyterms keeps one trimmed term a line and drops blank lines", () => {
  assert.deepEqual(parseKeyterms("refund\n  Northwind Energy \n\nREFUND"), ["refund", "Northwind Energy", "REFUND"]);
  assert.deepEqual(parseKeyterms(""), []);
  assert.deepEqual(parseKeyterms("\n \n"), []);
});

test("speakerClass and label", () => {
  assert.equal(speakerClass("Agent"), "agent");
  assert.equal(speakerClass("User"), "user");
  assert.equal(label("customer_sentiment"), "customer sentiment");
  assert.equal(label("billing"), "billing");
});

test("usageShare is the used part of the allowance; no allowance is all used", () => {
  assert.equal(usageShare(30, 120), 0.25);
  assert.equal(usageShare(0, 0), 1);
});

test("since counts the time from a moment to now as a clock, never below zero", () => {
  const t0 = "2026-03-01T10:00:00Z";
  assert.equal(since(t0, Date.parse(t0) + 75_400), "01:15");
  assert.equal(since(t0, Date.parse(t0) + 3_725_000), "1:02:05");
  assert.equal(since(t0, Date.parse(t0) - 5_000), "00:00");
});

test("metadataValue shows strings as they are and anything else as JSON", () => {
  assert.equal(metadataValue("42"), "42");
  assert.equal(metadataValue(42), "42");
  assert.equal(metadataValue({ a: [1, "b"] }), '{"a":[1,"b"]}');
  assert.equal(metadataValue(null), "null");
});
