import * as api from "../api/client";
import type { DeliveryAttempt } from "../api/types";
import { errorBox, statusRegion } from "./errorBox";
import { dataTable, emptyRow } from "./table";
import { el, replace } from "../dom";

const columns = ["Attempt", "Sent", "To", "Answer", "Outcome", "Next attempt"];

/** A time to the second: retries come seconds to minutes apart. */
function at(iso: string): HTMLElement {
  const d = new Date(iso);
  return el("time", { datetime: iso, title: iso }, d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" }));
}

/** What the receiver answered: its status code, else the transport error. */
function answer(d: DeliveryAttempt): HTMLElement {
  if (d.status_code) return el("span", { class: "mono", title: d.error ?? "" }, String(d.status_code));
  return el("span", { class: "error small" }, d.error ?? "no answer");
}

/** The attempt's outcome; a retry that a newer attempt already made reads as done. */
function outcome(d: DeliveryAttempt, newest: boolean): HTMLElement {
  const text = { delivered: "Delivered", retrying: newest ? "Will retry" : "Retried", abandoned: "Abandoned" }[d.outcome];
  return el("span", { class: "badge delivery-" + d.outcome }, text);
}

/**
 * The tagDelivered attempts of a tags job, newest first: when each went out,
 * to which host, what came back and what happens next. A Refresh button
 * reads them again, as retries come minutes apart.
 */
export function deliveriesView(jobId: string): HTMLElement {
  const status = statusRegion();
  const tbody = el("tbody");
  const load = async () => {
    try {
      const r = await api.deliveries(jobId);
      replace(tbody);
      for (const [i, d] of r.deliveries.entries()) {
        tbody.appendChild(
          el(
            "tr",
            {},
            el("td", {}, "#" + d.attempt),
            el("td", {}, at(d.at)),
            el("td", {}, el("code", {}, d.host)),
            el("td", {}, answer(d)),
            el("td", {}, outcome(d, i === 0)),
            el("td", {}, d.next_attempt_at ? at(d.next_attempt_at) : "—"),
          ),
        );
      }
      if (r.deliveries.length === 0) tbody.appendChild(emptyRow(columns.length, "No deliveries: the job has no callback URL, or has not finished yet."));
      replace(status);
    } catch (e) {
      replace(status, errorBox(e));
    }
  };
  load();
  return el(
    "section",
    { class: "card deliveries", "aria-labelledby": "deliveries-title" },
    el(
      "div",
      { class: "row spread" },
      el("h2", { id: "deliveries-title" }, "Deliveries"),
      el("button", { type: "button", class: "secondary small", onclick: load }, "Refresh"),
    ),
    el("p", { class: "muted" }, "Each attempt to POST the tags to the job's callback URL, signed with your signing secret (see API keys). Up to 3 attempts, about 0, 1 and 3 minutes apart."),
    status,
    dataTable(columns, tbody, "deliveries-table"),
  );
}
