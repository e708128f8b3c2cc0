// The call's timeline as data: who talks when, where both talk at once, where
// nobody talks, which word is being spoken at a time, and where a key or a
// click seeks to. Pure functions over the transcript (unit-tested in
// test/timeline.test.ts); components/timeline.ts and components/transcript.ts
// draw them.
import type { Segment, SegmentSentiment } from "./api/types";

export interface Span {
  start: number;
  end: number;
}

/** One turn on a lane: a segment's talk, with the segment's index in the transcript and its sentiment when it has one. */
export interface Turn extends Span {
  segment: number;
  sentiment: SegmentSentiment | null;
}

/** One speaker's row of the timeline; talk is its words' time, pauses under bridgeSeconds joined (as the metrics count talk). */
export interface Lane {
  speakerId: 0 | 1;
  alias: "Agent" | "User";
  turns: Turn[];
  talk: Span[];
}

/** A gap of at least this many seconds with nobody talking is marked as a long silence. */
export const longSilenceSeconds = 3;

/** A word below this confidence is marked as one the engine was unsure of. */
export const lowConfidence = 0.5;

/** Whether the segment has something said in it (the transcript leaves out blank segments). */
export const spoken = (s: Segment): boolean => s.text.trim() !== "";

/**
 * A pause in one speaker's talk shorter than this is still talk (the gaps
 * between the words of a phrase), as the call's metrics count it
 * (callmetrics.BridgeSeconds).
 */
export const bridgeSeconds = 0.3;

/**
 * A segment's bounds, kept within the call when its length is known: the
 * extent of its coloured turn on the timeline.
 */
export function talkSpan(s: Segment, duration = 0): Span {
  const upper = duration > 0 ? duration : Infinity;
  const start = Math.min(Math.max(0, s.time_start), upper);
  const end = Math.min(Math.max(0, s.time_end), upper);
  return { start, end: Math.max(start, end) };
}

/**
 * Where a segment's talk lies, as the call's metrics count it (so the marks
 * and the figures agree): its words' times where it carries words, its whole
 * span where it carries none, kept within the call when its length is known.
 */
export function wordSpans(s: Segment, duration = 0): Span[] {
  const words = s.words ?? [];
  if (words.length === 0) return [talkSpan(s, duration)];
  const upper = duration > 0 ? duration : Infinity;
  return words.map((w) => {
    const start = Math.min(Math.max(0, w.start), upper);
    return { start, end: Math.max(start, Math.min(Math.max(0, w.end), upper)) };
  });
}

/** The union of spans with gaps shorter than gap closed, ordered (a gap of exactly gap stays open). */
export function bridge(spans: Span[], gap: number): Span[] {
  const out: Span[] = [];
  for (const s of union(spans)) {
    const last = out[out.length - 1];
    if (last && s.start - last.end < gap - 1e-9) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/** Sorted, merged spans: the time covered by any of spans. */
export function union(spans: Span[]): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ start: s.start, end: s.end });
  }
  return out;
}

/** The time covered by both a and b, each sorted and merged (union's output). */
export function intersect(a: Span[], b: Span[]): Span[] {
  const out: Span[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const start = Math.max(a[i].start, b[j].start);
    const end = Math.min(a[i].end, b[j].end);
    if (end > start) out.push({ start, end });
    if (a[i].end < b[j].end) i++;
    else j++;
  }
  return out;
}

/** The lanes of the timeline: one per speaker who talked, Agent first; mono audio has one. duration, when known, bounds the talk. */
export function lanes(segments: Segment[], duration = 0): Lane[] {
  const bySpeaker = new Map<number, Lane>();
  const spans = new Map<number, Span[]>();
  segments.forEach((s, index) => {
    if (!spoken(s)) return;
    let lane = bySpeaker.get(s.speaker_id);
    if (!lane) {
      lane = { speakerId: s.speaker_id, alias: s.speaker_alias, turns: [], talk: [] };
      bySpeaker.set(s.speaker_id, lane);
    }
    lane.turns.push({ ...talkSpan(s, duration), segment: index, sentiment: s.sentiment ?? null });
    spans.set(s.speaker_id, [...(spans.get(s.speaker_id) ?? []), ...wordSpans(s, duration)]);
  });
  const out = [...bySpeaker.values()].sort((a, b) => (a.alias === b.alias ? a.speakerId - b.speakerId : a.alias === "Agent" ? -1 : 1));
  for (const lane of out) {
    lane.turns.sort((a, b) => a.start - b.start);
    lane.talk = bridge(spans.get(lane.speakerId) ?? [], bridgeSeconds);
  }
  return out;
}

