import * as api from "../api/client";
import type { Limits } from "../api/types";
import { append, el, replace } from "../dom";
import { bytes, parseKeyterms } from "../format";
import { refuseUpload, uploadHint } from "../limits";
import { currentLimits, loadLimits } from "../state";
import { isAudioName } from "../validate";
import { alertText, errorBox, notice, statusRegion } from "./errorBox";

/** One chosen file in the upload list: its name and size, its progress bar, and what became of it. */
interface Item {
  file: File;
  bar: HTMLProgressElement;
  outcome: HTMLElement;
  li: HTMLLIElement;
}

function item(file: File): Item {
  const name = file.webkitRelativePath || file.name;
  const bar = el("progress", { max: "1", value: "0", "aria-label": "Upload progress of " + name });
  const outcome = el("div", { class: "outcome", "aria-live": "polite" }, el("span", { class: "muted" }, "Waiting"));
  const li = el("li", { class: "upload-item" }, el("div", { class: "upload-name" }, el("span", {}, name), el("span", { class: "muted small" }, bytes(file.size))), bar, outcome);
  return { file, bar, outcome, li };
}

/** The files under a dropped folder, read through the browser's entry API (where it has one). */
async function filesUnder(entry: FileSystemEntry): Promise<File[]> {
  if (entry.isFile) {
    return new Promise((resolve) => (entry as FileSystemFileEntry).file((f) => resolve([f]), () => resolve([])));
  }
  if (!entry.isDirectory) return [];
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const out: File[] = [];
  // readEntries answers in batches; an empty batch ends the folder.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve) => reader.readEntries(resolve, () => resolve([])));
    if (batch.length === 0) return out;
    for (const e of batch) out.push(...(await filesUnder(e)));
  }
}

/** What was dropped: plain files as they are, the MP3 and WAV files of dropped folders. */
async function droppedFiles(dt: DataTransfer): Promise<File[]> {
  const entries = Array.from(dt.items ?? [])
    .map((i) => (i.kind === "file" && typeof i.webkitGetAsEntry === "function" ? i.webkitGetAsEntry() : null))
    .filter((e): e is FileSystemEntry => e !== null);
  if (entries.length === 0 || !entries.some((e) => e.isDirectory)) return Array.from(dt.files);
  const files: File[] = [];
  for (const e of entries) {
    const under = await filesUnder(e);
    files.push(...(e.isDirectory ? under.filter((f) => isAudioName(f.name)) : under));
  }
  return files;
}

