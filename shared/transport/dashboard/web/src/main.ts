import * as api from "./api";
import { ApiError, Job, JobSummary, Limits, Segment } from "./api";
import { append, bytes, clock, el, replace, speakerClass, statusBadge, when } from "./dom";

// Routes live in the fragment (#/calls/<id>), so the server has one page to
// serve and every /dashboard/... path stays an API route.

const root = document.getElementById("app")!;
let flash = "";
let limitsCache: Limits | null = null;
const stopPolling: (() => void)[] = [];

api.whenSessionLost(() => {
  flash = "Your session has expired. Sign in again.";
  go("#/signin");
});

function go(hash: string): void {
  if (location.hash === hash) render();
  else location.hash = hash;
}

async function getLimits(): Promise<Limits> {
  limitsCache ??= await api.limits();
  return limitsCache;
}

/** A readable sentence for an error of the service, with what it needs. */
function describe(e: unknown): string {
  if (!(e instanceof ApiError)) return "Something went wrong: " + String(e);
  const d = e.details ?? {};
  switch (e.code) {
    case "UNSUPPORTED_AUDIO_FORMAT":
      return "This file is not MP3 or WAV audio. Upload an MP3 or WAV recording.";
    case "FILE_TOO_LARGE":
      return "The file is larger than the 10 MB limit.";
    case "AUDIO_DURATION_UNKNOWN":
      return "The length of this recording cannot be read; the file may be damaged.";
    case "QUOTA_EXCEEDED":
      return `This upload (${d["file_minutes"]} min) would exceed your monthly quota: ${d["used_minutes"]} of ${d["limit_minutes"]} minutes used.`;
    case "NETWORK_ERROR":
      return e.message;
  }
  return e.message + (e.requestId ? ` (request ${e.requestId})` : "");
}

function errorBox(e: unknown): HTMLElement {
  const code = e instanceof ApiError ? e.code : "";
  return el("p", { class: "error", role: "alert" }, code ? el("strong", {}, code + ": ") : null, describe(e));
}

function shell(active: string, ...content: (Node | null)[]): HTMLElement {
  const nav = (hash: string, label: string) =>
    el("a", { href: hash, class: active === hash ? "active" : undefined, "aria-current": active === hash ? "page" : undefined }, label);
  return el(
    "div",
    { class: "shell" },
    el(
      "header",
      { class: "topbar" },
      el("a", { href: "#/", class: "brand" }, el("span", { class: "logo", "aria-hidden": "true" }, "◉"), "callscribe"),
      el("nav", { "aria-label": "Main" }, nav("#/", "Calls"), nav("#/keys", "API keys"), nav("#/usage", "Usage")),
      el(
        "button",
        {
          class: "ghost",
          onclick: () => {
            api.signOut();
            flash = "You are signed out.";
            go("#/signin");
          },
        },
        "Sign out",
      ),
    ),
    el("main", { class: "content" }, ...content),
  );
}

// ---- Sign in / sign up ----------------------------------------------------

function signInPage(): HTMLElement {
  const email = el("input", { id: "email", type: "email", autocomplete: "username", required: true });
  const password = el("input", { id: "password", type: "password", autocomplete: "current-password", required: true, minlength: "10" });
  const status = el("div", { "aria-live": "polite" });
  const confirmBox = el("div");
  if (flash) {
    append(status, el("p", { class: "notice", role: "status" }, flash));
    flash = "";
  }
  const submit = async (mode: "in" | "up") => {
    replace(status);
    try {
      if (mode === "up" && (await api.signUp(email.value, password.value))) {
        // A Cognito pool that verifies email: the code comes by mail.
        const code = el("input", { id: "code", type: "text", inputmode: "numeric", autocomplete: "one-time-code" });
        replace(
          confirmBox,
          el("label", { for: "code" }, "Confirmation code"),
          code,
          el("p", { class: "hint" }, "We sent a code to " + email.value + "."),
          el(
            "button",
            {
              type: "button",
              class: "primary",
              onclick: async () => {
                try {
                  await api.confirmSignUp(email.value, code.value.trim());
                  await api.signIn(email.value, password.value);
                  go("#/");
                } catch (e) {
                  replace(status, errorBox(e));
                }
              },
            },
            "Confirm",
          ),
        );
        return;
      }
      await api.signIn(email.value, password.value);
      go("#/");
    } catch (e) {
      replace(status, errorBox(e));
    }
  };
  const form = el(
    "form",
    {
      class: "card auth",
      onsubmit: (e: Event) => {
        e.preventDefault();
        submit("in");
      },
    },
    el("h1", {}, "Sign in to callscribe"),
    el("p", { class: "muted" }, "Transcripts, summaries and tags for your calls."),
    el("label", { for: "email" }, "Email"),
    email,
    el("label", { for: "password" }, "Password"),
    password,
    el("p", { class: "hint" }, "At least 10 characters."),
    confirmBox,
    status,
    el(
      "div",
      { class: "actions" },
      el("button", { type: "submit", class: "primary" }, "Sign in"),
      el("button", { type: "button", class: "secondary", onclick: () => submit("up") }, "Sign up"),
    ),
  );
  return el("div", { class: "auth-page" }, form);
}

