import { el } from "../dom";

/** A scrolling table with a header row of column names; rows go in body. */
export function dataTable(columns: string[], body: HTMLTableSectionElement): HTMLElement {
  return el("div", { class: "table-wrap" }, el("table", {}, el("thead", {}, el("tr", {}, ...columns.map((h) => el("th", { scope: "col" }, h)))), body));
}

/** The one row of a table with nothing to list. */
export function emptyRow(columns: number, text: string): HTMLTableRowElement {
  return el("tr", {}, el("td", { colspan: String(columns), class: "empty" }, text));
}
