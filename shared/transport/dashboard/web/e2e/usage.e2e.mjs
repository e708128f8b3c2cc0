// Browser test of the usage page's daily chart (Debian's Chromium driven by
// playwright-core; no browser download), against a running service:
//
//   BASE_URL=http://127.0.0.1:8080 CALL_WAV=call.wav OUT_DIR=/tmp/shots node e2e/usage.e2e.mjs
//
// It signs up in the page, uploads CALL_WAV (6 s) with language "en" through
// the API, then checks the usage page: two monthly charts whose today bar says
// 0.10 minutes and 1 call to a screen reader, reachable with Tab and moved
// with the arrow keys, the same figure in the table, "en" among the top
// languages, and a page that fits a phone. Screenshots at 1280 and 390 px
// wide go to OUT_DIR.
import { chromium } from "playwright-core";
import { readFileSync, mkdirSync } from "node:fs";
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
  args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-gpu"],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
const page = await context.newPage();
const pageErrors = [];
page.on("pageerror", (e) => pageErrors.push(String(e)));

async function shot(name) {
  await page.mouse.move(0, 0); // no bar under the pointer: the readout shows the focused bar only
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(outDir, name + ".png"), fullPage: true });
}

async function tabTo(target, max = 40) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    if (await target.evaluate((el) => el === document.activeElement)) return true;
  }
  return false;
}

const focusedLabel = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "");
const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const dayName = (d) => `${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}`;

let failed = 0;
try {
  step = "sign up";
  const email = `usage-e2e-${Date.now()}@example.com`;
  await page.goto(base + "/");
  await page.waitForURL(/#\/signin$/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a-long-password");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.getByRole("heading", { name: "Calls", exact: true }).waitFor();
  const token = await page.evaluate(() => JSON.parse(sessionStorage.getItem("callscribe.session")).token);

  step = "upload";
  const key = await fetch(base + "/dashboard/api-keys", { method: "POST", headers: { Authorization: "Bearer " + token, "Content-Type": "application/json" }, body: "{}" }).then((r) => r.json());
  check(typeof key.api_key === "string", "an API key was created");
  const form = new FormData();
  form.append("file", new Blob([readFileSync(wavPath)], { type: "audio/wav" }), "call.wav");
  form.append("language", "en");
  const upload = await fetch(base + "/v1/transcriptions", { method: "POST", headers: { Authorization: "Bearer " + key.api_key }, body: form });
  check(upload.status === 202, `the upload is accepted (${upload.status})`);
  const today = new Date();

  step = "chart";
  await page.goto(base + "/#/usage");
  await page.getByRole("heading", { name: "Minutes per day" }).waitFor();
  const charts = page.getByRole("group", { name: /^Minutes per day, / });
  check((await charts.count()) === 2, "two monthly charts");
  const thisMonth = today.toLocaleString("en-GB", { month: "long", timeZone: "UTC" }) + " " + today.getUTCFullYear();
  check((await charts.nth(1).getAttribute("aria-label")) === "Minutes per day, " + thisMonth, `the second chart is ${thisMonth}`);
  const todayLabel = `${dayName(today)}: 0.10 minutes, 1 call`;
  const todayBar = page.getByRole("img", { name: todayLabel, exact: true });
  check((await todayBar.count()) === 1, `a bar says "${todayLabel}"`);
  const barHeight = await todayBar.locator(".bar-value").evaluate((r) => r.getBoundingClientRect().height);
  const chartHeight = await charts.nth(1).evaluate((s) => s.getBoundingClientRect().height);
  // The only busy day tops the scale (0.1 minutes on a 0.1-minute scale).
  check(barHeight > chartHeight * 0.9, `today's bar is drawn to scale (${barHeight} of ${chartHeight} px)`);
  await shot("usage-1280");

  step = "keyboard";
  await page.evaluate(() => document.activeElement?.blur());
  check(await tabTo(todayBar), "Tab reaches today's bar");
  check((await page.locator(".bar-chart-readout").nth(1).textContent()) === todayLabel, "the readout shows the focused bar's value");
  await page.keyboard.press("Home");
  check((await focusedLabel()).startsWith(`1 ${months[today.getUTCMonth()]} `), `Home moves to the 1st (${await focusedLabel()})`);
  await page.keyboard.press("ArrowRight");
  check((await focusedLabel()).startsWith(`2 ${months[today.getUTCMonth()]} `), `ArrowRight moves to the 2nd (${await focusedLabel()})`);
  check((await page.locator(".bar-chart-readout").nth(1).textContent()) === (await focusedLabel()), "the readout follows the focus");
  // A bar's blur settles its chart's readout on the next task (barChart.ts),
  // so the other chart's is read once that has run, not at once.
  const otherCleared = await page
    .waitForFunction(() => document.querySelectorAll(".bar-chart-readout")[0].textContent.trim() === "", null, { timeout: 2000 })
    .then(() => true, () => false);
  check(otherCleared, `the other month's readout is empty once its bars lost the focus (${await page.locator(".bar-chart-readout").nth(0).textContent()})`);
  await shot("usage-1280-focus");

  step = "table and languages";
  await page.getByText("Show the days as a table").click();
  const row = page.getByRole("row", { name: new RegExp(`^${dayName(today)} 0\\.10 1$`) });
  check((await row.count()) === 1, "the table has today's row with 0.10 minutes and 1 call");
  const languages = page.getByRole("list", { name: "Top languages by minutes" });
  check(/en\s*0\.10 minutes/.test(await languages.textContent()), `en is a top language with 0.10 minutes (${await languages.textContent()})`);

  step = "phone";
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.getByRole("heading", { name: "Minutes per day" }).waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `the usage page fits 390 px (${overflow} px too wide)`);
  const bar = await page.getByRole("img", { name: todayLabel, exact: true }).boundingBox();
  check(bar && bar.width >= 4, `today's bar keeps a visible width on a phone (${bar && bar.width} px)`);
  await shot("usage-390");
  check(pageErrors.length === 0, "no script errors: " + pageErrors.join("; "));
} catch (e) {
  failed = 1;
  console.error("FAIL " + (e && e.message ? e.message : e));
  await shot("failure").catch(() => {});
} finally {
  await browser.close();
}
console.log(`usage e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
