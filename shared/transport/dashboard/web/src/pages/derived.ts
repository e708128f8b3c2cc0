import type { Job } from "../api/types";
import { sourceOf } from "../api/types";
import { deliveriesView } from "../components/deliveries";
import { derivedView } from "../components/derivedView";
import { statusRegion } from "../components/errorBox";
import { backToCalls, shell } from "../components/shell";
import { el, replace } from "../dom";
import { pollJob } from "../polling";

/** A summary or tags job on its own page, with a link to the call it was made from; a tags job also lists its callback's deliveries. */
export function derivedPage(j: Job): HTMLElement {
  const status = statusRegion();
  const view = el("div");
  replace(view, derivedView(j, false));
  if (j.status === "queued" || j.status === "processing") pollJob(j.job_id, (n) => replace(view, derivedView(n, false)));
  const source = sourceOf(j);
  return shell(
    "#/",
    backToCalls(),
    el("h1", {}, j.type === "summary" ? "Summary job" : "Tags job"),
    status,
    el(
      "section",
      { class: "card" },
      view,
      source
        ? el("p", {}, "Made from ", el("a", { href: "#/calls/" + source }, "its source call"), ".")
        : el("p", { class: "muted" }, "Made from text sent to the API."),
    ),
    j.type === "tags" ? deliveriesView(j.job_id) : null,
  );
}
