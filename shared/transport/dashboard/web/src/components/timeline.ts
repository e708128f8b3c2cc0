import type { Segment, SegmentSentiment } from "../api/types";
import { el } from "../dom";
import { clock, speakerClass } from "../format";
import { keySeek, keyStepSeconds, Lane, lanes as laneLayout, longSilenceSeconds, overtalk, silences, Span, ticks, timeAt, timelineLength } from "../timeline";
import type { Playback } from "./playback";

const svgNS = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: Node[]): SVGElementTagNameMap[K] {
  const node = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.appendChild(c);
  return node;
}

// The drawing's units: 1000 across (stretched to the track's width), one lane
// laneHeight high, lanes laneGap apart; the HTML lane labels use the same
// heights (style.css, .timeline).
const across = 1000;
const laneHeight = 32;
const laneGap = 6;
const pad = 4;

/** The CSS class of a turn's colour: its sentiment when it has one, else its speaker. */
export function turnClass(alias: string, sentiment: SegmentSentiment | null): string {
  return sentiment ? "sent-" + sentiment.label : speakerClass(alias);
}

/** Seconds with one decimal: 1.5 s. */
export const secs = (s: number): string => s.toFixed(1) + " s";

function sentimentText(s: SegmentSentiment | null): string {
  return s ? `, ${s.label} (${s.score >= 0 ? "+" : ""}${s.score.toFixed(2)})` : "";
}

function legendItem(swatch: string, text: string): HTMLElement {
  return el("li", {}, el("span", { class: "swatch " + swatch, "aria-hidden": "true" }), text);
}

/** What the drawing shows, in words, for screen readers (the slider's description). */
function describe(ls: Lane[], over: Span[], quiet: Span[]): string {
  const parts = ls.map((l) => `${l.alias}: ${l.turns.length} ${l.turns.length === 1 ? "turn" : "turns"}.`);
  if (ls.length > 1) parts.push(over.length === 0 ? "They never talk at once." : `Both talk at once ${over.length} ${over.length === 1 ? "time" : "times"}.`);
  parts.push(quiet.length === 0 ? `No silence of ${longSilenceSeconds} s or more.` : `${quiet.length} ${quiet.length === 1 ? "silence" : "silences"} of ${longSilenceSeconds} s or more.`);
  parts.push(`Arrow keys move ${keyStepSeconds} s, Page Up and Page Down ${6 * keyStepSeconds} s, Home and End to the start and the end.`);
  return parts.join(" ");
}

/**
 * The call as a timeline: a lane per speaker with its turns (coloured by
 * sentiment when the turn has one), overtalk and long silences marked behind
 * them, and the play head. The track is a slider: a click or a drag seeks
 * there, and so do the arrow keys, Page Up/Down, Home and End when it has the
 * focus. Null when nobody talked.
 */
