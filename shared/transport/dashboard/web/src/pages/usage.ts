import * as api from "../api/client";
import type { DailyUsage } from "../api/types";
import { barChart } from "../components/barChart";
import { errorBox } from "../components/errorBox";
import { shell } from "../components/shell";
import { el, replace } from "../dom";
import { usageShare } from "../format";
import { barLabel, dayName, languageName, minutesText, monthName, niceMax } from "../usageSeries";

/** This month's minutes: used, remaining, the allowance, and a warning past 80 %; then minutes per day over two months and the top languages. */
export function usagePage(): HTMLElement {
  const box = el("section", { class: "card usage" }, el("p", { class: "muted" }, "Loading…"));
  api.usage().then(
    (u) => {
      const share = usageShare(u.used_minutes, u.limit_minutes);
      replace(
        box,
        el(
          "div",
          { class: "figures" },
          el("div", {}, el("strong", {}, u.used_minutes.toFixed(2)), el("span", {}, " minutes used")),
          el("div", {}, el("strong", {}, u.remaining_minutes.toFixed(2)), el("span", {}, " minutes remaining")),
          el("div", {}, el("strong", {}, u.limit_minutes.toFixed(0)), el("span", {}, " minutes this month")),
        ),
        el("meter", { min: "0", max: String(u.limit_minutes || 1), value: String(u.used_minutes), high: String(0.8 * (u.limit_minutes || 1)), "aria-label": "Minutes used this month" }),
        share > 0.8 ? el("p", { class: "warning", role: "status" }, `You have used ${Math.round(share * 100)}% of this month's minutes.`) : null,
        el("p", { class: "muted" }, "Failed transcriptions do not count. The allowance renews on the first of each month (UTC)."),
      );
    },
    (e) => replace(box, errorBox(e)),
  );
  const history = el("section", { class: "card usage-history", "aria-labelledby": "usage-history-title" }, el("p", { class: "muted" }, "Loading…"));
  api.dailyUsage().then(
    (d) => replace(history, ...historyView(d)),
    (e) => replace(history, errorBox(e)),
  );
  return shell("#/usage", el("h1", {}, "Usage"), box, history);
}

/** One chart per month on a shared scale, a table of the same figures, and the top languages. */
function historyView(d: DailyUsage): Node[] {
  const today = new Date().toISOString().slice(0, 10);
  const largest = Math.max(0, ...d.months.flatMap((m) => m.days.map((day) => day.minutes)));
  const max = niceMax(largest);
  const months = d.months.map((m) => {
    const bars = m.days.map((day, i) => ({
      value: day.minutes,
      label: barLabel(day),
      tick: i === 0 || (i + 1) % 5 === 0 ? String(i + 1) : "",
      marked: day.date === today,
    }));
    // The tab stop starts on today, else on the month's last day.
    const todayIndex = m.days.findIndex((day) => day.date === today);
    const calls = m.days.reduce((n, day) => n + day.jobs, 0);
    return el(
      "div",
      { class: "usage-month" },
      el("h3", {}, monthName(m.month), " ", el("span", { class: "muted" }, `${minutesText(m.used_minutes)} in ${calls} ${calls === 1 ? "call" : "calls"}`)),
      barChart({ name: `Minutes per day, ${monthName(m.month)}`, bars, max, maxLabel: `${max} min`, focusIndex: todayIndex >= 0 ? todayIndex : bars.length - 1 }),
    );
  });
  const rows = d.months.flatMap((m) =>
    m.days.filter((day) => day.jobs > 0 || day.minutes > 0).map((day) => el("tr", {}, el("td", {}, dayName(day.date)), el("td", { class: "num" }, day.minutes.toFixed(2)), el("td", { class: "num" }, String(day.jobs)))),
  );
  const table = el(
    "details",
    { class: "usage-table" },
    el("summary", {}, "Show the days as a table"),
    rows.length
      ? el("table", {}, el("caption", { class: "muted" }, "Days with usage; every other day is zero."), el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Day (UTC)"), el("th", { scope: "col", class: "num" }, "Minutes"), el("th", { scope: "col", class: "num" }, "Calls"))), el("tbody", {}, ...rows))
      : el("p", { class: "muted" }, "No usage in these two months."),
  );
  const top = d.top_languages;
  const topMax = Math.max(0, ...top.map((l) => l.minutes)) || 1;
  const languages = el(
    "div",
    { class: "usage-languages" },
    el("h3", { id: "usage-languages-title" }, "Top languages by minutes"),
    top.length
      ? el(
          "ol",
          { "aria-labelledby": "usage-languages-title" },
          ...top.map((l) =>
            el(
              "li",
              {},
              el("span", { class: "lang-name" }, languageName(l.language)),
              shareBar(l.minutes / topMax),
              el("span", { class: "num" }, minutesText(l.minutes)),
            ),
          ),
        )
      : el("p", { class: "muted" }, "No calls in these two months yet."),
    el("p", { class: "hint" }, "The language given at upload; calls without one are counted as detected at run time."),
  );
  return [
    el("h2", { id: "usage-history-title" }, "Minutes per day"),
    el("p", { class: "hint" }, "UTC days, this month and last, today in green; failed transcriptions are not counted. Use the arrow keys to move between days."),
    ...months,
    table,
    languages,
  ];
}

/** A bar as wide as share (0..1) of its track, set through the CSSOM: the page's Content-Security-Policy refuses style attributes. */
function shareBar(share: number): HTMLElement {
  const fill = el("span", {});
  fill.style.width = `${Math.max(0, Math.min(1, share)) * 100}%`;
  return el("span", { class: "lang-bar", "aria-hidden": "true" }, fill);
}
