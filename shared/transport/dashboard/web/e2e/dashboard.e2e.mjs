// End-to-end test of the dashboard in a real browser (Debian's Chromium driven
// by playwright-core; no browser download), against a running service:
//
//   BASE_URL=http://127.0.0.1:8080 CALL_WAV=call.wav OUT_DIR=/tmp/shots node e2e/dashboard.e2e.mjs
//
// It does what a new user does: sign up, create an API key and use it, upload
// a stereo call, watch it finish, review it (Agent and User turns, the player
// highlighting the turn it plays, clicking a turn to seek), summarize and tag,
// download SRT, see usage go up, revoke the key (the API then answers 401),
// delete the call; then an XSS case and an expired session. It writes a
// screenshot of every screen to OUT_DIR (kept for failures) and exits non-zero
// on the first failed check.
import { chromium } from "playwright-core";
import { readFileSync, mkdirSync, mkdtempSync, copyFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const base = process.env.BASE_URL;
const wavPath = process.env.CALL_WAV;
const outDir = process.env.OUT_DIR || "e2e-out";
if (!base || !wavPath) {
  console.error("BASE_URL and CALL_WAV are required");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

let passed = 0;
let step = "start";
function check(cond, what) {
  if (!cond) throw new Error(`${step}: ${what}`);
  passed++;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-gpu", "--autoplay-policy=no-user-gesture-required"],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
const page = await context.newPage();
const dialogs = [];
page.on("dialog", async (d) => {
  dialogs.push(d.message());
  await d.accept();
});
const pageErrors = [];
const requested = [];
page.on("request", (r) => requested.push(r.method() + " " + new URL(r.url()).pathname));
page.on("pageerror", (e) => pageErrors.push(String(e)));
const iconMisses = [];
page.on("response", (r) => {
  if (r.status() === 404 && /favicon|icon/.test(new URL(r.url()).pathname)) iconMisses.push(r.url());
});

async function shot(name) {
  // From the top: a full-page shot of a scrolled page draws the sticky bar mid-page.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(outDir, name + ".png"), fullPage: true });
}

/** Presses Tab until target has the focus (at most max times): proves it is reachable by keyboard. */
async function tabTo(target, max = 60) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    if (await target.evaluate((el) => el === document.activeElement)) return true;
  }
  return false;
}

async function api(method, path, key, body) {
  const headers = { Authorization: "Bearer " + key };
  if (body) headers["Content-Type"] = "application/json";
  const r = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  return { status: r.status, body: await r.json().catch(() => null) };
}

let failed = 0;
try {
  step = "sign up";
  const email = `e2e-${Date.now()}@example.com`;
  const config = await fetch(base + "/dashboard/config").then((r) => r.json());
  if (process.env.EXPECT_IDENTITY) {
    check(config.identity.kind === process.env.EXPECT_IDENTITY, `signs in through ${process.env.EXPECT_IDENTITY} (config says ${config.identity.kind})`);
  }
  await page.goto(base + "/");
  await page.waitForURL(/#\/signin$/);
  await shot("01-signin");
  const iconHref = await page.locator('link[rel="icon"]').getAttribute("href");
  const icon = await fetch(new URL(iconHref, base));
  check(icon.status === 200 && (icon.headers.get("content-type") || "").startsWith("image/svg+xml"), `the linked icon ${iconHref} is served (${icon.status} ${icon.headers.get("content-type")})`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-long-password");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.getByRole("heading", { name: "Calls", exact: true }).waitFor();
  check(true, "signed up and in");

  step = "API key";
  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByRole("button", { name: "Create API key" }).click();
  const keyField = page.getByLabel("New API key");
  await keyField.waitFor();
  const apiKey = await keyField.inputValue();
  check(apiKey.length > 20 && (await keyField.getAttribute("readonly")) !== null, "the new key is shown once, read-only");
  check(await page.getByText("will not be shown again").isVisible(), "the warning is shown");
  check((await page.getByRole("button", { name: "Copy" }).count()) === 1, "a copy button");
  await shot("02-keys");
  const list = await api("GET", "/v1/transcriptions", apiKey);
  check(list.status === 200, `the key works on the API (got ${list.status})`);

  step = "upload";
  await page.getByRole("link", { name: "Calls", exact: true }).click();
  await page.getByLabel("Call audio").setInputFiles({ name: "support-call.wav", mimeType: "audio/wav", buffer: readFileSync(wavPath) });
  await page.getByLabel("Language (optional)").fill("en");
  await page.getByLabel("Metadata JSON (optional)").fill('{"crm_id": "42", "queue": "billing"}');
  await page.getByLabel("Key terms (optional)").fill("refund\n  Northwind Energy \n\nREFUND");
  const languageLabel = await page.getByText("Language (optional)", { exact: true }).boundingBox();
  const metadataLabel = await page.getByText("Metadata JSON (optional)", { exact: true }).boundingBox();
  check(Math.abs(languageLabel.y - metadataLabel.y) < 2, `the Language label lines up with its neighbour (y ${languageLabel.y} and ${metadataLabel.y})`);
  check((await page.getByRole("progressbar", { name: "Upload progress of support-call.wav" }).count()) === 1, "the chosen file is listed with its labelled progress bar");
  await page.getByRole("button", { name: "Upload", exact: true }).click();
  await page.getByRole("link", { name: "Open the call" }).waitFor();
  check((await page.getByRole("progressbar", { name: "Upload progress of support-call.wav" }).evaluate((b) => b.value)) === 1, "the file's progress bar is full");
  check((await page.getByLabel("Key terms (optional)").inputValue()) === "", "the key terms are cleared after the upload");
  const callID = (await page.getByRole("link", { name: "Open the call" }).getAttribute("href")).split("/").pop();
  const uploaded = await api("GET", "/v1/transcriptions/" + callID, apiKey);
  check(JSON.stringify(uploaded.body.keyterms) === JSON.stringify(["refund", "Northwind Energy"]), `the key terms are stored with the call (${JSON.stringify(uploaded.body.keyterms)})`);
  await page.getByRole("link", { name: "support-call.wav", exact: true }).waitFor();
  check(true, "the call appears in the list");
  await page.getByRole("row", { name: /support-call\.wav.*succeeded/ }).waitFor({ timeout: 30000 });
  check(true, "the list shows the call finish");
  await shot("03-calls");

  step = "review";
  await page.getByRole("link", { name: "Open the call" }).click();
  const turns = page.getByRole("list", { name: "Transcript" }).getByRole("listitem");
  await turns.first().waitFor({ timeout: 30000 });
  const texts = await turns.allTextContents();
  check(texts.some((t) => t.startsWith("Agent")) && texts.some((t) => t.startsWith("User")), `Agent and User turns (${texts})`);
  const audio = page.getByLabel("Call audio player");
  await page.waitForFunction(() => {
    const a = document.querySelector("audio");
    return a && a.src && a.readyState >= 1;
  });
  // Playing highlights the turn under the playhead.
  await page.evaluate(() => {
    const a = document.querySelector("audio");
    a.muted = true;
    return a.play();
  });
  await page.waitForFunction(() => document.querySelector(".turn[aria-current='true']") !== null, null, { timeout: 10000 });
  check(true, "a turn is highlighted while playing");
  await page.evaluate(() => document.querySelector("audio").pause());
  // Clicking a turn seeks to it.
  const second = turns.nth(1);
  await second.click();
  const t = await audio.evaluate((a) => a.currentTime);
  check(t > 0, `clicking the second turn seeks (currentTime ${t})`);
  await page.waitForFunction(() => document.querySelectorAll(".turn")[1].getAttribute("aria-current") === "true");
  check(true, "the clicked turn is the current one");
  await page.evaluate(() => document.querySelector("audio").pause());

  const head = page.locator(".review-head");
  check((await page.getByRole("heading", { level: 1 }).textContent()) === "support-call.wav", "the review is headed by the file name");
  const headText = await head.textContent();
  check(headText.includes("00:06 · en · Uploaded"), `the header gives the length and language (${headText})`);
  check((await head.getByRole("definition").allTextContents()).join(",") === "42,billing" && (await head.getByRole("term").allTextContents()).join(",") === "crm_id,queue", "the header lists the metadata");

  step = "elapsed time while processing";
  // The call has finished; the page is shown the job as still processing to see its clock run.
  const isCall = (url) => url.pathname === "/dashboard/jobs/" + callID;
  await page.route(isCall, async (route) => {
    // A reload drops the requests in flight; their routes are then gone, which is no failure.
    try {
      const resp = await route.fetch();
      const job = await resp.json();
      job.status = "processing";
      delete job.result;
      await route.fulfill({ response: resp, json: job });
    } catch {}
  });
  await page.reload();
  const elapsed = page.locator(".review-head .elapsed");
  await elapsed.waitFor();
  const first = await elapsed.textContent();
  check(/^Processing for \d\d:\d\d$/.test(first), `the header says how long it has been processing (${first})`);
  await page.waitForFunction((before) => document.querySelector(".review-head .elapsed")?.textContent !== before, first, { timeout: 5000 });
  check(true, "the elapsed time updates");
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await page.reload();
  await turns.first().waitFor({ timeout: 30000 });
  check((await elapsed.count()) === 0, "a finished call shows no running clock");

  step = "tag callback";
  const tagsSent = () => requested.filter((r) => r === "POST /dashboard/tag").length;
  const callbackField = page.getByLabel("Callback URL for tags (optional)");
  await callbackField.fill("ftp://example.com/hook");
  await page.getByRole("button", { name: "Tag", exact: true }).click();
  await page.getByRole("alert").filter({ hasText: "must start with https://" }).waitFor();
  check(tagsSent() === 0 && (await callbackField.getAttribute("aria-invalid")) === "true", "a callback URL that is not http(s) is refused in the form, nothing sent");
  await callbackField.fill("https://10.0.0.1/hook");
  await page.getByRole("button", { name: "Tag", exact: true }).click();
  await page.getByRole("alert").filter({ hasText: "INVALID_CALLBACK" }).waitFor();
  check(tagsSent() === 1 && (await page.locator(".derived").count()) === 0, "the service's refusal of a callback URL is shown, and no job made");
  await callbackField.fill("");

  step = "summarize and tag";
  await page.getByRole("button", { name: "Summarize" }).click();
  await page.getByRole("button", { name: "Tag", exact: true }).click();
  await page.locator(".derived[data-type='summary'] .badge.status-succeeded").waitFor({ timeout: 30000 });
  await page.locator(".derived[data-type='tags'] .chip").first().waitFor({ timeout: 30000 });
  check(true, "the summary and tags show when done");
  await shot("04-review");

  step = "insights made elsewhere";
  // A summary made with the API key (as the CLI does), and this browser's memory of its own jobs gone:
  // the review still shows all three, read from the service.
  const made = await api("POST", "/v1/summarize", apiKey, { transcription_job_id: callID });
  check(made.status === 202, `a summary made through the API (${made.status})`);
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll(".derived[data-type='summary']").length === 2 && document.querySelectorAll(".derived[data-type='tags']").length === 1, null, { timeout: 30000 });
  check(true, "the review lists the summaries and tags the service has for the call");
  await page.locator(".derived[data-type='summary'] .badge.status-succeeded").nth(1).waitFor({ timeout: 30000 });

  step = "download SRT";
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "SRT" }).click()]);
  const srt = readFileSync(await download.path(), "utf8");
  check(/^1\n\d\d:\d\d:\d\d,\d{3} --> /.test(srt) && srt.includes("Agent: "), "the SRT file has cues with speakers");

  step = "usage";
  await page.getByRole("link", { name: "Usage" }).click();
  await page.getByText("minutes used").waitFor();
  const usageText = await page.locator(".usage").textContent();
  check(/used/.test(usageText) && /remaining/.test(usageText), "usage figures say used and remaining");
  const used = parseFloat(await page.locator(".usage .figures strong").first().textContent());
  check(used > 0, `usage went up (${used} minutes used)`);
  await shot("05-usage");

  step = "revoke";
  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByRole("button", { name: "Revoke" }).click();
  await page.getByText("No API keys yet.").waitFor();
  check(dialogs.some((m) => m.startsWith("Revoke")), "revoking asks for confirmation");
  check((await api("GET", "/v1/transcriptions", apiKey)).status === 401, "the revoked key gets 401 at once");

  step = "source links";
  await page.getByRole("link", { name: "Calls", exact: true }).click();
  const fromLinks = page.getByRole("link", { name: "from support-call.wav", exact: true });
  await fromLinks.first().waitFor();
  check((await fromLinks.count()) === 3, `each summary and tags job names its source call (${await fromLinks.count()})`);
  check((await fromLinks.first().getAttribute("href")) === "#/calls/" + callID, "and links to it");

  step = "search across calls";
  // The test engine's call: the Agent thanks the caller, the User "was charged twice ... and wants a refund".
  await page.getByLabel("Search calls").fill('"charged twice"');
  await page.getByLabel("Said by").selectOption("User");
  await page.getByRole("button", { name: "Filter" }).click();
  const hits = page.getByRole("list", { name: "Matches in support-call.wav" });
  await hits.waitFor();
  check(new URL(page.url()).hash === "#/?q=%22charged+twice%22&speaker=User", `the search is kept in the route (${new URL(page.url()).hash})`);
  check((await page.locator("tr.hit").count()) === 1, `one call matches (${await page.locator("tr.hit").count()})`);
  const hitLine = hits.getByRole("listitem").first();
  check(/User:\s*i was charged twice on my bill/.test(await hitLine.innerText()), `the hit shows the matching line (${await hitLine.innerText()})`);
  check((await hitLine.locator("mark").allInnerTexts()).join(" ") === "charged twice", "and marks the words searched for");
  const seek = await hitLine.getByRole("link").getAttribute("href");
  check(new RegExp("^#/calls/" + callID + "\\?t=\\d+(\\.\\d+)?$").test(seek), `the hit opens the review screen at its time (${seek})`);
  await shot("12-search");
  await page.reload();
  await hits.waitFor();
  check((await page.getByLabel("Search calls").inputValue()) === '"charged twice"' && (await page.getByLabel("Said by").inputValue()) === "User", "a reload keeps the search");
  await page.getByLabel("Said by").selectOption("Agent");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("No calls say that.").waitFor();
  check(true, "the Agent never said it");
  await page.getByRole("link", { name: "Calls", exact: true }).click();
  await page.getByRole("link", { name: "support-call.wav", exact: true }).waitFor();
  check((await page.getByLabel("Search calls").inputValue()) === "", "the Calls link clears the search");

  step = "delete";
  await page.getByRole("link", { name: "support-call.wav", exact: true }).click();
  await page.getByRole("button", { name: "Delete" }).click();
  await page.getByRole("heading", { name: "Calls", exact: true }).waitFor();
  await page.getByRole("link", { name: "summary job" }).first().waitFor(); // the list has loaded
  check(dialogs.some((m) => m.startsWith("Delete this call")), "deleting asks for confirmation");
  check((await page.getByRole("link", { name: "support-call.wav", exact: true }).count()) === 0, "the deleted call is gone from the list");

  step = "large upload";
  if (process.env.LARGE_WAV) {
    // Larger than one request carries on AWS (4 MiB there): the page takes the
    // two-step path by itself (presigned POST to storage, then the job).
    await page.goto(base + "/#/keys");
    await page.getByRole("link", { name: "Calls", exact: true }).click();
    await page.getByLabel("Call audio").setInputFiles({ name: "long-call.wav", mimeType: "audio/wav", buffer: readFileSync(process.env.LARGE_WAV) });
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page.getByRole("link", { name: "Open the call" }).waitFor({ timeout: 60000 });
    const twoStep = requested.includes("POST /dashboard/uploads");
    if (process.env.EXPECT_TWO_STEP) check(twoStep, "the large file went through the two-step upload");
    await page.getByRole("link", { name: "Open the call" }).click();
    await page.getByRole("list", { name: "Transcript" }).getByRole("listitem").first().waitFor({ timeout: 60000 });
    check(true, "the large call was transcribed");
  }

  step = "several files";
  await page.goto(base + "/#/keys");
  await page.getByRole("link", { name: "Calls", exact: true }).click();
  const wav = readFileSync(wavPath);
  await page.getByLabel("Call audio").setInputFiles([
    { name: "call-a.wav", mimeType: "audio/wav", buffer: wav },
    { name: "notes.wav", mimeType: "audio/wav", buffer: Buffer.from("these are notes, not audio") },
    { name: "call-b.wav", mimeType: "audio/wav", buffer: wav },
  ]);
  check((await page.getByRole("progressbar", { name: /^Upload progress of / }).count()) === 3, "each chosen file has its own progress bar");
  await page.getByRole("button", { name: "Upload", exact: true }).click();
  const uploads = page.getByRole("list", { name: "Files to upload" });
  const fileItem = (name) => uploads.getByRole("listitem").filter({ hasText: name });
  await page.getByText("2 of 3 files uploaded").waitFor({ timeout: 60000 });
  check((await fileItem("call-a.wav").getByRole("link", { name: "Open the call" }).count()) === 1, "the first file was uploaded");
  check((await fileItem("call-b.wav").getByRole("link", { name: "Open the call" }).count()) === 1, "the file after the refused one was uploaded too");
  check((await fileItem("notes.wav").getByRole("alert").textContent()).includes("UNSUPPORTED_AUDIO_FORMAT"), "the refused file shows the service's error by its name");
  await shot("09-several");
  // A folder's recordings: the folder picker sends its MP3 and WAV files only.
  const dir = mkdtempSync(join(tmpdir(), "calls-folder-"));
  copyFileSync(wavPath, join(dir, "folder-call.wav"));
  writeFileSync(join(dir, "readme.txt"), "not a call");
  await page.locator("#call-folder").setInputFiles(dir);
  check((await uploads.getByRole("listitem").allTextContents()).every((t) => !t.includes("readme.txt")) && (await fileItem("folder-call.wav").count()) === 1, "a folder's audio files are listed, its other files left out");
  await page.getByText("1 file in the folder is not MP3 or WAV").waitFor();
  await page.getByRole("button", { name: "Upload", exact: true }).click();
  await fileItem("folder-call.wav").getByRole("link", { name: "Open the call" }).waitFor({ timeout: 60000 });
  check(true, "the folder's call was uploaded");

  step = "untrusted text is shown as text";
  const xss = "<img src=x onerror=alert(1)>";
  const token = await page.evaluate(() => JSON.parse(sessionStorage.getItem("callscribe.session")).token);
  const form = new FormData();
  form.set("file", new Blob([readFileSync(wavPath)], { type: "audio/wav" }), xss + ".wav");
  const up = await fetch(base + "/dashboard/jobs", { method: "POST", headers: { Authorization: "Bearer " + token }, body: form });
  check(up.status === 202, `uploading a file named like markup (${up.status})`);
  const sum = await fetch(base + "/dashboard/summarize", {
    method: "POST",
    headers: { Authorization: "Bearer " + token, "Content-Type": "application/json" },
    body: JSON.stringify({ transcript_text: "User: " + xss + " my card was charged twice" }),
  }).then((r) => r.json());
  await page.goto(base + "/#/");
  await page.reload();
  await page.getByRole("link", { name: xss + ".wav" }).waitFor();
  await page.goto(base + "/#/jobs/" + sum.job_id);
  await page.getByRole("heading", { name: "Summary job" }).waitFor();
  await page.reload(); // the summary may have finished since the first read
  await page.locator(".derived .badge.status-succeeded").waitFor({ timeout: 30000 });
  const summary = await page.locator(".derived").textContent();
  check((await page.locator("img").count()) === 0, "no element was made from the text");
  check(!dialogs.some((m) => m === "1"), "no script ran");
  await shot("06-xss");

  step = "expired session";
  await page.evaluate(() => {
    const s = JSON.parse(sessionStorage.getItem("callscribe.session"));
    s.token = s.token.slice(0, -4) + "AAAA";
    sessionStorage.setItem("callscribe.session", JSON.stringify(s));
  });
  await page.goto(base + "/#/usage");
  await page.getByText("Your session has expired. Sign in again.").waitFor();
  check(await page.getByRole("button", { name: "Sign in", exact: true }).isVisible(), "back at sign-in with a message");
  await shot("07-expired");

  step = "narrow screen";
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-long-password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("heading", { name: "Calls", exact: true }).waitFor();
  await page.getByRole("link", { name: "call-a.wav", exact: true }).waitFor();
  await shot("08-calls-390");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `the calls page fits 390 px (${overflow} px too wide)`);
  await page.getByRole("link", { name: "call-a.wav", exact: true }).click();
  await page.getByRole("list", { name: "Transcript" }).getByRole("listitem").first().waitFor({ timeout: 30000 });
  await shot("10-review-390");

  step = "revoke on a phone";
  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByRole("button", { name: "Create API key" }).click();
  const phoneKey = await page.getByLabel("New API key").inputValue();
  const revoke = page.getByRole("button", { name: /^Revoke key / });
  await revoke.waitFor();
  check(await revoke.isVisible(), "the Revoke button shows at 390 px");
  const box = await revoke.boundingBox();
  const onTop = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest("button")?.textContent, [box.x + box.width / 2, box.y + box.height / 2]);
  check(box.x >= 0 && box.x + box.width <= 390 && onTop === "Revoke", `the whole Revoke button is on screen, not cut off by the table (x ${box.x}, width ${box.width}, at its centre: ${onTop})`);
  const keysOverflow = await page.locator(".keys-table").evaluate((t) => t.parentElement.scrollWidth - t.parentElement.clientWidth);
  check(keysOverflow <= 0, `the keys table fits without scrolling (${keysOverflow} px over)`);
  await shot("11-keys-390");
  check(await tabTo(revoke), "the Revoke button is reachable with Tab");
  await page.keyboard.press("Enter");
  await page.getByText("No API keys yet.").waitFor();
  check((await api("GET", "/v1/transcriptions", phoneKey)).status === 401, "the key revoked on a phone gets 401");
  check(iconMisses.length === 0, "no icon request failed: " + iconMisses.join(", "));
  check(pageErrors.length === 0, "no script errors: " + pageErrors.join("; "));
} catch (e) {
  failed = 1;
  console.error("FAIL " + (e && e.message ? e.message : e));
  await shot("failure").catch(() => {});
} finally {
  await browser.close();
}
console.log(`dashboard e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