export function timelineView(segments: Segment[], duration: number, playback: Playback): HTMLElement | null {
  const ls = laneLayout(segments, duration);
  if (ls.length === 0) return null;
  const length = timelineLength(duration, ls) || 1;
  const over = overtalk(ls);
  const quiet = silences(ls, length);
  const height = pad * 2 + ls.length * laneHeight + (ls.length - 1) * laneGap;
  const x = (t: number) => (t / length) * across;
  const band = (s: Span, cls: string, what: string) =>
    svg("rect", { class: cls, x: x(s.start), y: 0, width: Math.max(x(s.end) - x(s.start), 1), height }, svg("title", {}, document.createTextNode(`${what} ${clock(s.start)}–${clock(s.end)} (${secs(s.end - s.start)})`)));

  const drawing = svg(
    "svg",
    { viewBox: `0 0 ${across} ${height}`, preserveAspectRatio: "none", height, "aria-hidden": "true", focusable: "false" },
    svg("defs", {}, svg("pattern", { id: "silence-hatch", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, svg("rect", { class: "hatch", width: 3, height: 8 }))),
  );
  ls.forEach((lane, i) => {
    const y = pad + i * (laneHeight + laneGap);
    drawing.appendChild(svg("rect", { class: "lane " + speakerClass(lane.alias), x: 0, y, width: across, height: laneHeight }));
  });
  for (const s of quiet) drawing.appendChild(band(s, "silence", "Silence"));
  ls.forEach((lane, i) => {
    const y = pad + i * (laneHeight + laneGap);
    for (const turn of lane.turns) {
      const w = Math.max(x(turn.end) - x(turn.start), 1.5);
      const rect = svg(
        "rect",
        { class: "turn-span " + turnClass(lane.alias, turn.sentiment), x: x(turn.start), y: y + 3, width: w, height: laneHeight - 6, rx: 2, "data-segment": turn.segment },
        svg("title", {}, document.createTextNode(`${lane.alias} ${clock(turn.start)}–${clock(turn.end)}${sentimentText(turn.sentiment)}`)),
      );
      drawing.appendChild(rect);
    }
  });
  for (const s of over) {
    const mark = band(s, "overtalk", "Both talk");
    mark.setAttribute("vector-effect", "non-scaling-stroke");
    drawing.appendChild(mark);
  }
  // The play head is HTML over the drawing, so its knob keeps its shape at any width.
  const head = el("span", { class: "playhead", "aria-hidden": "true" });

  const summaryId = "timeline-summary";
  const track = el(
    "div",
    {
      class: "track",
      role: "slider",
      tabindex: "0",
      "aria-label": "Call timeline",
      "aria-valuemin": "0",
      "aria-valuemax": String(Math.round(length)),
      "aria-describedby": summaryId,
    },
  );
  track.appendChild(drawing);
  track.appendChild(head);
  const axis = el("div", { class: "axis", "aria-hidden": "true" });
  // Four labels at most: they fit under the track at phone width.
  for (const t of ticks(length, 4)) {
    const mark = el("span", {}, clock(t));
    mark.style.left = (t / length) * 100 + "%";
    axis.appendChild(mark);
  }

  let shownSecond = -1;
  playback.onTime((t) => {
    head.style.left = (Math.min(t, length) / length) * 100 + "%";
    // The slider's value changes once a second, not every frame, so a screen
    // reader on it is not flooded while the call plays.
    const second = Math.floor(t);
    if (second !== shownSecond) {
      shownSecond = second;
      track.setAttribute("aria-valuenow", String(second));
      track.setAttribute("aria-valuetext", `${clock(t)} of ${clock(length)}`);
    }
  });
  const seekTo = (e: PointerEvent) => {
    const box = track.getBoundingClientRect();
    playback.seek(timeAt(e.clientX - box.left, box.width, length));
  };
  track.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    track.setPointerCapture(e.pointerId);
    seekTo(e);
  });
  track.addEventListener("pointermove", (e) => {
    if (track.hasPointerCapture(e.pointerId)) seekTo(e);
  });
  track.addEventListener("keydown", (e) => {
    const to = keySeek(e.key, playback.time(), length);
    if (to === null) return;
    e.preventDefault();
    playback.seek(to);
  });

  const sentiments = ls.flatMap((l) => l.turns.map((t) => t.sentiment));
  const legend = el("ul", { class: "legend", "aria-label": "Timeline legend" });
  if (sentiments.some((s) => s === null)) for (const l of ls) legend.appendChild(legendItem(speakerClass(l.alias), l.alias + " turn"));
  if (sentiments.some((s) => s !== null)) {
    legend.appendChild(legendItem("sent-positive", "Positive"));
    legend.appendChild(legendItem("sent-neutral", "Neutral"));
    legend.appendChild(legendItem("sent-negative", "Negative"));
  }
  if (ls.length > 1) legend.appendChild(legendItem("overtalk", "Both talk"));
  legend.appendChild(legendItem("silence", `Silence ≥ ${longSilenceSeconds} s`));

  return el(
    "div",
    { class: "timeline" },
    el(
      "div",
      { class: "timeline-grid" },
      el("div", { class: "lane-labels", "aria-hidden": "true" }, ...ls.map((l) => el("span", { class: speakerClass(l.alias) }, l.alias))),
      track,
      axis,
    ),
    el("p", { id: summaryId, class: "visually-hidden" }, describe(ls, over, quiet)),
    legend,
  );
}
