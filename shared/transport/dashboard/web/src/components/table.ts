import { el } from "../dom";

/** A scrolling table with a header row of column names (an empty name is read out as label); rows go in body; cls names the table for its styles. */
export function dataTable(columns: string[], body: HTMLTableSectionElement, cls: string, label?: string): HTMLElement {
  const head = columns.map((h) => (h ? el("th", { scope: "col" }, h) : el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, label ?? ""))));
  return el("div", { class: "table-wrap" }, el("table", { class: cls }, el("thead", {}, el("tr", {}, ...head)), body));
}

/** The one row of a table with nothing to list. */
export function emptyRow(columns: number, text: string): HTMLTableRowElement {
  return el("tr", {}, el("td", { colspan: String(columns), class: "empty" }, text));
}
