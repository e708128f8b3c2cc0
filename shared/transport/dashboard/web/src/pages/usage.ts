import * as api from "../api/client";
import { errorBox } from "../components/errorBox";
import { shell } from "../components/shell";
import { el, replace } from "../dom";
import { usageShare } from "../format";

/** This month's minutes: used, remaining, the allowance, and a warning past 80 %. */
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
  return shell("#/usage", el("h1", {}, "Usage"), box);
}
