import type { Job } from "../api/types";
import { errorOf, summaryOf, tagsOf } from "../api/types";
import { append, el } from "../dom";
import { label } from "../format";
import { statusBadge } from "./badge";

/**
 * A summary or tags job: its status, then its result, its error, or a note
 * that it is still running. Shown anywhere but its own page (linkToPage), a
 * tags job links to that page, where its callback deliveries are listed.
 */
export function derivedView(j: Job, linkToPage = true): HTMLElement {
  const box = el("div", { class: "derived", "data-type": j.type });
  append(box, el("h3", {}, j.type === "summary" ? "Summary" : "Tags", " ", statusBadge(j.status)));
  if (linkToPage && j.type === "tags") append(box, el("p", { class: "small" }, el("a", { href: "#/jobs/" + j.job_id }, "Callback deliveries")));
  const error = errorOf(j);
  if (error) append(box, el("p", { class: "error" }, error.code + ": " + error.message));
  const summary = summaryOf(j);
  const tags = tagsOf(j);
  if (!summary && !tags) {
    if (j.status !== "failed") append(box, el("p", { class: "muted" }, "Working on it…"));
    return box;
  }
  if (summary) {
    if (summary.topic) append(box, el("p", { class: "topic" }, summary.topic));
    append(box, el("p", {}, summary.summary));
    return box;
  }
  const dl = el("dl", { class: "tags" });
  for (const [category, values] of Object.entries(tags?.tags ?? {})) {
    append(dl, el("dt", {}, label(category)), el("dd", {}, ...(values ?? []).map((v) => el("span", { class: "chip" }, label(v)))));
  }
  append(box, dl);
  return box;
}
