import * as api from "../api/client";
import type { JobSummary } from "../api/types";
import { errorOf } from "../api/types";
import { statusBadge } from "../components/badge";
import { errorBox, statusRegion } from "../components/errorBox";
import { shell } from "../components/shell";
import { dataTable, emptyRow } from "../components/table";
import { uploadForm } from "../components/uploadForm";
import { append, el, replace } from "../dom";
import { clock, when } from "../format";
import { listPageSize } from "../limits";
import { pollJob } from "../polling";
import { hashOfSearch, searchHits, searchOfHash } from "../components/searchHits";
import { jobHref } from "../router";
import { currentLimits } from "../state";

const columns = ["Call", "Type", "Status", "Language", "Length", "Created"];

/** Where a derived job's row names its source call: "from <file name>", linking to the call; calls not listed (yet) by their id. */
function sourceLink(cell: HTMLElement, j: JobSummary, names: Map<string, string>): void {
  const source = j.source_job_id;
  if (!source) return;
  const name = names.get(source) ?? "call " + source.slice(0, 8);
  append(cell, el("div", { class: "source small" }, el("a", { href: "#/calls/" + source }, "from " + name)));
}

/** A job's row, and under a search hit a row of its matching lines. */
function jobRows(j: JobSummary, names: Map<string, string>, query: string): HTMLTableRowElement[] {
  const row = jobRow(j, names);
  if (!j.matches?.length) return [row];
  row.classList.add("hit");
  return [row, el("tr", { class: "hit-lines" }, el("td", { colspan: String(columns.length) }, searchHits(j, query)))];
}

/** A job's row; a job still running updates its status cell until it finishes. names maps the listed calls' ids to their file names. */
function jobRow(j: JobSummary, names: Map<string, string>): HTMLTableRowElement {
  const status = el("td", {}, statusBadge(j.status));
  const first = el("td", {}, el("a", { href: jobHref(j.type, j.job_id) }, j.original_filename ?? (j.type === "transcription" ? "(two-step upload)" : j.type + " job")));
  if (j.type !== "transcription") sourceLink(first, j, names);
  const row = el(
    "tr",
    {},
    first,
    el("td", {}, j.type),
    status,
    el("td", {}, j.language ?? "—"),
    el("td", { class: "num" }, j.type === "transcription" ? clock(j.audio_seconds) : "—"),
    el("td", {}, when(j.created_at)),
  );
  if (j.status === "queued" || j.status === "processing") {
    pollJob(j.job_id, (full) => {
      replace(status, statusBadge(full.status));
      const error = errorOf(full);
      if (error) append(status, el("div", { class: "error small" }, error.code + ": " + error.message));
    });
  }
  return row;
}

function options(values: string[], any: string): HTMLOptionElement[] {
  return values.map((v) => el("option", { value: v }, v || any));
}

/** The calls list: the upload form, a search across calls (kept in the route, #/?q=...), filters, and the jobs page by page. */
export function callsPage(): HTMLElement {
  const tbody = el("tbody");
  const status = statusRegion();
  const more = el("button", { type: "button", class: "secondary", hidden: true }, "Load more");
  const fStatus = el("select", { id: "f-status" }, ...options(["", "queued", "processing", "succeeded", "failed"], "Any status"));
  const fType = el("select", { id: "f-type" }, ...options(["", "transcription", "summary", "tags"], "Any type"));
  const fLang = el("input", { id: "f-language", type: "text", placeholder: "en", size: "6" });
  const fAfter = el("input", { id: "f-after", type: "datetime-local" });
  const initial = searchOfHash(location.hash);
  const fQ = el("input", { id: "f-q", type: "search", placeholder: 'refund "card number"', maxlength: "200", size: "28", value: initial.q });
  const fSpeaker = el("select", { id: "f-speaker" }, ...options(["", "Agent", "User"], "Either speaker"));
  fSpeaker.value = initial.speaker;
  let cursor: string | null = null;
  const names = new Map<string, string>();
  const filter = (): api.JobFilter => ({
    status: fStatus.value,
    type: fType.value,
    language: fLang.value.trim(),
    created_after: fAfter.value ? new Date(fAfter.value).toISOString() : "",
    q: fQ.value.trim(),
    speaker: fQ.value.trim() ? fSpeaker.value : "",
  });
  const load = async (reset: boolean) => {
    if (reset) {
      cursor = null;
      replace(tbody);
    }
    replace(status);
    try {
      // A page may come back short, even empty, with a next_cursor: on AWS the
      // server bounds how many jobs one request reads for a combination of
      // filters. Fetch on (a few requests at most) until something shows.
      let shown = 0;
      for (let requests = 0; ; requests++) {
        const page = await api.listJobs(filter(), cursor, listPageSize(currentLimits()));
        for (const j of page.transcriptions) if (j.type === "transcription" && j.original_filename) names.set(j.job_id, j.original_filename);
        for (const j of page.transcriptions) for (const row of jobRows(j, names, fQ.value)) tbody.appendChild(row);
        shown += page.transcriptions.length;
        cursor = page.next_cursor;
        if (shown > 0 || !cursor || requests >= 4) break;
      }
      if (reset && shown === 0) {
        const none = fQ.value.trim() ? "No calls say that." : "No calls yet. Upload one above.";
        tbody.appendChild(emptyRow(columns.length, cursor ? "No matching calls among the most recent ones; More searches older calls." : none));
      }
      more.hidden = !cursor;
    } catch (e) {
      replace(status, errorBox(e));
    }
  };
  more.addEventListener("click", () => load(false));
  const filters = el(
    "form",
    {
      class: "filters",
      onsubmit: (e: Event) => {
        e.preventDefault();
        // The search goes into the route (a reload or a shared link keeps
        // it) without rendering the page again, which would reset the filters.
        const hash = hashOfSearch({ q: fQ.value, speaker: fSpeaker.value });
        if (hash !== (location.hash || "#/")) history.pushState(null, "", hash);
        load(true);
      },
    },
    el("div", { class: "search" }, el("label", { for: "f-q" }, "Search calls"), fQ),
    el("div", {}, el("label", { for: "f-speaker" }, "Said by"), fSpeaker),
    el("div", {}, el("label", { for: "f-status" }, "Status"), fStatus),
    el("div", {}, el("label", { for: "f-type" }, "Type"), fType),
    el("div", {}, el("label", { for: "f-language" }, "Language"), fLang),
    el("div", {}, el("label", { for: "f-after" }, "Created after"), fAfter),
    el("button", { type: "submit", class: "secondary" }, "Filter"),
  );
  load(true);
  return shell("#/", el("h1", {}, "Calls"), uploadForm(() => load(true)), el("section", { class: "card" }, filters, status, dataTable(columns, tbody, "calls-table"), more));
}
