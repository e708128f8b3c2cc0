import type { JobSummary } from "../api/types";
import { el } from "../dom";
import { clock } from "../format";
import { jobHref } from "../router";

/** One match of a search hit, as the list route sends it. */
export type SearchMatch = NonNullable<JobSummary["matches"]>[number];

/** The search a calls-list fragment carries: #/?q=refund&speaker=User. */
export interface CallSearch {
  q: string;
  speaker: string;
}

/** Reads the search from a fragment; empty when it has none. */
export function searchOfHash(hash: string): CallSearch {
  const i = hash.indexOf("?");
  const params = new URLSearchParams(i < 0 ? "" : hash.slice(i + 1));
  return { q: params.get("q") ?? "", speaker: params.get("speaker") ?? "" };
}

/** The calls-list fragment of a search: #/ without one. */
export function hashOfSearch(s: CallSearch): string {
  const params = new URLSearchParams();
  if (s.q.trim()) params.set("q", s.q.trim());
  if (s.q.trim() && s.speaker) params.set("speaker", s.speaker);
  const query = params.toString();
  return query ? "#/?" + query : "#/";
}

/** Where a hit opens: the review screen at the match's time (t, seconds) when it has one. */
export function matchHref(type: string, id: string, m: SearchMatch): string {
  const href = jobHref(type, id);
  return m.time_start == null ? href : href + "?t=" + String(Math.round(m.time_start * 100) / 100);
}

/** The words of a text as search compares them: runs of letters and digits, lower-cased. */
export function searchWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** text split into runs, the query's words marked: [run, isMatch][]. */
export function markWords(text: string, query: string): [string, boolean][] {
  const wanted = new Set(searchWords(query));
  const out: [string, boolean][] = [];
  let last = 0;
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    if (!wanted.has(m[0].toLowerCase())) continue;
    if (m.index > last) out.push([text.slice(last, m.index), false]);
    out.push([m[0], true]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push([text.slice(last), false]);
  return out;
}

/** The matching lines of a search hit, each a link to where it is. */
export function searchHits(j: JobSummary, query: string): HTMLElement {
  const list = el("ul", { class: "hits", "aria-label": "Matches in " + (j.original_filename ?? j.type + " job") });
  for (const m of j.matches ?? []) {
    const where = m.time_start != null ? clock(m.time_start) : m.field === "input" ? "line " + (m.segment + 1) : m.field;
    const text = el("span", { class: "hit-text" }, ...markWords(m.text, query).map(([run, hit]) => (hit ? el("mark", {}, run) : run)));
    list.appendChild(
      el(
        "li",
        {},
        el("a", { href: matchHref(j.type, j.job_id, m), class: "hit-at" }, where),
        m.speaker_alias ? el("span", { class: "hit-speaker" }, m.speaker_alias + ":") : null,
        text,
      ),
    );
  }
  return list;
}
