import * as api from "../api/client";
import type { Job } from "../api/types";
import { errorOf, transcriptOf } from "../api/types";
import { statusBadge } from "../components/badge";
import { derivedView } from "../components/derivedView";
import { errorBox, statusRegion } from "../components/errorBox";
import { backToCalls, shell } from "../components/shell";
import { transcriptView } from "../components/transcript";
import { append, el, replace } from "../dom";
import { when } from "../format";
import { pollJob } from "../polling";
import { go } from "../router";
import { derivedJobs, rememberDerived, setFlash } from "../state";
import { derivedPage } from "./derived";

/** Adds a derived job's view to the panel, polling it while it runs; a job that cannot be read is left out. */
function showDerived(panel: HTMLElement, id: string): void {
  const slot = el("div");
  panel.appendChild(slot);
  const update = (j: Job) => replace(slot, derivedView(j));
  api.getJob(id).then(
    (j) => {
      update(j);
      if (j.status === "queued" || j.status === "processing") pollJob(id, update);
    },
    () => slot.remove(),
  );
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

/** A job's page: a transcription's review (player, transcript, insights, downloads, delete), or a derived job's page. */
export async function reviewPage(id: string): Promise<HTMLElement> {
  const status = statusRegion();
  let job: Job;
  try {
    job = await api.getJob(id);
  } catch (e) {
    return shell("#/", backToCalls(), errorBox(e));
  }
  if (job.type !== "transcription") return derivedPage(job);
  const body = el("div", { class: "review" });
  const header = el("div", { class: "review-head" });
  const fill = (j: Job) => {
    replace(header, el("div", {}, el("h1", {}, "Call review"), el("p", { class: "muted" }, `Uploaded ${when(j.created_at)} · `, statusBadge(j.status))));
  };
  fill(job);
  const page = shell("#/", backToCalls(), header, status, body);
  const build = async (j: Job) => {
    fill(j);
    replace(body);
    if (j.status === "failed") {
      append(body, el("div", { class: "card" }, el("h2", {}, "This call could not be transcribed"), el("p", { class: "error" }, (errorOf(j)?.code ?? "") + ": " + (errorOf(j)?.message ?? ""))));
    } else if (j.status !== "succeeded") {
      append(body, el("div", { class: "card" }, el("p", { class: "muted" }, "Transcribing… this page updates by itself.")));
      pollJob(j.job_id, (n) => {
        if (n.status === "succeeded" || n.status === "failed") build(n);
      });
    }
    const audio = el("audio", { controls: true, preload: "metadata", "aria-label": "Call audio player" });
    api.audioLink(j.job_id).then(
      (l) => (audio.src = l.url),
      (e) => replace(status, errorBox(e)),
    );
    const derivedPanel = el("div", { class: "derived-list" });
    const actions = el(
      "div",
      { class: "actions" },
      ...(["summarize", "tag"] as const).map((kind) =>
        el(
          "button",
          {
            type: "button",
            class: "primary",
            disabled: j.status !== "succeeded",
            onclick: async () => {
              try {
                const r = await api.derive(kind, j.job_id);
                rememberDerived(j.job_id, r.job_id);
                showDerived(derivedPanel, r.job_id);
              } catch (e) {
                replace(status, errorBox(e));
              }
            },
          },
          kind === "summarize" ? "Summarize" : "Tag",
        ),
      ),
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
    const succeeded = j.status === "succeeded";
    append(
      body,
      el(
        "div",
        { class: "columns" },
        el(
          "section",
          { class: "card main-col" },
          el("div", { class: "player" }, audio),
          succeeded ? el("h2", {}, "Transcript") : null,
          succeeded ? transcriptView(transcriptOf(j), audio) : null,
        ),
        el("aside", { class: "card side-col" }, el("h2", {}, "Insights"), actions, derivedPanel, succeeded ? downloads : null, el("hr"), del),
      ),
    );
    for (const d of derivedJobs(j.job_id)) showDerived(derivedPanel, d);
  };
  build(job);
  return page;
}
