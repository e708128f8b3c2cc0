import { test } from "node:test";
import assert from "node:assert/strict";
import type { Segment } from "../src/api/types";
import { activeWord, bridge, bridgeSeconds, clampTime, intersect, keySeek, lanes, overtalk, silences, startTime, talkSpan, ticks, timeAt, timedWords, timelineLength, union, wordSpans } from "../src/timeline";

type Alias = "Agent" | "User";
function seg(alias: Alias, start: number, end: number, words?: [string, number, number][], extra: Partial<Segment> = {}): Segment {
  const s: Segment = { text: words ? words.map((w) => w[0]).join(" ") : "words", time_start: start, time_end: end, speaker_id: alias === "Agent" ? 0 : 1, speaker_alias: alias, ...extra };
  if (words) s.words = words.map(([text, a, b]) => ({ text, start: a, end: b, confidence: 0.9 }));
  return s;
}

// A hand-built call of 20 s: the Agent talks 0-4.2 (its words 0.5-4) and 9-12,
// the User 3-7 (overlapping the Agent by 1.2 s) and 11.5-14 (0.5 s), then
// nobody to the end.
const call: Segment[] = [
  seg("Agent", 0, 4.2, [["hello", 0.5, 1], ["how", 1.2, 1.6], ["can", 1.7, 2], ["I", 2.1, 2.3], ["help", 2.4, 4]]),
  seg("User", 3, 7, [["my", 3, 3.5], ["bill", 3.6, 5], ["doubled", 5.2, 7]], { sentiment: { label: "negative", score: -0.7 } }),
  seg("Agent", 9, 12),
  seg("User", 11.5, 14, undefined, { sentiment: { label: "positive", score: 0.4 } }),
  seg("User", 15, 16, undefined, { text: "  " }),
];

test("talkSpan is the segment's bounds, words or not, within the call", () => {
  assert.deepEqual(talkSpan(call[0]), { start: 0, end: 4.2 }, "the words (0.5 to 4) do not shorten it");
  assert.deepEqual(talkSpan(call[2]), { start: 9, end: 12 });
  assert.deepEqual(talkSpan(seg("User", 5, 4)), { start: 5, end: 5 });
  assert.deepEqual(talkSpan(seg("User", 18, 23), 20), { start: 18, end: 20 }, "clipped to the call's length");
  assert.deepEqual(talkSpan(seg("User", 21, 23), 20), { start: 20, end: 20 });
  assert.deepEqual(talkSpan(seg("User", -1, 2)), { start: 0, end: 2 });
});

test("lanes: one per speaker who talked, Agent first, turns in time order with their segment and sentiment", () => {
  const ls = lanes([...call].reverse());
  assert.deepEqual(
    ls.map((l) => l.alias),
    ["Agent", "User"],
  );
  const user = ls[1];
  assert.deepEqual(
    user.turns.map((t) => [t.start, t.end, t.segment, t.sentiment?.label ?? null]),
    [
      [3, 7, 3, "negative"],
      [11.5, 14, 1, "positive"],
    ],
    "the blank segment is left out; indexes point into the reversed list",
  );
  assert.deepEqual(ls[0].turns[1].sentiment, null, "a turn without sentiment has none");
  assert.deepEqual(ls[0].talk, [
    { start: 0.5, end: 4 },
    { start: 9, end: 12 },
  ], "talk is the words' time (0.5 to 4, gaps under 0.3 s joined), as the metrics count it; a segment without words counts whole");
  assert.deepEqual(lanes(call, 13)[1].talk, [
    { start: 3, end: 7 },
    { start: 11.5, end: 13 },
  ], "a known length bounds the talk");
});

test("lanes: mono audio (one speaker) gives one lane and no overtalk", () => {
  const mono = [seg("Agent", 0, 2), seg("Agent", 1.5, 3), seg("Agent", 6, 7)];
  const ls = lanes(mono);
  assert.equal(ls.length, 1);
  assert.deepEqual(ls[0].talk, [
    { start: 0, end: 3 },
    { start: 6, end: 7 },
  ]);
  assert.deepEqual(overtalk(ls), []);
  assert.deepEqual(silences(ls, 12), [
    { start: 3, end: 6 },
    { start: 7, end: 12 },
  ]);
  assert.deepEqual(lanes([]), []);
});

test("wordSpans and bridge: a pause of bridgeSeconds or more inside a segment is not talk", () => {
  const s = seg("Agent", 0, 6, [["one", 0, 1], ["two", 1.2, 2], ["three", 2 + bridgeSeconds, 3], ["four", 5, 6]]);
  assert.deepEqual(wordSpans(s).length, 4);
  assert.deepEqual(wordSpans(s, 5.5)[3], { start: 5, end: 5.5 }, "clipped to the call's length");
  assert.deepEqual(wordSpans(seg("User", 1, 2)), [{ start: 1, end: 2 }], "no words: the segment's span");
  assert.deepEqual(bridge(wordSpans(s), bridgeSeconds), [
    { start: 0, end: 2 },
    { start: 2.3, end: 3 },
    { start: 5, end: 6 },
  ], "0.2 s joined; exactly 0.3 s and 2 s stay open");
  assert.deepEqual(lanes([s])[0].turns[0], { start: 0, end: 6, segment: 0, sentiment: null }, "the turn keeps the segment's bounds");
});

test("union merges overlapping and touching spans and drops empty ones", () => {
  assert.deepEqual(
    union([
      { start: 5, end: 6 },
      { start: 0, end: 2 },
      { start: 1, end: 3 },
      { start: 3, end: 4 },
      { start: 8, end: 8 },
    ]),
    [
      { start: 0, end: 4 },
      { start: 5, end: 6 },
    ],
  );
});

