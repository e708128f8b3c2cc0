import * as api from "../api/client";
import type { Job, JobSummary } from "../api/types";
import { errorOf, metadataOf, transcriptionOf } from "../api/types";
import { statusBadge } from "../components/badge";
import { derivedView } from "../components/derivedView";
import { alertText, errorBox, statusRegion } from "../components/errorBox";
import { backToCalls, shell } from "../components/shell";
import { metricsPanel, sentimentView } from "../components/metrics";
import { Playback } from "../components/playback";
import { timelineView } from "../components/timeline";
import { transcriptView } from "../components/transcript";
import { append, el, replace } from "../dom";
import { clock, metadataValue, since, when } from "../format";
import { listPageSize } from "../limits";
import { finished, pollJob } from "../polling";
import { go } from "../router";
import { currentLimits, derivedJobs, onLeave, rememberDerived, setFlash } from "../state";
import { lanes, lowConfidence, startTime, timelineLength } from "../timeline";
import { callbackUrlProblem } from "../validate";
import { derivedPage } from "./derived";

/** Adds a derived job's view to the panel, polling it while it runs; a job that cannot be read is left out. */
function showDerived(panel: HTMLElement, id: string, known?: Job): void {
  const slot = el("div");
  panel.appendChild(slot);
  const update = (j: Job) => replace(slot, derivedView(j));
  const shown = (j: Job) => {
    update(j);
    if (!finished(j.status)) pollJob(id, update);
  };
  if (known) shown(known);
  else api.getJob(id).then(shown, () => slot.remove());
}

/**
 * The summaries and tags made from a call, wherever they were made (the API,
 * the CLI, another browser): the service lists them by source_job_id, newest
 * first, a few pages at most. shown holds the ids already on screen (made in
 * this browser); each job is read when its view is drawn.
 */
async function loadDerivedFromService(panel: HTMLElement, callId: string, shown: Set<string>): Promise<void> {
  let cursor: string | null = null;
  for (let requests = 0; requests < 3; requests++) {
    const page = await api.listJobsFrom(callId, cursor, listPageSize(currentLimits()));
    for (const entry of page.transcriptions) {
      if (entry.source_job_id !== callId || shown.has(entry.job_id)) continue;
      shown.add(entry.job_id);
      showDerived(panel, entry.job_id);
    }
    cursor = page.next_cursor;
    if (!cursor) return;
  }
}

/** The review's heading: the file name, then its length, language, upload time and status, its metadata, and while it runs how long it has been running (updated each second). */
function reviewHeader(header: HTMLElement, j: Job, entry: JobSummary | null): () => void {
  const facts: (string | Node)[] = [];
  if (entry && entry.audio_seconds > 0) facts.push(el("span", { "aria-label": "Length " + clock(entry.audio_seconds) }, clock(entry.audio_seconds)));
  if (entry?.language) facts.push(entry.language);
  facts.push("Uploaded " + when(j.created_at));
  const line = el("p", { class: "muted facts" });
  facts.forEach((f, i) => append(line, i > 0 ? " · " : null, f));
  append(line, " ", statusBadge(j.status));
  let timer: ReturnType<typeof setInterval> | undefined;
  if (!finished(j.status)) {
    const elapsed = el("span", { class: "elapsed" });
    const tick = () => (elapsed.textContent = "Processing for " + since(j.created_at, Date.now()));
    tick();
    timer = setInterval(tick, 1000);
    append(line, " ", elapsed);
  }
  const meta = metadataOf(j);
  const metaList =
    meta && Object.keys(meta).length > 0
      ? el("dl", { class: "metadata", "aria-label": "Metadata" }, ...Object.entries(meta).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, metadataValue(v))]))
      : null;
  replace(header, el("h1", { class: "filename" }, entry?.original_filename || "Call review"), line, metaList);
  return () => clearInterval(timer);
}

function downloadButton(id: string, format: string, status: HTMLElement): HTMLElement {
  return el(
    "button",
    {
      type: "button",
      class: "secondary small",
      onclick: async () => {
        try {
          const blob = await api.exportFile(id, format);
          const a = el("a", { href: URL.createObjectURL(blob), download: id + "." + format });
          document.body.appendChild(a);
          a.click();
          a.remove();
          setTimeout(() => URL.revokeObjectURL(a.href), 1000);
        } catch (e) {
          replace(status, errorBox(e));
        }
      },
    },
    format.toUpperCase(),
  );
}

/**
 * A job's page: a transcription's review (player, timeline and metrics,
 * transcript, insights, downloads, delete), or a derived job's page. at is the
 * time the call's audio opens at (the route's t), null for the start.
 */
