// A small bar chart drawn as inline SVG: one bar per value, no charting
// library. Bars are keyboard reachable with one tab stop per chart (a roving
// tabindex): the arrow keys, Home and End move between bars, and each bar is
// an image named by its label, so a screen reader reads the value of the bar
// in focus. The value of the bar in focus or under the pointer is also
// written under the chart for sighted users.
import { el } from "../dom";

export interface Bar {
  value: number;
  /** Read by screen readers and shown as the readout and tooltip. */
  label: string;
  /** Text under the bar's column on the axis; "" for none. */
  tick: string;
  /** Drawn in the accent colour (today). */
  marked?: boolean;
}

const svgNS = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/**
 * barChart draws bars on a scale from 0 to max (at least the largest value).
 * name labels the chart as a group; focusIndex is the bar the tab stop starts on.
 */
export function barChart(opts: { name: string; bars: Bar[]; max: number; maxLabel: string; focusIndex: number }): HTMLElement {
  const { bars } = opts;
  const max = Math.max(opts.max, ...bars.map((b) => b.value), Number.MIN_VALUE);
  // The view box is 100 units per bar wide and 100 high; the SVG stretches to
  // the width of its box (preserveAspectRatio none), so the bars fill a phone
  // or a desktop alike, and text lives in HTML around it.
  const width = bars.length * 100;
  const plot = svg("svg", { viewBox: `0 0 ${width} 100`, preserveAspectRatio: "none", role: "group", "aria-label": opts.name, class: "bar-chart-svg" });
  const readout = el("p", { class: "bar-chart-readout", "aria-hidden": "true" }, "\u00a0");
  const columns: SVGGElement[] = [];
  const show = (i: number) => {
    readout.textContent = bars[i].label;
  };
  // Leaving a bar shows the bar that still has the focus, or nothing.
  const settle = () => {
    const focused = columns.findIndex((c) => c === document.activeElement);
    readout.textContent = focused >= 0 ? bars[focused].label : "\u00a0";
  };
  const focusBar = (i: number) => {
    const next = Math.max(0, Math.min(bars.length - 1, i));
    columns.forEach((c, j) => c.setAttribute("tabindex", j === next ? "0" : "-1"));
    columns[next].focus();
  };
  bars.forEach((bar, i) => {
    const h = (bar.value / max) * 100;
    const g = svg("g", { class: "bar" + (bar.marked ? " marked" : ""), role: "img", "aria-label": bar.label, tabindex: i === opts.focusIndex ? "0" : "-1" });
    const title = svg("title", {});
    title.textContent = bar.label;
    g.append(title, svg("rect", { class: "bar-hit", x: String(i * 100), y: "0", width: "100", height: "100" }));
    g.append(svg("rect", { class: "bar-value", x: String(i * 100 + 15), y: String(100 - h), width: "70", height: String(h) }));
    g.addEventListener("focus", () => show(i));
    g.addEventListener("pointerenter", () => show(i));
    g.addEventListener("pointerleave", settle);
    g.addEventListener("blur", () => setTimeout(settle));
    g.addEventListener("keydown", (e) => {
      const key = (e as KeyboardEvent).key;
      const to = key === "ArrowRight" || key === "ArrowUp" ? i + 1 : key === "ArrowLeft" || key === "ArrowDown" ? i - 1 : key === "Home" ? 0 : key === "End" ? bars.length - 1 : null;
      if (to === null) return;
      e.preventDefault();
      focusBar(to);
    });
    columns.push(g);
    plot.append(g);
  });
  const ticks = el("div", { class: "bar-chart-ticks", "aria-hidden": "true" });
  bars.forEach((bar, i) => {
    if (!bar.tick) return;
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    const tick = el("span", {}, bar.tick);
    tick.style.left = `${((i + 0.5) / bars.length) * 100}%`;
    ticks.append(tick);
  });
  return el(
    "div",
    { class: "bar-chart" },
    el("div", { class: "bar-chart-scale", "aria-hidden": "true" }, el("span", {}, opts.maxLabel), el("span", {}, "0")),
    el("div", { class: "bar-chart-plot" }, plot, ticks),
    readout,
  );
}
