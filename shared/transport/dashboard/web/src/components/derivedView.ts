import type { Job } from "../api/types";
import { summaryOf, tagsOf } from "../api/types";
import { append, el } from "../dom";
import { label } from "../format";
import { statusBadge } from "./badge";

/** A summary or tags job: its status, then its result, its error, or a note that it is still running. */
export function derivedView(j: Job): HTMLElement {
  const box = el("div", { class: "derived", "data-type": j.type });
  append(box, el("h3", {}, j.type === "summary" ? "Summary" : "Tags", " ", statusBadge(j.status)));
  if (j.status === "failed" && j.error) append(box, el("p", { class: "error" }, j.error.code + ": " + j.error.message));
  if (j.status !== "succeeded" || !j.result) {
    if (j.status !== "failed") append(box, el("p", { class: "muted" }, "Working on it…"));
    return box;
  }
  const summary = summaryOf(j);
  if (summary) {
    if (summary.topic) append(box, el("p", { class: "topic" }, summary.topic));
    append(box, el("p", {}, summary.summary));
    return box;
  }
  const dl = el("dl", { class: "tags" });
  for (const [category, values] of Object.entries(tagsOf(j)?.tags ?? {})) {
    append(dl, el("dt", {}, label(category)), el("dd", {}, ...(values ?? []).map((v) => el("span", { class: "chip" }, label(v)))));
  }
  append(box, dl);
  return box;
}
