import { el } from "../dom";

/** A job's status as a coloured badge (class status-<status>). */
export function statusBadge(status: string): HTMLElement {
  return el("span", { class: "badge status-" + status }, status);
}
