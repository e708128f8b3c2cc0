import * as api from "../api/client";
import { errorBox, notice, statusRegion } from "../components/errorBox";
import { append, el, replace } from "../dom";
import { go } from "../router";
import { loadLimits, takeFlash } from "../state";

/** Reads the limits as soon as a session exists; the upload form waits for them if this has not finished. */
function signedIn(): void {
  loadLimits().catch(() => {});
  go("#/");
}

/** Sign in and sign up (with the emailed code when a Cognito pool asks for one). */
export function signInPage(): HTMLElement {
  const email = el("input", { id: "email", type: "email", autocomplete: "username", required: true });
  const password = el("input", { id: "password", type: "password", autocomplete: "current-password", required: true, minlength: "10" });
  const status = statusRegion();
  const confirmBox = el("div");
  const flash = takeFlash();
  if (flash) append(status, notice(flash));
  const submit = async (mode: "in" | "up") => {
    replace(status);
    try {
      if (mode === "up" && (await api.signUp(email.value, password.value))) {
        // A Cognito pool that verifies email: the code comes by mail.
        const code = el("input", { id: "code", type: "text", inputmode: "numeric", autocomplete: "one-time-code" });
        replace(
          confirmBox,
          el("label", { for: "code" }, "Confirmation code"),
          code,
          el("p", { class: "hint" }, "We sent a code to " + email.value + "."),
          el(
            "button",
            {
              type: "button",
              class: "primary",
              onclick: async () => {
                try {
                  await api.confirmSignUp(email.value, code.value.trim());
                  await api.signIn(email.value, password.value);
                  signedIn();
                } catch (e) {
                  replace(status, errorBox(e));
                }
              },
            },
            "Confirm",
          ),
        );
        return;
      }
      await api.signIn(email.value, password.value);
      signedIn();
    } catch (e) {
      replace(status, errorBox(e));
    }
  };
  const form = el(
    "form",
    {
      class: "card auth",
      onsubmit: (e: Event) => {
        e.preventDefault();
        submit("in");
      },
    },
    el("h1", {}, "Sign in to callscribe"),
    el("p", { class: "muted" }, "Transcripts, summaries and tags for your calls."),
    el("label", { for: "email" }, "Email"),
    email,
    el("label", { for: "password" }, "Password"),
    password,
    el("p", { class: "hint" }, "At least 10 characters."),
    confirmBox,
    status,
    el(
      "div",
      { class: "actions" },
      el("button", { type: "submit", class: "primary" }, "Sign in"),
      el("button", { type: "button", class: "secondary", onclick: () => submit("up") }, "Sign up"),
    ),
  );
  return el("div", { class: "auth-page" }, form);
}
