/** The filters of the calls list, as the list route's query parameters name them. */
export interface JobFilter {
  status?: string;
  type?: string;
  language?: string;
  created_after?: string;
  /** One job by its id (the list entry carries the file name and length a job read lacks). */
  job_id?: string;
  /** Search across calls: jobs whose text holds every word ("quoted phrases" in order). */
  q?: string;
  /** With q, one speaker's lines only: Agent or User. */
  speaker?: string;
}

/** The query string of one page of the job list: limit, the filters that are set, and the cursor. */
export function jobsQuery(filter: JobFilter, cursor: string | null, limit: number): string {
  const q = new URLSearchParams();
  q.set("limit", String(limit));
  for (const [k, v] of Object.entries(filter)) if (v) q.set(k, v);
  if (cursor) q.set("cursor", cursor);
  return q.toString();
}