// ---- Calls ------------------------------------------------------------------

function pollJob(id: string, onUpdate: (j: Job) => void): void {
  let delay = 1000;
  let stopped = false;
  stopPolling.push(() => (stopped = true));
  const tick = async () => {
    if (stopped) return;
    try {
      const j = await api.getJob(id);
      onUpdate(j);
      if (j.status === "succeeded" || j.status === "failed") return;
    } catch (e) {
      if (e instanceof ApiError && (e.status === 401 || e.status === 404)) return;
    }
    delay = Math.min(delay * 1.5, 15000);
    setTimeout(tick, delay);
  };
  setTimeout(tick, delay);
}

function jobRow(j: JobSummary): HTMLTableRowElement {
  const href = j.type === "transcription" ? "#/calls/" + j.job_id : "#/jobs/" + j.job_id;
  const status = el("td", {}, statusBadge(j.status));
  const row = el(
    "tr",
    {},
    el("td", {}, el("a", { href }, j.original_filename ?? (j.type === "transcription" ? "(two-step upload)" : j.type + " job"))),
    el("td", {}, j.type),
    status,
    el("td", {}, j.language ?? "—"),
    el("td", { class: "num" }, j.type === "transcription" ? clock(j.audio_seconds) : "—"),
    el("td", {}, when(j.created_at)),
  );
  if (j.status === "queued" || j.status === "processing") {
    pollJob(j.job_id, (full) => {
      replace(status, statusBadge(full.status));
      if (full.status === "failed" && full.error) append(status, el("div", { class: "error small" }, full.error.code + ": " + full.error.message));
    });
  }
  return row;
}

function uploadCard(onUploaded: () => void): HTMLElement {
  const file = el("input", { id: "call-audio", type: "file", accept: ".mp3,.wav,audio/mpeg,audio/wav" });
  const language = el("input", { id: "language", type: "text", placeholder: "en", maxlength: "35" });
  const metadata = el("textarea", { id: "metadata", rows: "2", placeholder: '{"crm_id": "42"}' });
  const keyterms = el("textarea", { id: "keyterms", rows: "2", placeholder: "Northwind Energy\nsmart meter" });
  const bar = el("progress", { max: "1", value: "0", hidden: true, "aria-label": "Upload progress" });
  const status = el("div", { "aria-live": "polite" });
  const drop = el(
    "div",
    { class: "drop" },
    el("label", { for: "call-audio" }, "Call audio"),
    file,
    el("p", { class: "hint" }, "MP3 or WAV, up to 10 MB; stereo calls are split into Agent (left) and User (right)."),
  );
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    if (e.dataTransfer?.files.length) file.files = e.dataTransfer.files;
  });
  const button = el("button", { type: "submit", class: "primary" }, "Upload");
  return el(
    "form",
    {
      class: "card upload",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        replace(status);
        const f = file.files?.[0];
        if (!f) {
          replace(status, el("p", { class: "error", role: "alert" }, "Choose an MP3 or WAV file first."));
          return;
        }
        const lim = await getLimits();
        if (f.size > lim.max_audio_bytes) {
          replace(status, el("p", { class: "error", role: "alert" }, `This file is ${bytes(f.size)}; the limit is ${bytes(lim.max_audio_bytes)}.`));
          return;
        }
        button.setAttribute("disabled", "");
        bar.hidden = false;
        bar.value = 0;
        try {
          // One term a line; the service checks the list (INVALID_KEYTERMS).
          const terms = keyterms.value
            .split("\n")
            .map((t) => t.trim())
            .filter((t) => t !== "");
          const r = await api.uploadCall({ file: f, language: language.value.trim(), metadata: metadata.value.trim(), keyterms: terms }, lim, (p) => (bar.value = p));
          replace(status, el("p", { class: "notice", role: "status" }, "Uploaded. ", el("a", { href: "#/calls/" + r.job_id }, "Open the call")));
          file.value = "";
          onUploaded();
        } catch (err) {
          replace(status, errorBox(err));
        } finally {
          button.removeAttribute("disabled");
          bar.hidden = true;
        }
      },
    },
    el("h2", {}, "Upload a call"),
    drop,
    el("div", { class: "row" }, el("div", {}, el("label", { for: "language" }, "Language (optional)"), language), el("div", { class: "grow" }, el("label", { for: "metadata" }, "Metadata JSON (optional)"), metadata)),
    el(
      "div",
      { class: "row" },
      el(
        "div",
        { class: "grow" },
        el("label", { for: "keyterms" }, "Key terms (optional)"),
        keyterms,
        el("p", { class: "hint" }, "One word or phrase a line (names, products, jargon), up to 100; the speech engine favours them for this call."),
      ),
    ),
    bar,
    status,
    el("div", { class: "actions" }, button),
  );
}

