import * as api from "../api/client";
import type { Limits } from "../api/types";
import { el, replace } from "../dom";
import { parseKeyterms } from "../format";
import { refuseUpload, uploadHint } from "../limits";
import { currentLimits, loadLimits } from "../state";
import { alertText, errorBox, notice, statusRegion } from "./errorBox";

/** The upload form of the calls page; onUploaded runs after a call was accepted. */
export function uploadForm(onUploaded: () => void): HTMLElement {
  const file = el("input", { id: "call-audio", type: "file", accept: ".mp3,.wav,audio/mpeg,audio/wav" });
  const language = el("input", { id: "language", type: "text", placeholder: "en", maxlength: "35" });
  const metadata = el("textarea", { id: "metadata", rows: "2", placeholder: '{"crm_id": "42"}' });
  const keyterms = el("textarea", { id: "keyterms", rows: "2", placeholder: "Northwind Energy\nsmart meter" });
  const bar = el("progress", { max: "1", value: "0", hidden: true, "aria-label": "Upload progress" });
  const status = statusRegion();
  const hint = el("p", { class: "hint" }, uploadHint(currentLimits()));
  if (!currentLimits()) loadLimits().then((l) => (hint.textContent = uploadHint(l)), () => {});
  const drop = el("div", { class: "drop" }, el("label", { for: "call-audio" }, "Call audio"), file, hint);
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
        const meta = metadata.value.trim();
        const refused = refuseUpload(f.size, new TextEncoder().encode(meta).length, lim);
        if (refused) {
          replace(status, alertText(refused));
          return;
        }
        button.setAttribute("disabled", "");
        bar.hidden = false;
        bar.value = 0;
        try {
          const r = await api.uploadCall({ file: f, language: language.value.trim(), metadata: meta, keyterms: parseKeyterms(keyterms.value) }, lim, (p) => (bar.value = p));
          replace(status, notice("Uploaded. ", el("a", { href: "#/calls/" + r.job_id }, "Open the call")));
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
