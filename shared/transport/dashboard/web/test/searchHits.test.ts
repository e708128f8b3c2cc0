import { test } from "node:test";
import assert from "node:assert/strict";
import { hashOfSearch, markWords, matchHref, searchOfHash } from "../src/components/searchHits";
import { parseRoute } from "../src/router";

const id = "0b6f1c7e-2d3a-4c5b-8e9f-0a1b2c3d4e5f";

test("a search lives in the calls list's fragment and round-trips", () => {
  const hash = hashOfSearch({ q: ' refund "card number" ', speaker: "User" });
  assert.equal(hash, "#/?q=refund+%22card+number%22&speaker=User");
  assert.deepEqual(searchOfHash(hash), { q: 'refund "card number"', speaker: "User" });
  assert.deepEqual(parseRoute(hash), { page: "calls" });
  assert.equal(hashOfSearch({ q: "  ", speaker: "Agent" }), "#/");
  assert.equal(hashOfSearch({ q: "refund", speaker: "" }), "#/?q=refund");
  assert.deepEqual(searchOfHash("#/"), { q: "", speaker: "" });
});

test("a hit links to the review screen at its time", () => {
  const m = { field: "transcript" as const, segment: 3, time_start: 12.345, time_end: 14, text: "x" };
  assert.equal(matchHref("transcription", id, m), "#/calls/" + id + "?t=12.35");
  assert.equal(matchHref("tags", id, { field: "input" as const, segment: 0, text: "x" }), "#/jobs/" + id);
});

test("markWords marks the query's whole words, any case", () => {
  assert.deepEqual(markWords("I want a Refund, refunds too.", 'refund "want a"'), [
    ["I ", false],
    ["want", true],
    [" ", false],
    ["a", true],
    [" ", false],
    ["Refund", true],
    [", refunds too.", false],
  ]);
});