function callsPage(): HTMLElement {
  const tbody = el("tbody");
  const status = el("div", { "aria-live": "polite" });
  const more = el("button", { type: "button", class: "secondary", hidden: true }, "Load more");
  const fStatus = el("select", { id: "f-status" }, ...["", "queued", "processing", "succeeded", "failed"].map((v) => el("option", { value: v }, v || "Any status")));
  const fType = el("select", { id: "f-type" }, ...["", "transcription", "summary", "tags"].map((v) => el("option", { value: v }, v || "Any type")));
  const fLang = el("input", { id: "f-language", type: "text", placeholder: "en", size: "6" });
  const fAfter = el("input", { id: "f-after", type: "datetime-local" });
  let cursor: string | null = null;
  const filter = (): api.JobFilter => ({
    status: fStatus.value,
    type: fType.value,
    language: fLang.value.trim(),
    created_after: fAfter.value ? new Date(fAfter.value).toISOString() : "",
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
        const page = await api.listJobs(filter(), cursor);
        for (const j of page.transcriptions) tbody.appendChild(jobRow(j));
        shown += page.transcriptions.length;
        cursor = page.next_cursor;
        if (shown > 0 || !cursor || requests >= 4) break;
      }
      if (reset && shown === 0) {
        const text = cursor ? "No matching calls among the most recent ones; More searches older calls." : "No calls yet. Upload one above.";
        tbody.appendChild(el("tr", {}, el("td", { colspan: "6", class: "empty" }, text)));
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
        load(true);
      },
    },
    el("div", {}, el("label", { for: "f-status" }, "Status"), fStatus),
    el("div", {}, el("label", { for: "f-type" }, "Type"), fType),
    el("div", {}, el("label", { for: "f-language" }, "Language"), fLang),
    el("div", {}, el("label", { for: "f-after" }, "Created after"), fAfter),
    el("button", { type: "submit", class: "secondary" }, "Filter"),
  );
  load(true);
  return shell(
    "#/",
    el("h1", {}, "Calls"),
    uploadCard(() => load(true)),
    el(
      "section",
      { class: "card" },
      filters,
      status,
      el(
        "div",
        { class: "table-wrap" },
        el(
          "table",
          {},
          el("thead", {}, el("tr", {}, ...["Call", "Type", "Status", "Language", "Length", "Created"].map((h) => el("th", { scope: "col" }, h)))),
          tbody,
        ),
      ),
      more,
    ),
  );
}

// ---- Call review -------------------------------------------------------------

const derivedKey = (id: string) => "callscribe.derived." + id;

function rememberDerived(callId: string, jobId: string): void {
  const ids: string[] = JSON.parse(localStorage.getItem(derivedKey(callId)) ?? "[]");
  if (!ids.includes(jobId)) ids.push(jobId);
  localStorage.setItem(derivedKey(callId), JSON.stringify(ids));
}