export async function reviewPage(id: string, at: number | null = null): Promise<HTMLElement> {
  const status = statusRegion();
  let job: Job;
  let entry: JobSummary | null;
  try {
    // The list entry carries the file name and length; the page shows without them if it cannot be read.
    [job, entry] = await Promise.all([api.getJob(id), api.jobEntry(id).catch(() => null)]);
  } catch (e) {
    return shell("#/", backToCalls(), errorBox(e));
  }
  if (job.type !== "transcription") return derivedPage(job);
  const body = el("div", { class: "review" });
  const header = el("div", { class: "review-head" });
  let stopClock = () => {};
  onLeave(() => stopClock());
  const fill = (j: Job) => {
    stopClock();
    stopClock = reviewHeader(header, j, entry);
  };
  fill(job);
  const page = shell("#/", backToCalls(), header, status, body);
  const build = async (j: Job) => {
    fill(j);
    replace(body);
    replace(status);
    if (j.status === "failed") {
      append(body, el("div", { class: "card" }, el("h2", {}, "This call could not be transcribed"), el("p", { class: "error" }, (errorOf(j)?.code ?? "") + ": " + (errorOf(j)?.message ?? ""))));
    } else if (j.status !== "succeeded") {
      append(body, el("div", { class: "card" }, el("p", { class: "muted" }, "Transcribing… this page updates by itself.")));
      pollJob(j.job_id, (n) => {
        if (finished(n.status)) build(n);
      });
    }
    const audio = el("audio", { controls: true, preload: "metadata", "aria-label": "Call audio player" });
    api.audioLink(j.job_id).then(
      (l) => (audio.src = l.url),
      (e) => replace(status, errorBox(e)),
    );
    const result = transcriptionOf(j);
    const duration = result?.duration_seconds ?? 0;
    const playback = new Playback(audio, duration);
    if (at !== null) playback.seek(startTime(at, duration));
    const derivedPanel = el("div", { class: "derived-list" });
    const shown = new Set<string>();
    const made = (jobId: string) => {
      rememberDerived(j.job_id, jobId);
      shown.add(jobId);
      showDerived(derivedPanel, jobId);
    };
    const ready = j.status === "succeeded";
    const summarize = el(
      "button",
      {
        type: "button",
        class: "primary",
        disabled: !ready,
        onclick: async () => {
          replace(status);
          try {
            made((await api.summarize(j.job_id)).job_id);
          } catch (e) {
            replace(status, errorBox(e));
          }
        },
      },
      "Summarize",
    );
    const callbackUrl = el("input", { id: "callback-url", type: "url", inputmode: "url", placeholder: "https://example.com/hook", autocomplete: "off", disabled: !ready });
    const tagForm = el(
      "form",
      {
        class: "tag-form",
        novalidate: true,
        onsubmit: async (e: Event) => {
          e.preventDefault();
          replace(status);
          const url = callbackUrl.value.trim();
          const problem = url ? callbackUrlProblem(url) : null;
          if (problem) {
            callbackUrl.setAttribute("aria-invalid", "true");
            replace(status, alertText(problem));
            callbackUrl.focus();
            return;
          }
          callbackUrl.removeAttribute("aria-invalid");
          try {
            made((await api.tag(j.job_id, url || undefined)).job_id);
            callbackUrl.value = "";
          } catch (err) {
            replace(status, errorBox(err));
          }
        },
      },
      el("label", { for: "callback-url" }, "Callback URL for tags (optional)"),
      callbackUrl,
      el("p", { class: "hint" }, "The service POSTs the tags there when they are ready."),
      el("button", { type: "submit", class: "primary", disabled: !ready }, "Tag"),
    );
    const downloads = el("div", { class: "downloads" }, el("span", { class: "muted" }, "Download:"), ...["txt", "srt", "vtt", "json"].map((f) => downloadButton(j.job_id, f, status)));
    const del = el(
      "button",
      {
        type: "button",
        class: "danger",
        onclick: async () => {
          if (!confirm("Delete this call? Its audio is removed at once and cannot be recovered.")) return;
          try {
            await api.deleteJob(j.job_id);
            setFlash("");
            go("#/");
          } catch (e) {
            replace(status, errorBox(e));
          }
        },
      },
      "Delete",
    );
    const segments = result?.transcript ?? [];
    const timeline = result ? timelineView(segments, duration, playback) : null;
    const metrics = result ? metricsPanel(result.metrics) : null;
    const sentiment = timeline && result ? sentimentView(result.sentiment, timelineLength(duration, lanes(segments, duration))) : null;
    const unsure = segments.some((s) => s.words?.some((w) => w.confidence !== null && w.confidence < lowConfidence));
    append(
      body,
      el(
        "section",
        { class: "card call-view", "aria-label": "Call audio and timeline" },
        el("div", { class: "player" }, audio),
        timeline || metrics ? el("div", { class: "timeline-layout" }, timeline ? el("div", { class: "timeline-col" }, el("h2", {}, "Timeline"), timeline, sentiment) : null, metrics) : null,
      ),
      el(
        "div",
        { class: "columns" },
        el(
          "section",
          { class: "card main-col" },
          ready ? el("h2", {}, "Transcript") : el("p", { class: "muted" }, "The transcript shows here when the call is transcribed."),
          ready && unsure ? el("p", { class: "hint" }, el("span", { class: "word low" }, "Underlined"), ` words: the engine's confidence is below ${lowConfidence}. Click a word to play from it.`) : null,
          ready ? transcriptView(segments, playback) : null,
        ),
        el("aside", { class: "card side-col", "aria-label": "Insights" }, el("h2", {}, "Insights"), el("div", { class: "actions" }, summarize), tagForm, derivedPanel, ready ? downloads : null, el("hr"), del),
      ),
    );
    for (const d of derivedJobs(j.job_id)) {
      shown.add(d);
      showDerived(derivedPanel, d);
    }
    if (ready) loadDerivedFromService(derivedPanel, j.job_id, shown).catch((e) => replace(status, errorBox(e)));
  };
  build(job);
  return page;
}
