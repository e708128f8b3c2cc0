// Routes live in the fragment (#/calls/<id>), so the server has one page to
// serve and every /dashboard/... path stays an API route.

export type Route =
  | { page: "signin" }
  | { page: "calls" }
  | { page: "keys" }
  | { page: "usage" }
  /** A job by id: #/calls/<id> for a transcription, #/jobs/<id> for a derived job; both open the same view. */
  | { page: "job"; id: string };

const jobPath = /^#\/(calls|jobs)\/([0-9a-f-]{36})$/;

/** The route a fragment names; anything unknown is the calls list. */
export function parseRoute(hash: string): Route {
  const h = hash || "#/";
  if (h === "#/signin") return { page: "signin" };
  if (h === "#/keys") return { page: "keys" };
  if (h === "#/usage") return { page: "usage" };
  const job = h.match(jobPath);
  if (job) return { page: "job", id: job[2] };
  return { page: "calls" };
}

/** The fragment of a job's page: transcriptions open as calls, other jobs as jobs. */
export function jobHref(type: string, id: string): string {
  return (type === "transcription" ? "#/calls/" : "#/jobs/") + id;
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