function derivedView(j: Job): HTMLElement {
  const box = el("div", { class: "derived", "data-type": j.type });
  append(box, el("h3", {}, j.type === "summary" ? "Summary" : "Tags", " ", statusBadge(j.status)));
  if (j.status === "failed" && j.error) append(box, el("p", { class: "error" }, j.error.code + ": " + j.error.message));
  if (j.status !== "succeeded" || !j.result) {
    if (j.status !== "failed") append(box, el("p", { class: "muted" }, "Working on it…"));
    return box;
  }
  if (j.type === "summary") {
    if (j.result.topic) append(box, el("p", { class: "topic" }, j.result.topic));
    append(box, el("p", {}, j.result.summary));
  } else {
    const dl = el("dl", { class: "tags" });
    for (const [category, values] of Object.entries(j.result.tags as Record<string, string[]>)) {
      append(dl, el("dt", {}, category.replace(/_/g, " ")), el("dd", {}, ...values.map((v) => el("span", { class: "chip" }, v.replace(/_/g, " ")))));
    }
    append(box, dl);
  }
  return box;
}

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

function transcriptView(segments: Segment[], audio: HTMLAudioElement): HTMLElement {
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

async function reviewPage(id: string): Promise<HTMLElement> {
  const status = el("div", { "aria-live": "polite" });
  let job: Job;
  try {
    job = await api.getJob(id);
  } catch (e) {
    return shell("#/", el("p", {}, el("a", { href: "#/" }, "← Calls")), errorBox(e));
  }
  if (job.type !== "transcription") return derivedPage(job);
  const body = el("div", { class: "review" });
  const header = el("div", { class: "review-head" });
  const fill = (j: Job) => {
    replace(
      header,
      el("div", {}, el("h1", {}, "Call review"), el("p", { class: "muted" }, `Uploaded ${when(j.created_at)} · `, statusBadge(j.status))),
    );
  };
  fill(job);
  const page = shell("#/", el("p", {}, el("a", { href: "#/" }, "← Calls")), header, status, body);
  const build = async (j: Job) => {
    fill(j);
    replace(body);
    if (j.status === "failed") {
      append(body, el("div", { class: "card" }, el("h2", {}, "This call could not be transcribed"), el("p", { class: "error" }, (j.error?.code ?? "") + ": " + (j.error?.message ?? ""))));
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
            flash = "";
            go("#/");
          } catch (e) {
            replace(status, errorBox(e));
          }
        },
      },
      "Delete",
    );
    const segments: Segment[] = j.status === "succeeded" ? (j.result?.transcript ?? []) : [];
    append(
      body,
      el(
        "div",
        { class: "columns" },
        el(
          "section",
          { class: "card main-col" },
          el("div", { class: "player" }, audio),
          j.status === "succeeded" ? el("h2", {}, "Transcript") : null,
          j.status === "succeeded" ? transcriptView(segments, audio) : null,
        ),
        el(
          "aside",
          { class: "card side-col" },
          el("h2", {}, "Insights"),
          actions,
          derivedPanel,
          j.status === "succeeded" ? downloads : null,
          el("hr"),
          del,
        ),
      ),
    );
    const known: string[] = JSON.parse(localStorage.getItem(derivedKey(j.job_id)) ?? "[]");
    for (const d of known) showDerived(derivedPanel, d);
  };
  build(job);
  return page;
}

function derivedPage(j: Job): HTMLElement {
  const status = el("div", { "aria-live": "polite" });
  const view = el("div");
  replace(view, derivedView(j));
  if (j.status === "queued" || j.status === "processing") pollJob(j.job_id, (n) => replace(view, derivedView(n)));
  return shell(
    "#/",
    el("p", {}, el("a", { href: "#/" }, "← Calls")),
    el("h1", {}, j.type === "summary" ? "Summary job" : "Tags job"),
    status,
    el(
      "section",
      { class: "card" },
      view,
      j.source_job_id
        ? el("p", {}, "Made from ", el("a", { href: "#/calls/" + j.source_job_id }, "its source call"), ".")
        : el("p", { class: "muted" }, "Made from text sent to the API."),
    ),
  );
}

// ---- API keys ------------------------------------------------------------------