test("intersect gives the time covered by both lists", () => {
  const a = [
    { start: 0, end: 4 },
    { start: 6, end: 10 },
  ];
  const b = [
    { start: 3, end: 7 },
    { start: 8, end: 9 },
    { start: 10, end: 11 },
  ];
  assert.deepEqual(intersect(a, b), [
    { start: 3, end: 4 },
    { start: 6, end: 7 },
    { start: 8, end: 9 },
  ]);
  assert.deepEqual(intersect(a, []), []);
});

test("overtalk is where both speakers talk at once", () => {
  assert.deepEqual(overtalk(lanes(call)), [
    { start: 3, end: 4 },
    { start: 11.5, end: 12 },
  ]);
});

test("silences are gaps of at least 3 s with nobody talking, the call's end included", () => {
  const ls = lanes(call);
  assert.deepEqual(silences(ls, 20), [{ start: 14, end: 20 }], "the 2 s gap from 7 to 9 is not long");
  assert.deepEqual(silences(ls, 20, 2), [
    { start: 7, end: 9 },
    { start: 14, end: 20 },
  ]);
  assert.deepEqual(silences(lanes([seg("User", 4, 5)]), 5), [{ start: 0, end: 4 }], "the call's start counts");
  assert.deepEqual(silences([], 10), [{ start: 0, end: 10 }]);
});

test("activeWord finds the word under t by binary search, -1 between and outside words", () => {
  const words = [
    { start: 0.5, end: 1 },
    { start: 1.2, end: 1.6 },
    { start: 1.7, end: 2 },
    { start: 5, end: 6 },
  ];
  assert.equal(activeWord(words, 0), -1);
  assert.equal(activeWord(words, 0.5), 0, "a word starts at its start");
  assert.equal(activeWord(words, 0.99), 0);
  assert.equal(activeWord(words, 1), -1, "and is over at its end");
  assert.equal(activeWord(words, 1.3), 1);
  assert.equal(activeWord(words, 1.7), 2);
  assert.equal(activeWord(words, 3), -1);
  assert.equal(activeWord(words, 5.5), 3);
  assert.equal(activeWord(words, 7), -1);
  assert.equal(activeWord([], 1), -1);
  // A long list: every word's midpoint finds that word.
  const many = Array.from({ length: 1001 }, (_, i) => ({ start: i, end: i + 0.8 }));
  for (const i of [0, 1, 499, 500, 999, 1000]) assert.equal(activeWord(many, i + 0.4), i);
  assert.equal(activeWord(many, 500.9), -1);
});

test("timedWords lists each lane's words in time order, pointing into the transcript", () => {
  const ls = lanes(call);
  const words = timedWords(call, ls);
  assert.equal(words.length, 2);
  assert.deepEqual(
    words[0].map((w) => [w.segment, w.word]),
    [
      [0, 0],
      [0, 1],
      [0, 2],
      [0, 3],
      [0, 4],
    ],
  );
  const at = words[1][activeWord(words[1], 4)];
  assert.equal(call[at.segment].words![at.word].text, "bill");
});

test("startTime: the route's t within the call, 0 without one", () => {
  assert.equal(startTime(12.5, 60), 12.5);
  assert.equal(startTime(90, 60), 60);
  assert.equal(startTime(null, 60), 0);
  assert.equal(startTime(undefined, 60), 0);
  assert.equal(startTime(NaN, 60), 0);
  assert.equal(startTime(12.5, 0), 12.5, "an unknown length bounds nothing");
  assert.equal(clampTime(-1, 10), 0);
});

test("keySeek: arrows step 5 s, pages 30 s, Home and End go to the ends, within the call", () => {
  assert.equal(keySeek("ArrowRight", 10, 60), 15);
  assert.equal(keySeek("ArrowUp", 10, 60), 15);
  assert.equal(keySeek("ArrowLeft", 10, 60), 5);
  assert.equal(keySeek("ArrowDown", 3, 60), 0);
  assert.equal(keySeek("ArrowRight", 58, 60), 60);
  assert.equal(keySeek("PageUp", 10, 60), 40);
  assert.equal(keySeek("PageDown", 10, 60), 0);
  assert.equal(keySeek("Home", 42, 60), 0);
  assert.equal(keySeek("End", 42, 60), 60);
  assert.equal(keySeek("End", 42, 0), null, "no end before the length is known");
  assert.equal(keySeek("a", 42, 60), null);
  assert.equal(keySeek("Tab", 42, 60), null);
});

test("timeAt maps a point on the track to a time", () => {
  assert.equal(timeAt(0, 500, 60), 0);
  assert.equal(timeAt(250, 500, 60), 30);
  assert.equal(timeAt(500, 500, 60), 60);
  assert.equal(timeAt(-5, 500, 60), 0);
  assert.equal(timeAt(600, 500, 60), 60);
  assert.equal(timeAt(10, 0, 60), 0);
});

test("timelineLength is the result's duration, stretched to the last talk", () => {
  assert.equal(timelineLength(20, lanes(call)), 20);
  assert.equal(timelineLength(10, lanes(call)), 14);
  assert.equal(timelineLength(0, []), 0);
});

test("ticks take a round step with at most max marks (six unless told)", () => {
  assert.deepEqual(ticks(20), [0, 5, 10, 15, 20]);
  assert.deepEqual(ticks(300), [0, 60, 120, 180, 240, 300]);
  assert.deepEqual(ticks(0), [0]);
  assert.deepEqual(ticks(6, 4), [0, 2, 4, 6]);
  assert.deepEqual(ticks(34, 4), [0, 10, 20, 30]);
  assert.ok(ticks(4 * 3600).length <= 7);
});
