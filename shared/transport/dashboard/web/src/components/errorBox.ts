import { ApiError } from "../api/error";
import { el } from "../dom";
import { describe } from "../errors";
import { currentLimits } from "../state";

/** An alert for a failed action: the error code in bold, then what it means. */
export function errorBox(e: unknown): HTMLElement {
  const code = e instanceof ApiError ? e.code : "";
  return el("p", { class: "error", role: "alert" }, code ? el("strong", {}, code + ": ") : null, describe(e, currentLimits()?.max_audio_bytes ?? null));
}

/** An alert the page itself raises (no service error behind it). */
export function alertText(text: string): HTMLElement {
  return el("p", { class: "error", role: "alert" }, text);
}

/** A polite notice (role status). */
export function notice(...content: (Node | string)[]): HTMLElement {
  return el("p", { class: "notice", role: "status" }, ...content);
}

/** The live region a page reports its errors and notices in. */
export function statusRegion(): HTMLElement {
  return el("div", { "aria-live": "polite" });
}
