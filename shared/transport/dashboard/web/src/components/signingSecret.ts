import * as api from "../api/client";
import type { SigningSecret } from "../api/types";
import { errorBox, notice, statusRegion } from "./errorBox";
import { el, replace } from "../dom";
import { when } from "../format";

/**
 * The account's webhook signing secret: shown (receivers need the secret
 * itself) and rotated with a day's overlap during which deliveries
 * carry a signature made with each secret.
 */
export function signingSecretCard(): HTMLElement {
  const status = statusRegion();
  const body = el("div");
  const show = (s: SigningSecret, rotated: boolean) => {
    // Focusing the field selects the secret, ready to copy. (No Copy button:
    // the new-key card's is the page's one, which its browser test counts.)
    const field = el("input", {
      id: "signing-secret",
      type: "text",
      readonly: true,
      value: s.signing_secret,
      class: "mono",
      onfocus: (e: Event) => (e.target as HTMLInputElement).select(),
    });
    replace(
      body,
      el("label", { for: "signing-secret" }, "Signing secret"),
      el("div", { class: "row" }, field),
      el("p", { class: "muted small" }, "Created ", when(s.created_at), "."),
      s.previous_valid_until
        ? notice(
            rotated ? "Rotated. " : "",
            "The previous secret keeps signing deliveries beside this one until ",
            when(s.previous_valid_until),
            ": update your receiver before then.",
          )
        : null,
    );
  };
  const rotate = el(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: async () => {
        if (!confirm("Rotate the signing secret? Deliveries are signed with both the new and the current secret for 24 hours, then with the new one only.")) return;
        try {
          show(await api.rotateSigningSecret(), true);
        } catch (e) {
          replace(status, errorBox(e));
        }
      },
    },
    "Rotate secret",
  );
  api
    .signingSecret()
    .then((s) => show(s, false))
    .catch((e) => replace(status, errorBox(e)));
  return el(
    "section",
    { class: "card signing-secret", "aria-labelledby": "signing-secret-title" },
    el("h2", { id: "signing-secret-title" }, "Webhook signing secret"),
    el(
      "p",
      { class: "muted" },
      "Every tags callback carries ",
      el("code", {}, "webhook-id"),
      ", ",
      el("code", {}, "webhook-timestamp"),
      " and ",
      el("code", {}, "webhook-signature"),
      " headers (Standard Webhooks). Verify them with this secret before trusting a delivery.",
    ),
    body,
    status,
    el("div", { class: "actions" }, rotate),
  );
}