/** Where both speakers talk at once, as the metrics' overtalk counts it (a call has two speakers at most, one per channel); none with one lane. */
export function overtalk(ls: Lane[]): Span[] {
  return ls.length < 2 ? [] : intersect(ls[0].talk, ls[1].talk);
}

/**
 * The stretches of at least min seconds where nobody talks, the call's start
 * and end included (as the metrics' longest_silence_seconds counts them).
 */
export function silences(ls: Lane[], duration: number, min = longSilenceSeconds): Span[] {
  const talk = union(ls.flatMap((l) => l.talk));
  const out: Span[] = [];
  let from = 0;
  for (const s of talk) {
    if (s.start - from >= min) out.push({ start: from, end: s.start });
    from = Math.max(from, s.end);
  }
  if (duration - from >= min) out.push({ start: from, end: duration });
  return out;
}

/** A word located in the transcript: segments[segment].words[word]. */
export interface TimedWord extends Span {
  segment: number;
  word: number;
}

/** Each speaker's words in time order, one list per lane (a speaker's words do not overlap, so each list can be searched by start). */
export function timedWords(segments: Segment[], ls: Lane[]): TimedWord[][] {
  return ls.map((lane) => {
    const out: TimedWord[] = [];
    for (const turn of lane.turns) {
      (segments[turn.segment].words ?? []).forEach((w, word) => out.push({ start: w.start, end: w.end, segment: turn.segment, word }));
    }
    return out.sort((a, b) => a.start - b.start);
  });
}

/** The index of the word being spoken at t in words (sorted by start), found by binary search; -1 between words. */
export function activeWord(words: Span[], t: number): number {
  let lo = 0;
  let hi = words.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (words[mid].start <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && t < words[found].end ? found : -1;
}

/** Keeps a time on the call: 0 to duration (a duration not known yet bounds nothing above). */
export function clampTime(t: number, duration: number): number {
  const upper = duration > 0 ? duration : Infinity;
  return Math.min(Math.max(0, t), upper);
}

/** The time the review opens at: the route's t within the call, or 0 without one. */
export function startTime(t: number | null | undefined, duration: number): number {
  return t === null || t === undefined || !Number.isFinite(t) ? 0 : clampTime(t, duration);
}

/** Seconds an arrow key moves the play head; Page Up and Page Down move six times as far. */
export const keyStepSeconds = 5;

/** Where a key pressed on the timeline seeks to from now; null for a key that does not seek. */
export function keySeek(key: string, now: number, duration: number): number | null {
  switch (key) {
    case "ArrowRight":
    case "ArrowUp":
      return clampTime(now + keyStepSeconds, duration);
    case "ArrowLeft":
    case "ArrowDown":
      return clampTime(now - keyStepSeconds, duration);
    case "PageUp":
      return clampTime(now + 6 * keyStepSeconds, duration);
    case "PageDown":
      return clampTime(now - 6 * keyStepSeconds, duration);
    case "Home":
      return 0;
    case "End":
      return duration > 0 ? duration : null;
  }
  return null;
}

/** The time under a point of the timeline: x from the track's left edge, width its width. */
export function timeAt(x: number, width: number, duration: number): number {
  if (width <= 0 || duration <= 0) return 0;
  return clampTime((x / width) * duration, duration);
}

/** The call's length for drawing: the result's duration, else the end of the last talk. */
export function timelineLength(duration: number, ls: Lane[]): number {
  const lastTalk = Math.max(0, ...ls.flatMap((l) => l.talk.map((s) => s.end)));
  return Math.max(duration, lastTalk);
}

/** Tick marks for an axis of length seconds: a round step giving at most about max ticks. */
export function ticks(length: number, max = 6): number[] {
  if (length <= 0) return [0];
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
  const step = steps.find((s) => length / s <= max) ?? Math.ceil(length / max / 3600) * 3600;
  const out: number[] = [];
  for (let t = 0; t <= length + 1e-9; t += step) out.push(t);
  return out;
}
