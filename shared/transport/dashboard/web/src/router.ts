// Routes live in the fragment (#/calls/<id>), so the server has one page to
// serve and every /dashboard/... path stays an API route.

export type Route =
  | { page: "signin" }
  | { page: "calls" }
  | { page: "keys" }
  | { page: "usage" }
  /**
   * A job by id: #/calls/<id> for a transcription, #/jobs/<id> for a derived
   * job; both open the same view. #/calls/<id>?t=12.5 opens a call with its
   * audio at 12.5 s (t is present only when the fragment gives a usable time).
   */
  | { page: "job"; id: string; t?: number };

const jobPath = /^#\/(calls|jobs)\/([0-9a-f-]{36})(?:\?(.*))?$/;

/**
 * The time a fragment's t parameter names, in seconds: a plain non-negative
 * number (12, 12.5), or null when absent or unusable (the page then starts at 0).
 */
export function timeParam(query: string): number | null {
  const raw = new URLSearchParams(query).get("t");
  if (raw === null || !/^\d+(\.\d+)?$/.test(raw.trim())) return null;
  const t = Number(raw.trim());
  return Number.isFinite(t) ? t : null;
}

/** The route a fragment names; anything unknown is the calls list. */
export function parseRoute(hash: string): Route {
  const h = hash || "#/";
  if (h === "#/signin") return { page: "signin" };
  if (h === "#/keys") return { page: "keys" };
  if (h === "#/usage") return { page: "usage" };
  const job = h.match(jobPath);
  if (job) {
    const t = job[3] === undefined ? null : timeParam(job[3]);
    return t === null ? { page: "job", id: job[2] } : { page: "job", id: job[2], t };
  }
  return { page: "calls" };
}

/** The fragment of a job's page: transcriptions open as calls, other jobs as jobs. */
export function jobHref(type: string, id: string): string {
  return (type === "transcription" ? "#/calls/" : "#/jobs/") + id;
}

/** The fragment that opens a call with its audio at t seconds (a search hit's link). */
export function callAtHref(id: string, t: number): string {
  return "#/calls/" + id + "?t=" + String(Math.max(0, Math.round(t * 1000) / 1000));
}

let onNavigate: () => void = () => {};

/** Goes to a fragment; going to the one shown renders it again. */
export function go(hash: string): void {
  if (location.hash === hash) onNavigate();
  else location.hash = hash;
}

/** Calls render on every change of the fragment, and once now. */
export function startRouter(render: () => void): void {
  onNavigate = render;
  window.addEventListener("hashchange", render);
  render();
}
