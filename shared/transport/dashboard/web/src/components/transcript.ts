import type { Segment, Word } from "../api/types";
import { el } from "../dom";
import { clock, speakerClass } from "../format";
import { activeWord, lanes, lowConfidence, spoken, timedWords } from "../timeline";
import { Playback, reducedMotion } from "./playback";

function wordView(w: Word, playback: Playback): HTMLElement {
  const low = w.confidence !== null && w.confidence < lowConfidence;
  const span = el(
    "span",
    { class: low ? "word low" : "word", title: low ? `Low confidence (${w.confidence!.toFixed(2)}): the engine was unsure of this word` : undefined },
    w.text,
    // Said after the word by a screen reader; the underline shows it on screen.
    low ? el("span", { class: "visually-hidden" }, " (low confidence)") : null,
  );
  span.addEventListener("click", (e) => {
    // The word's own time, not its turn's start.
    e.stopPropagation();
    playback.playFrom(w.start);
  });
  return span;
}

/**
 * The transcript as a list of turns: clicking a turn (or Enter, Space on it)
 * plays from it, clicking a word plays from that word; the turn under the play
 * head is marked current and, where the engine gave word times, the word being
 * spoken is highlighted. Words the engine was unsure of are underlined.
 */
export function transcriptView(segments: Segment[], playback: Playback): HTMLElement {
  const list = el("ol", { class: "turns", "aria-label": "Transcript" });
  const items: { li: HTMLLIElement; seg: Segment }[] = [];
  const wordSpans = new Map<number, HTMLElement[]>();
  segments.forEach((seg, index) => {
    if (!spoken(seg)) return;
    const text = el("span", { class: "text" });
    if (seg.words && seg.words.length > 0) {
      const spans = seg.words.map((w) => wordView(w, playback));
      spans.forEach((s, i) => {
        if (i > 0) text.appendChild(document.createTextNode(" "));
        text.appendChild(s);
      });
      wordSpans.set(index, spans);
    } else {
      text.textContent = seg.text;
    }
    const li = el(
      "li",
      { class: "turn " + speakerClass(seg.speaker_alias), tabindex: "0", title: "Play from " + clock(seg.time_start) },
      el("span", { class: "speaker" }, seg.speaker_alias, seg.sentiment ? el("span", { class: "sentiment sent-" + seg.sentiment.label, title: "Sentiment score " + seg.sentiment.score.toFixed(2) }, seg.sentiment.label) : null),
      el("time", {}, clock(seg.time_start)),
      text,
    );
    const seek = () => playback.playFrom(seg.time_start);
    li.addEventListener("click", seek);
    li.addEventListener("keydown", (e) => {
      if (e.target === li && (e.key === "Enter" || e.key === " ")) {
        e.preventDefault();
        seek();
      }
    });
    items.push({ li, seg });
    list.appendChild(li);
  });
  if (items.length === 0) list.appendChild(el("li", { class: "empty" }, "No speech was found in this call."));

  const words = timedWords(segments, lanes(segments));
  let spokenNow: HTMLElement[] = [];
  playback.onTime((t) => {
    let newest: HTMLLIElement | null = null;
    for (const { li, seg } of items) {
      const on = t >= seg.time_start && t < seg.time_end;
      if (on !== li.classList.contains("current")) {
        li.classList.toggle("current", on);
        if (on) li.setAttribute("aria-current", "true");
        else li.removeAttribute("aria-current");
        if (on) newest = li;
      }
    }
    const next: HTMLElement[] = [];
    for (const lane of words) {
      const i = activeWord(lane, t);
      if (i >= 0) next.push(wordSpans.get(lane[i].segment)![lane[i].word]);
    }
    if (next.length !== spokenNow.length || next.some((s, i) => s !== spokenNow[i])) {
      for (const s of spokenNow) s.classList.remove("spoken");
      for (const s of next) s.classList.add("spoken");
      spokenNow = next;
    }
    // Keeps the turn being played in view while the audio plays, scrolling
    // the list only (not the page).
    if (newest && !playback.audio.paused) {
      const top = newest.offsetTop;
      if (top < list.scrollTop || top + newest.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTo({ top: Math.max(0, top - 8), behavior: reducedMotion() ? "auto" : "smooth" });
      }
    }
  });
  return list;
}
