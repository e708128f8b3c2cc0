import type { Segment } from "../api/types";
import { el } from "../dom";
import { clock, speakerClass } from "../format";

/** The transcript as a list of turns: clicking a turn (or Enter, Space) plays from it; the turn under the playhead is marked current. */
export function transcriptView(segments: Segment[], audio: HTMLAudioElement): HTMLElement {
  const list = el("ol", { class: "turns", "aria-label": "Transcript" });
  const items: { li: HTMLLIElement; seg: Segment }[] = [];
  for (const seg of segments) {
    if (!seg.text.trim()) continue;
    const li = el(
      "li",
      { class: "turn " + speakerClass(seg.speaker_alias), tabindex: "0", title: "Play from " + clock(seg.time_start) },
      el("span", { class: "speaker" }, seg.speaker_alias),
      el("time", {}, clock(seg.time_start)),
      el("span", { class: "text" }, seg.text),
    );
    const seek = () => {
      audio.currentTime = seg.time_start;
      audio.play().catch(() => {});
    };
    li.addEventListener("click", seek);
    li.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        seek();
      }
    });
    items.push({ li, seg });
    list.appendChild(li);
  }
  if (items.length === 0) list.appendChild(el("li", { class: "empty" }, "No speech was found in this call."));
  audio.addEventListener("timeupdate", () => {
    const t = audio.currentTime;
    for (const { li, seg } of items) {
      const on = t >= seg.time_start && t < seg.time_end;
      li.classList.toggle("current", on);
      if (on) li.setAttribute("aria-current", "true");
      else li.removeAttribute("aria-current");
    }
  });
  return list;
}
