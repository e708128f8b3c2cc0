import type { CallMetrics, CallSentiment, QuarterSentiment } from "../api/types";
import { el } from "../dom";
import { clock, speakerClass } from "../format";
import { secs } from "./timeline";

/** Speakers in the timeline's order: the Agent's lane first. */
const agentFirst = <S extends { speaker_alias: string }>(speakers: S[]): S[] => [...speakers].sort((a, b) => Number(b.speaker_alias === "Agent") - Number(a.speaker_alias === "Agent"));

const times = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function quarterText(q: QuarterSentiment): string {
  const span = `Quarter ${q.quarter} (${clock(q.time_start)}–${clock(q.time_end)})`;
  return q.label === null || q.score === null ? `${span}: nothing said` : `${span}: ${q.label} (${q.score >= 0 ? "+" : ""}${q.score.toFixed(2)})`;
}

/**
 * Each speaker's sentiment by quarter of the call under the timeline: a row of
 * four coloured cells per speaker, each under the quarter of the timeline it
 * covers (length is the timeline's), then each speaker's label and trend.
 * Null when the result has no sentiment.
 */
export function sentimentView(sentiment: CallSentiment | undefined, length: number): HTMLElement | null {
  if (!sentiment?.speakers.length || length <= 0) return null;
  const rows = el("div", { class: "quarter-grid" });
  const speakers = agentFirst(sentiment.speakers);
  for (const s of speakers) {
    const cells = el("span", { class: "quarters", role: "img", "aria-label": `${s.speaker_alias} by quarter: ` + s.quarters.map((q) => q.label ?? "silent").join(", ") + `; ${s.label} over the call, ${s.trend}` });
    for (const q of s.quarters) {
      const cell = el("span", { class: "cell sent-" + (q.label ?? "none"), title: quarterText(q) });
      cell.style.left = (q.time_start / length) * 100 + "%";
      // 3 px narrower than its quarter: a gap between neighbours.
      cell.style.width = `calc(${((q.time_end - q.time_start) / length) * 100}% - 3px)`;
      cells.appendChild(cell);
    }
    rows.appendChild(el("span", { class: "who " + speakerClass(s.speaker_alias), "aria-hidden": "true" }, s.speaker_alias));
    rows.appendChild(cells);
  }
  const verdicts = el("p", { class: "verdicts muted" });
  speakers.forEach((s, i) => {
    if (i > 0) verdicts.appendChild(document.createTextNode(" · "));
    verdicts.appendChild(el("span", {}, `${s.speaker_alias}: ${s.label}, ${s.trend}`));
  });
  return el("div", { class: "sentiment-view" }, el("h3", {}, "Sentiment by quarter"), rows, verdicts);
}

/**
 * The call's figures beside the timeline (result.metrics): each speaker's talk
 * share as a bar with talk time and pace, interruptions, the Agent's response
 * delay, non-talk and overtalk. Null when the result has no metrics.
 */
export function metricsPanel(metrics: CallMetrics | undefined): HTMLElement | null {
  if (!metrics) return null;
  const panel = el("section", { class: "metrics", "aria-labelledby": "metrics-heading" }, el("h2", { id: "metrics-heading" }, "Talk"));
  const shares = el("ul", { class: "shares" });
  for (const s of agentFirst(metrics.speakers)) {
    const pct = Math.round(s.talk_share * 100);
    const fill = el("span", { class: "fill " + speakerClass(s.speaker_alias) });
    fill.style.width = Math.min(100, Math.max(0, s.talk_share * 100)) + "%";
    shares.appendChild(
      el(
        "li",
        {},
        el("span", { class: "who " + speakerClass(s.speaker_alias) }, s.speaker_alias),
        el("span", { class: "bar", "aria-hidden": "true" }, fill),
        el("span", { class: "pct" }, pct + "%", el("span", { class: "visually-hidden" }, " of the talk")),
        el("span", { class: "detail muted" }, `${secs(s.talk_seconds)} · ${Math.round(s.words_per_minute)} words/min · ${times(s.turns, "turn", "turns")}`),
      ),
    );
  }
  panel.appendChild(shares);
  const figures: [string, string][] = [];
  if (metrics.speakers.length > 1) figures.push(["Interruptions", agentFirst(metrics.speakers).map((s) => `${s.speaker_alias} ${s.interruptions}`).join(" · ")]);
  figures.push(["Agent response", metrics.agent_median_response_seconds === null ? "none measured" : secs(metrics.agent_median_response_seconds) + " median"]);
  figures.push(["Non-talk", `${secs(metrics.non_talk_seconds)} (longest ${secs(metrics.longest_silence_seconds)})`]);
  if (metrics.speakers.length > 1) figures.push(["Overtalk", metrics.overtalk_count === 0 ? "none" : `${secs(metrics.overtalk_seconds)}, ${times(metrics.overtalk_count, "time", "times")}`]);
  panel.appendChild(el("dl", { class: "figures" }, ...figures.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])));
  return panel;
}