/** The upload form of the calls page: one file or several (chosen, dropped, or a folder's), each sent with its own progress; onUploaded runs after a batch in which some call was accepted. */
export function uploadForm(onUploaded: () => void): HTMLElement {
  const file = el("input", { id: "call-audio", type: "file", multiple: true, accept: ".mp3,.wav,audio/mpeg,audio/wav" });
  const folder = el("input", { id: "call-folder", type: "file", multiple: true, hidden: true, tabindex: "-1" });
  const folders = "webkitdirectory" in HTMLInputElement.prototype;
  if (folders) folder.setAttribute("webkitdirectory", "");
  const language = el("input", { id: "language", type: "text", placeholder: "en", maxlength: "35" });
  const metadata = el("textarea", { id: "metadata", rows: "2", placeholder: '{"crm_id": "42"}' });
  const keyterms = el("textarea", { id: "keyterms", rows: "2", placeholder: "Northwind Energy\nsmart meter" });
  const redact = el("input", { id: "redact-pii", type: "checkbox" });
  const list = el("ul", { class: "upload-list", "aria-label": "Files to upload" });
  const status = statusRegion();
  const hint = el("p", { class: "hint" }, uploadHint(currentLimits()));
  if (!currentLimits()) loadLimits().then((l) => (hint.textContent = uploadHint(l)), () => {});
  let items: Item[] = [];
  let busy = false;
  const choose = (files: File[], skipped = 0) => {
    if (busy) return;
    replace(status);
    items = files.map(item);
    replace(list, ...items.map((i) => i.li));
    if (skipped > 0) replace(status, notice(`${skipped} file${skipped === 1 ? "" : "s"} in the folder ${skipped === 1 ? "is" : "are"} not MP3 or WAV and will not be sent.`));
  };
  file.addEventListener("change", () => choose(Array.from(file.files ?? [])));
  folder.addEventListener("change", () => {
    const all = Array.from(folder.files ?? []);
    const audio = all.filter((f) => isAudioName(f.name));
    choose(audio, all.length - audio.length);
    file.value = "";
  });
  const folderButton = folders ? el("button", { type: "button", class: "secondary small", onclick: () => folder.click() }, "Choose a folder…") : null;
  const drop = el(
    "div",
    { class: "drop" },
    el("label", { for: "call-audio" }, "Call audio"),
    el("div", { class: "pickers" }, file, folderButton, folder),
    hint,
    el("p", { class: "hint" }, "Choose or drop one file or several" + (folders ? ", or a folder" : "") + "; each is a call of its own."),
  );
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", async (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    if (!e.dataTransfer) return;
    choose(await droppedFiles(e.dataTransfer));
    file.value = "";
  });
  const button = el("button", { type: "submit", class: "primary" }, "Upload");

  /** Sends one file; its outcome (a link to the call, or the service's error) is shown by the file. */
  const send = async (it: Item, lim: Limits, meta: string, terms: string[], lang: string, redactPII: boolean): Promise<boolean> => {
    const refused = refuseUpload(it.file.size, new TextEncoder().encode(meta).length, lim);
    if (refused) {
      it.li.classList.add("failed");
      replace(it.outcome, alertText(refused));
      return false;
    }
    replace(it.outcome, el("span", { class: "muted" }, "Uploading…"));
    it.li.classList.add("sending");
    try {
      // Unticked sends nothing, so the deployment's REDACT_PII default applies.
      const r = await api.uploadCall({ file: it.file, language: lang, metadata: meta, keyterms: terms, redact_pii: redactPII ? true : undefined }, lim, (p) => (it.bar.value = p));
      it.bar.value = 1;
      it.li.classList.add("done");
      replace(it.outcome, notice("Uploaded. ", el("a", { href: "#/calls/" + r.job_id }, "Open the call")));
      return true;
    } catch (err) {
      it.li.classList.add("failed");
      replace(it.outcome, errorBox(err));
      return false;
    } finally {
      it.li.classList.remove("sending");
    }
  };

  return el(
    "form",
    {
      class: "card upload",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        if (busy) return;
        replace(status);
        const batch = items.filter((i) => !i.li.classList.contains("done"));
        if (batch.length === 0) {
          replace(status, alertText("Choose an MP3 or WAV file first."));
          return;
        }
        let lim: Limits;
        try {
          lim = await loadLimits();
        } catch (err) {
          replace(status, errorBox(err));
          return;
        }
        busy = true;
        button.setAttribute("disabled", "");
        const meta = metadata.value.trim();
        const terms = parseKeyterms(keyterms.value);
        const lang = language.value.trim();
        let accepted = 0;
        // One file at a time: each gets the whole connection, and a refused file does not stop the rest.
        for (const it of batch) {
          it.li.classList.remove("failed");
          if (await send(it, lim, meta, terms, lang, redact.checked)) accepted++;
        }
        busy = false;
        button.removeAttribute("disabled");
        const failed = batch.length - accepted;
        if (batch.length > 1) append(status, notice(`${accepted} of ${batch.length} files uploaded` + (failed ? `; ${failed} could not be sent (see each file).` : ".")));
        if (accepted > 0) {
          file.value = "";
          folder.value = "";
          // The key terms belong to the calls just sent, not to the next upload.
          keyterms.value = "";
          onUploaded();
        }
      },
    },
    el("h2", {}, "Upload calls"),
    drop,
    list,
    el(
      "div",
      { class: "row fields" },
      el("div", {}, el("label", { for: "language" }, "Language (optional)"), language),
      el("div", { class: "grow" }, el("label", { for: "metadata" }, "Metadata JSON (optional)"), metadata),
    ),
    el(
      "div",
      { class: "row" },
      el(
        "div",
        { class: "grow" },
        el("label", { for: "keyterms" }, "Key terms (optional)"),
        keyterms,
        el("p", { class: "hint" }, "One word or phrase a line (names, products, jargon), up to 100; the speech engine favours them for these calls."),
      ),
    ),
    el(
      "div",
      { class: "row" },
      el(
        "div",
        { class: "grow" },
        el("label", { for: "redact-pii" }, redact, " Redact card numbers, phone numbers and e-mail addresses"),
        el("p", { class: "hint" }, "They become [REDACTED:…] in the transcript and a tone in the stored audio (an MP3 with redactions is deleted). Names and addresses are not caught."),
      ),
    ),
    status,
    el("div", { class: "actions" }, button),
  );
}
