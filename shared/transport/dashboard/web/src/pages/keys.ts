import * as api from "../api/client";
import type { APIKey } from "../api/types";
import { errorBox, statusRegion } from "../components/errorBox";
import { shell } from "../components/shell";
import { signingSecretCard } from "../components/signingSecret";
import { dataTable, emptyRow } from "../components/table";
import { el, replace } from "../dom";
import { when } from "../format";

const columns = ["Key", "Created", "Last used", ""];

/** API keys: create one (its secret shown once, with a copy button), list them, revoke one; and the webhook signing secret. */
export function keysPage(): HTMLElement {
  const status = statusRegion();
  const created = el("div");
  const tbody = el("tbody");
  const keyRow = (k: APIKey) =>
    el(
      "tr",
      {},
      el("td", {}, el("code", {}, k.prefix + "…")),
      el("td", {}, when(k.created_at)),
      el("td", {}, when(k.last_used_at)),
      el(
        "td",
        {},
        el(
          "button",
          {
            type: "button",
            class: "danger small",
            "aria-label": `Revoke key ${k.prefix}…`,
            onclick: async () => {
              if (!confirm(`Revoke the key ${k.prefix}…? Programs using it stop working at once.`)) return;
              try {
                await api.revokeKey(k.key_id);
                load();
              } catch (e) {
                replace(status, errorBox(e));
              }
            },
          },
          "Revoke",
        ),
      ),
    );
  const load = async () => {
    try {
      const r = await api.listKeys();
      replace(tbody);
      for (const k of r.api_keys) tbody.appendChild(keyRow(k));
      if (r.api_keys.length === 0) tbody.appendChild(emptyRow(columns.length, "No API keys yet."));
    } catch (e) {
      replace(status, errorBox(e));
    }
  };
  const create = el(
    "button",
    {
      type: "button",
      class: "primary",
      onclick: async () => {
        try {
          const k = await api.createKey();
          const field = el("input", { id: "new-key", type: "text", readonly: true, value: k.api_key, class: "mono" });
          const copy = el(
            "button",
            {
              type: "button",
              class: "secondary",
              onclick: async () => {
                field.select();
                try {
                  await navigator.clipboard.writeText(k.api_key);
                  copy.textContent = "Copied";
                } catch {
                  document.execCommand("copy");
                  copy.textContent = "Copied";
                }
              },
            },
            "Copy",
          );
          replace(
            created,
            el(
              "div",
              { class: "card new-key" },
              el("label", { for: "new-key" }, "New API key"),
              el("div", { class: "row" }, field, copy),
              el("p", { class: "warning", role: "status" }, "Copy this key now: it will not be shown again."),
            ),
          );
          load();
        } catch (e) {
          replace(status, errorBox(e));
        }
      },
    },
    "Create API key",
  );
  load();
  return shell(
    "#/keys",
    el("h1", {}, "API keys"),
    el("p", { class: "muted" }, "Programs send a key as ", el("code", {}, "Authorization: Bearer <API key>"), " to the /v1 API."),
    el("div", { class: "actions" }, create),
    created,
    status,
    el("section", { class: "card" }, dataTable(columns, tbody, "keys-table", "Actions")),
    signingSecretCard(),
  );
}