function keysPage(): HTMLElement {
  const status = el("div", { "aria-live": "polite" });
  const created = el("div");
  const tbody = el("tbody");
  const load = async () => {
    try {
      const r = await api.listKeys();
      replace(tbody);
      for (const k of r.api_keys) {
        tbody.appendChild(
          el(
            "tr",
            {},
            el("td", {}, el("code", {}, k.prefix + "…")),
            el("td", {}, when(k.created_at)),
            el("td", {}, when(k.last_used_at)),
            el(
              "td",
              {},
              el(
                "button",
                {
                  type: "button",
                  class: "danger small",
                  onclick: async () => {
                    if (!confirm(`Revoke the key ${k.prefix}…? Programs using it stop working at once.`)) return;
                    try {
                      await api.revokeKey(k.key_id);
                      load();
                    } catch (e) {
                      replace(status, errorBox(e));
                    }
                  },
                },
                "Revoke",
              ),
            ),
          ),
        );
      }
      if (r.api_keys.length === 0) tbody.appendChild(el("tr", {}, el("td", { colspan: "4", class: "empty" }, "No API keys yet.")));
    } catch (e) {
      replace(status, errorBox(e));
    }
  };
  const create = el(
    "button",
    {
      type: "button",
      class: "primary",
      onclick: async () => {
        try {
          const k = await api.createKey();
          const field = el("input", { id: "new-key", type: "text", readonly: true, value: k.api_key, class: "mono" });
          const copy = el(
            "button",
            {
              type: "button",
              class: "secondary",
              onclick: async () => {
                field.select();
                try {
                  await navigator.clipboard.writeText(k.api_key);
                  copy.textContent = "Copied";
                } catch {
                  document.execCommand("copy");
                  copy.textContent = "Copied";
                }
              },
            },
            "Copy",
          );
          replace(
            created,
            el(
              "div",
              { class: "card new-key" },
              el("label", { for: "new-key" }, "New API key"),
              el("div", { class: "row" }, field, copy),
              el("p", { class: "warning", role: "status" }, "Copy this key now: it will not be shown again."),
            ),
          );
          load();
        } catch (e) {
          replace(status, errorBox(e));
        }
      },
    },
    "Create API key",
  );
  load();
  return shell(
    "#/keys",
    el("h1", {}, "API keys"),
    el("p", { class: "muted" }, "Programs send a key as ", el("code", {}, "Authorization: Bearer <API key>"), " to the /v1 API."),
    el("div", { class: "actions" }, create),
    created,
    status,
    el(
      "section",
      { class: "card" },
      el(
        "div",
        { class: "table-wrap" },
        el("table", {}, el("thead", {}, el("tr", {}, ...["Key", "Created", "Last used", ""].map((h) => el("th", { scope: "col" }, h)))), tbody),
      ),
    ),
  );
}

// ---- Usage ---------------------------------------------------------------------

function usagePage(): HTMLElement {
  const box = el("section", { class: "card usage" }, el("p", { class: "muted" }, "Loading…"));
  api.usage().then(
    (u) => {
      const share = u.limit_minutes > 0 ? u.used_minutes / u.limit_minutes : 1;
      replace(
        box,
        el(
          "div",
          { class: "figures" },
          el("div", {}, el("strong", {}, u.used_minutes.toFixed(2)), el("span", {}, " minutes used")),
          el("div", {}, el("strong", {}, u.remaining_minutes.toFixed(2)), el("span", {}, " minutes remaining")),
          el("div", {}, el("strong", {}, u.limit_minutes.toFixed(0)), el("span", {}, " minutes this month")),
        ),
        el("meter", { min: "0", max: String(u.limit_minutes || 1), value: String(u.used_minutes), high: String(0.8 * (u.limit_minutes || 1)), "aria-label": "Minutes used this month" }),
        share > 0.8 ? el("p", { class: "warning", role: "status" }, `You have used ${Math.round(share * 100)}% of this month's minutes.`) : null,
        el("p", { class: "muted" }, "Failed transcriptions do not count. The allowance renews on the first of each month (UTC)."),
      );
    },
    (e) => replace(box, errorBox(e)),
  );
  return shell("#/usage", el("h1", {}, "Usage"), box);
}

// ---- Router --------------------------------------------------------------------

async function render(): Promise<void> {
  while (stopPolling.length) stopPolling.pop()!();
  const hash = location.hash || "#/";
  if (!api.session() && hash !== "#/signin") {
    if (hash !== "#/") flash ||= "Sign in to continue.";
    go("#/signin");
    return;
  }
  let page: HTMLElement;
  const call = hash.match(/^#\/(calls|jobs)\/([0-9a-f-]{36})$/);
  if (hash === "#/signin") page = signInPage();
  else if (hash === "#/keys") page = keysPage();
  else if (hash === "#/usage") page = usagePage();
  else if (call) page = await reviewPage(call[2]);
  else page = callsPage();
  replace(root, page);
  const h1 = root.querySelector("h1");
  if (h1) document.title = h1.textContent + " · callscribe";
}

window.addEventListener("hashchange", render);
render();
