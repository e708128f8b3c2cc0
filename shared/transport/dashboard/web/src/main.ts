// The dashboard's entry: wires the session, the router and the pages. No
// framework: the page builds its DOM with dom.ts's el(), so nothing but this
// code and the service's answers ever reaches the document.
import { whenSessionLost } from "./api/client";
import { replace } from "./dom";
import { callsPage } from "./pages/calls";
import { keysPage } from "./pages/keys";
import { reviewPage } from "./pages/review";
import { signInPage } from "./pages/signin";
import { usagePage } from "./pages/usage";
import { go, parseRoute, startRouter } from "./router";
import { leavePage, loadLimits, setFlash, setFlashIfEmpty, signedIn, signOut } from "./state";

const root = document.getElementById("app")!;

whenSessionLost(() => {
  signOut();
  setFlash("Your session has expired. Sign in again.");
  go("#/signin");
});

async function render(): Promise<void> {
  leavePage();
  const hash = location.hash || "#/";
  if (!signedIn() && hash !== "#/signin") {
    if (hash !== "#/") setFlashIfEmpty("Sign in to continue.");
    go("#/signin");
    return;
  }
  // A session from before a reload: its limits are read once, as after sign-in.
  if (signedIn()) loadLimits().catch(() => {});
  const route = parseRoute(hash);
  let page: HTMLElement;
  switch (route.page) {
    case "signin":
      page = signInPage();
      break;
    case "keys":
      page = keysPage();
      break;
    case "usage":
      page = usagePage();
      break;
    case "job":
      page = await reviewPage(route.id, route.t ?? null);
      break;
    case "calls":
      page = callsPage();
      break;
  }
  replace(root, page);
  const h1 = root.querySelector("h1");
  if (h1) document.title = h1.textContent + " · callscribe";
}

startRouter(render);
