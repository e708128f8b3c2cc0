// Wording and scale of the usage page's daily chart; no DOM, so the unit
// tests run it under Node.

const monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "2026-11" -> "November 2026". */
export function monthName(month: string): string {
  const [y, m] = month.split("-").map(Number);
  return `${monthNames[m - 1] ?? month} ${y}`;
}

/** "2026-11-27" -> "27 Nov 2026". */
export function dayName(date: string): string {
  const [y, m, d] = date.split("-").map(Number);
  return `${d} ${(monthNames[m - 1] ?? "").slice(0, 3)} ${y}`;
}

/** Minutes with two decimals, the API's precision, and the unit. */
export function minutesText(minutes: number): string {
  return `${minutes.toFixed(2)} ${minutes === 1 ? "minute" : "minutes"}`;
}

/** What a bar says to a screen reader and in its tooltip. */
export function barLabel(day: { date: string; minutes: number; jobs: number }): string {
  return `${dayName(day.date)}: ${minutesText(day.minutes)}, ${day.jobs} ${day.jobs === 1 ? "call" : "calls"}`;
}

/** The top of the chart's scale: the smallest 1, 2 or 5 times a power of ten at or above max; 1 when there is nothing to show. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) {
    const top = Number((step * power).toPrecision(12));
    if (top >= max - 1e-9) return top;
  }
  return Number((10 * power).toPrecision(12));
}

/** A language as given at upload; null is uploads that left it to detection. */
export function languageName(language: string | null | undefined): string {
  return language ? language : "Detected at run time";
}
