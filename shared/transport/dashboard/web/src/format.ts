// Text the page shows for numbers, times and sizes. Pure functions: they are
// the unit-tested part of the page (test/format.test.ts).

/** mm:ss, or h:mm:ss past the first hour (the exports' text format). */
export function clock(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor(total / 60) % 60;
  const s = total % 60;
  const mm = String(m).padStart(2, "0");
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** A date and time in the reader's locale; "never" for a missing time. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "never";
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A size in B, KB or MB (1024-based); a whole number of MB shows no decimal (10 MB, 4.5 MB). */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MB`;
}

/** The CSS class of a speaker's turns. */
export function speakerClass(alias: string): string {
  return alias === "Agent" ? "agent" : "user";
}

/** The key terms field: one term a line, trimmed, blank lines dropped (the service checks the rest). */
export function parseKeyterms(text: string): string[] {
  return text
    .split("\n")
    .map((t) => t.trim())
    .filter((t) => t !== "");
}

/** A taxonomy name as people read it: call_reason -> call reason. */
export function label(name: string): string {
  return name.replace(/_/g, " ");
}

/** The share of the month's minutes used; a zero allowance counts as all used. */
export function usageShare(used: number, limit: number): number {
  return limit > 0 ? used / limit : 1;
}

/** How long since an ISO time, as a clock (mm:ss, h:mm:ss); never negative (a clock behind the server's). */
export function since(iso: string, nowMs: number): string {
  return clock(Math.max(0, (nowMs - Date.parse(iso)) / 1000));
}

/** A metadata value as text: strings as they are, anything else as JSON. */
export function metadataValue(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}
