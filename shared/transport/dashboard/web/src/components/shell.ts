import { Child, el } from "../dom";
import { go } from "../router";
import { setFlash, signOut } from "../state";

/** The frame of every signed-in page: top bar with the main links (active marks the current one) and sign-out. */
export function shell(active: string, ...content: Child[]): HTMLElement {
  const nav = (hash: string, label: string) =>
    el("a", { href: hash, class: active === hash ? "active" : undefined, "aria-current": active === hash ? "page" : undefined }, label);
  return el(
    "div",
    { class: "shell" },
    el(
      "header",
      { class: "topbar" },
      el("a", { href: "#/", class: "brand" }, el("span", { class: "logo", "aria-hidden": "true" }, "◉"), "callscribe"),
      el("nav", { "aria-label": "Main" }, nav("#/", "Calls"), nav("#/keys", "API keys"), nav("#/usage", "Usage")),
      el(
        "button",
        {
          class: "ghost",
          onclick: () => {
            signOut();
            setFlash("You are signed out.");
            go("#/signin");
          },
        },
        "Sign out",
      ),
    ),
    el("main", { class: "content" }, ...content),
  );
}

/** The link back to the calls list above a job's page. */
export function backToCalls(): HTMLElement {
  return el("p", {}, el("a", { href: "#/" }, "← Calls"));
}
