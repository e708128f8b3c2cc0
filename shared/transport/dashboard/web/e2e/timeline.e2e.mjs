// The review's timeline, metrics and word-level transcript in a real browser
// (Debian's Chromium driven by playwright-core; no browser download), against
// the page and a stand-in for the session routes that serves the fixtures in
// e2e/fixtures (the Go test TestReviewTimelineInABrowser starts both):
//
//   BASE_URL=http://127.0.0.1:PORT SESSION_TOKEN=... OUT_DIR=/tmp/shots node e2e/timeline.e2e.mjs
//
// It opens a stereo call with words, metrics and sentiment, and a mono call
// stored with segments only, checks the lanes, overtalk and silences, seeking
// by click, key and word, the play head and the spoken word following the
// audio, the t parameter, reduced motion, and writes screenshots at 1280 and
// 390 px to OUT_DIR (timeline-desktop.png, timeline-phone.png, ...). It exits
// non-zero on the first failed check.
import { chromium } from "playwright-core";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const base = process.env.BASE_URL;
const token = process.env.SESSION_TOKEN;
const outDir = process.env.OUT_DIR || "e2e-out";
if (!base || !token) {
  console.error("BASE_URL and SESSION_TOKEN are required");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const fixture = (name) => JSON.parse(readFileSync(new URL("./fixtures/" + name, import.meta.url), "utf8"));
const call = fixture("call-with-insights.json");
const mono = fixture("mono-call-plain.json");

let passed = 0;
let step = "start";
function check(cond, what) {
  if (!cond) throw new Error(`${step}: ${what}`);
  passed++;
}
const near = (a, b, tolerance = 0.3) => Math.abs(a - b) <= tolerance;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-gpu", "--autoplay-policy=no-user-gesture-required"],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
// Signed in: the session the stand-in accepts, as the sign-in page stores it.
await context.addInitScript((t) => sessionStorage.setItem("callscribe.session", JSON.stringify({ token: t, expiresAt: "2999-01-01T00:00:00Z" })), token);
const page = await context.newPage();
const pageErrors = [];
page.on("pageerror", (e) => pageErrors.push(String(e)));
page.on("console", (m) => {
  if (m.type() === "error") pageErrors.push(m.text());
});

async function shot(name) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(outDir, name + ".png"), fullPage: true });
}

/** Opens a call's review and waits until its audio can seek. */
async function open(id, query = "") {
  // A new fragment on the same page renders anew; the old player must not be taken for the new one.
  await page.evaluate(() => document.querySelector("audio")?.setAttribute("data-left", ""));
  await page.goto(base + "/#/calls/" + id + query);
  await page.waitForFunction(() => {
    const a = document.querySelector("audio:not([data-left])");
    return a && a.readyState >= 1 && !a.seeking && document.querySelector(".track") !== null;
  });
  // The seek to the route's t happens as the metadata loads.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
}

const audioTime = () => page.evaluate(() => document.querySelector("audio").currentTime);
/** Where the play head is drawn, in thousandths of the track's width. */
const playheadX = () =>
  page.evaluate(() => {
    const head = document.querySelector(".playhead").getBoundingClientRect();
    const track = document.querySelector(".track").getBoundingClientRect();
    return ((head.left + head.width / 2 - track.left) / track.width) * 1000;
  });
/** The texts of the words highlighted as spoken. */
const spokenWords = () => page.locator(".word.spoken").evaluateAll((ws) => ws.map((w) => w.firstChild.textContent));
/** The words of the fixture being spoken at t, one per speaker at most. */
function wordsAt(job, t) {
  return job.result.transcript.flatMap((s) => (s.words ?? []).filter((w) => w.start <= t && t < w.end).map((w) => w.text));
}
/** Seeks the audio from the page's side (as the player's own controls do) and waits for the page to follow. */
async function setAudioTime(t) {
  await page.evaluate((to) => {
    const a = document.querySelector("audio");
    a.pause();
    a.currentTime = to;
  }, t);
  await page.waitForFunction(() => !document.querySelector("audio").seeking);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
}

let failed = 0;
try {
  step = "lanes";
  await open(call.job_id);
  const slider = page.getByRole("slider", { name: "Call timeline" });
  const laneLabels = await page.locator(".lane-labels span").allTextContents();
  check(laneLabels.join(",") === "Agent,User", `a lane per speaker (${laneLabels})`);
  const spans = page.locator(".track .turn-span");
  check((await spans.count()) === call.result.transcript.length, `a span per turn (${await spans.count()})`);
  const classes = await spans.evaluateAll((rs) => rs.map((r) => r.getAttribute("class")));
  const wantClasses = call.result.transcript.map((s) => "sent-" + s.sentiment.label);
  check(wantClasses.every((c) => classes.some((k) => k.includes(c))) && classes.filter((k) => k.includes("sent-negative")).length === 2, `turns coloured by sentiment (${classes})`);
  // The fixture: the Agent and the User overlap near 9 and 13 s; nobody talks from the last
  // word before 15 s to 20 s (the metrics' longest silence) nor, for less than 3 s, at the end.
  const bands = (cls) => page.locator(".track ." + cls).evaluateAll((rs) => rs.map((r) => r.querySelector("title").textContent));
  const overtalk = await bands("overtalk");
  check(overtalk.length === 2 && overtalk[0].includes("00:09") && overtalk[1].includes("00:12"), `two stretches of overtalk (${overtalk})`);
  const silence = await bands("silence");
  check(silence.length === 1 && silence[0].includes("00:14–00:20") && silence[0].includes(call.result.metrics.longest_silence_seconds.toFixed(1) + " s"), `one long silence, 14.9 to 20 s as the metrics say; the 2.5 s at the end is not long (${silence})`);
  const legend = await page.getByRole("list", { name: "Timeline legend" }).textContent();
  check(legend.includes("Silence ≥ 3 s") && legend.includes("Both talk") && legend.includes("Negative"), `the legend names the marks and the silence threshold (${legend})`);
  check((await slider.getAttribute("aria-valuemax")) === "34" && (await slider.getAttribute("aria-valuenow")) === "0", "the slider spans the call and starts at 0");
  const description = await page.locator("#" + (await slider.getAttribute("aria-describedby"))).textContent();
  check(/Agent: 4 turns\. User: 3 turns\. Both talk at once 2 times\. 1 silence/.test(description), `the slider describes the drawing (${description})`);

  step = "metrics";
  const metrics = page.getByRole("region", { name: "Talk" });
  const metricsText = await metrics.textContent();
  for (const want of ["61%", "39%", "User 1", "2.8 s median", "10.0 s (longest 5.1 s)", "1.0 s, 2 times"]) check(metricsText.includes(want), `the metrics panel shows ${want} (${metricsText})`);
  const bars = await metrics.locator(".fill").evaluateAll((fs) => fs.map((f) => f.getBoundingClientRect().width / f.parentElement.getBoundingClientRect().width));
  check(near(bars[0], 0.61, 0.02) && near(bars[1], 0.39, 0.02), `talk share bars to scale (${bars})`);

  step = "sentiment by quarter";
  const quarters = page.getByRole("img", { name: /^User by quarter/ });
  check((await quarters.getAttribute("aria-label")) === "User by quarter: negative, negative, silent, positive; mixed over the call, improving", `the User's quarters (${await quarters.getAttribute("aria-label")})`);
  const cells = await quarters.locator(".cell").evaluateAll((cs) => cs.map((c) => [c.className, c.getBoundingClientRect().left]));
  const trackLeft = (await slider.boundingBox()).x;
  const trackWidth = (await slider.boundingBox()).width;
  check(cells.length === 4 && cells[3][0].includes("sent-positive") && cells[2][0].includes("sent-none"), `four cells coloured by label (${cells})`);
  check(cells.every(([, left], i) => near(left, trackLeft + (trackWidth * i) / 4, 2)), `each cell under its quarter of the timeline (${cells.map((c) => c[1])}, track at ${trackLeft})`);
  check((await page.locator(".verdicts").textContent()) === "Agent: positive, steady · User: mixed, improving", "each speaker's label and trend");

  step = "transcript words";
  const low = page.locator(".turns .word.low");
  const lowWords = await low.evaluateAll((ws) => ws.map((w) => w.firstChild.textContent));
  check(lowWords.join(",") === "Northwind,doubled", `words below 0.5 confidence are marked (${lowWords})`);
  check((await low.first().textContent()) === "Northwind (low confidence)", "and say so to a screen reader");
  check((await low.first().getAttribute("title")).startsWith("Low confidence (0.41)"), "with a tooltip saying so");
  check((await page.locator(".hint").filter({ hasText: "confidence is below 0.5" }).count()) === 1, "and a legend above the transcript");

  step = "click on the timeline seeks";
  const box = await slider.boundingBox();
  await page.mouse.click(box.x + box.width * 0.25, box.y + box.height / 2);
  await page.waitForFunction(() => !document.querySelector("audio").seeking);
  let t = await audioTime();
  check(near(t, 34 * 0.25), `a click a quarter of the way seeks to 8.5 s (currentTime ${t})`);
  check(near(await playheadX(), 250, 5), `the play head is there (${await playheadX()} of 1000)`);
  check(await slider.evaluate((s) => s === document.activeElement), "the click focuses the timeline");
  check((await slider.getAttribute("aria-valuenow")) === "8" && (await slider.getAttribute("aria-valuetext")) === "00:08 of 00:34", `the slider's value follows (${await slider.getAttribute("aria-valuetext")})`);
  check(JSON.stringify(await spokenWords()) === JSON.stringify(wordsAt(call, t)), `the word at ${t} s is highlighted (${await spokenWords()} vs ${wordsAt(call, t)})`);

  step = "keys seek";
  await page.keyboard.press("ArrowRight");
  check(near(await audioTime(), t + 5, 0.05), `ArrowRight moves 5 s (${await audioTime()})`);
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  check(near(await audioTime(), t - 5, 0.05), `ArrowLeft moves back 5 s (${await audioTime()})`);
  await page.keyboard.press("End");
  check(near(await audioTime(), 34, 0.05), `End goes to the end (${await audioTime()})`);
  await page.keyboard.press("Home");
  check((await audioTime()) === 0 && (await slider.getAttribute("aria-valuenow")) === "0", "Home goes to the start");
  await page.keyboard.press("PageUp");
  check(near(await audioTime(), 30, 0.05), `Page Up moves 30 s (${await audioTime()})`);
  // Reached by Tab from the page's top, like any control.
  await page.evaluate(() => document.activeElement.blur());
  let reached = false;
  for (let i = 0; i < 30 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await slider.evaluate((s) => s === document.activeElement);
  }
  check(reached, "the timeline is reachable with Tab");

  step = "the spoken word follows the audio";
  for (const to of [1.0, 5.5, 9.4, 13.0, 17.0, 27.0]) {
    await setAudioTime(to);
    const want = wordsAt(call, to);
    const got = await spokenWords();
    check(JSON.stringify(got) === JSON.stringify(want), `at ${to} s the highlighted words are ${JSON.stringify(want)} (got ${JSON.stringify(got)})`);
    check(near(await playheadX(), (to / 34) * 1000, 2), `the play head is at ${to} s (${await playheadX()})`);
  }
  check((await page.locator(".turn[aria-current='true']").count()) === 1, "the turn at 27 s is current");
  // Playing: the play head and the highlighted word move with the audio.
  await page.evaluate(() => {
    const a = document.querySelector("audio");
    a.muted = true;
    a.currentTime = 4.8;
    return a.play();
  });
  const before = await playheadX();
  await page.waitForFunction(() => document.querySelector("audio").currentTime > 5.6, null, { timeout: 10000 });
  check((await playheadX()) > before, `the play head moves while playing (${before} -> ${await playheadX()})`);
  await page.evaluate(() => document.querySelector("audio").pause());
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  t = await audioTime();
  check(JSON.stringify(await spokenWords()) === JSON.stringify(wordsAt(call, t)), `after playing to ${t} s the highlighted word is the one spoken then (${await spokenWords()} vs ${wordsAt(call, t)})`);

  step = "clicking a word seeks";
  const doubled = call.result.transcript[1].words.find((w) => w.text === "doubled");
  await page.locator(".word", { hasText: "doubled" }).click();
  await page.waitForFunction(() => !document.querySelector("audio").seeking);
  await page.evaluate(() => document.querySelector("audio").pause());
  t = await audioTime();
  check(t >= doubled.start && t < doubled.end + 0.5, `clicking "doubled" plays from its start ${doubled.start} (currentTime ${t})`);
  await setAudioTime(doubled.start + 0.01);
  check((await spokenWords()).includes("doubled"), "and highlights it");

  step = "desktop screenshot";
  await setAudioTime(6.2); // the User saying "doubled", a word the engine was unsure of
  await page.mouse.move(0, 0); // no hover highlight in the picture
  await shot("timeline-desktop");

  step = "t parameter";
  await open(call.job_id, "?t=12.5");
  await page.waitForFunction(() => Math.abs(document.querySelector("audio").currentTime - 12.5) < 0.01, null, { timeout: 5000 });
  check(near(await playheadX(), (12.5 / 34) * 1000, 2), `#/calls/ID?t=12.5 opens at 12.5 s (play head ${await playheadX()})`);
  check((await slider.getAttribute("aria-valuenow")) === "12", "the slider says 12");
  check(JSON.stringify(await spokenWords()) === JSON.stringify(wordsAt(call, 12.5)), `the word at 12.5 s is highlighted (${await spokenWords()})`);
  await open(call.job_id, "?t=500");
  await page.waitForFunction(() => Math.abs(document.querySelector("audio").currentTime - 34) < 0.05, null, { timeout: 5000 }).catch(() => {});
  check(near(await audioTime(), 34, 0.05), `a t past the end opens at the end (${await audioTime()})`);

  step = "reduced motion";
  await page.emulateMedia({ reducedMotion: "reduce" });
  check((await page.locator(".word").first().evaluate((w) => getComputedStyle(w).transitionDuration)) === "0s", "no transitions when the reader asks for less motion");
  await page.emulateMedia({ reducedMotion: "no-preference" });
  check((await page.locator(".word").first().evaluate((w) => getComputedStyle(w).transitionDuration)) !== "0s", "and short ones otherwise");

  step = "a mono call without words, metrics or sentiment";
  await open(mono.job_id);
  check((await page.locator(".lane-labels span").allTextContents()).join(",") === "Agent", "one lane");
  check((await page.locator(".track .turn-span.agent").count()) === 2, "its turns in the speaker's colour");
  check((await page.locator(".track .overtalk").count()) === 0, "no overtalk");
  check((await page.locator(".track .silence").count()) === 1, "the 4 s gap is a long silence, the 1.5 s at the end is not");
  const monoLegend = await page.getByRole("list", { name: "Timeline legend" }).textContent();
  check(monoLegend.includes("Agent turn") && !monoLegend.includes("Positive") && !monoLegend.includes("Both talk"), `its legend lists what it shows (${monoLegend})`);
  check((await page.locator(".metrics").count()) === 0 && (await page.locator(".sentiment-view").count()) === 0 && (await page.locator(".word").count()) === 0, "no metrics panel, no sentiment, no word spans");
  check((await page.getByRole("list", { name: "Transcript" }).getByRole("listitem").count()) === 2, "its turns are listed");
  // The click starts playback, so by the time the play head is read it has
  // moved on by up to the time since the click (more on a loaded machine).
  const clickedAt = Date.now();
  await page.locator(".turn").nth(1).click();
  const playedFrom = await audioTime();
  const sinceClick = (Date.now() - clickedAt) / 1000;
  check(playedFrom >= 8.0 - 0.05 && playedFrom <= 8.0 + sinceClick + 0.05, `clicking a turn plays from it (${playedFrom} s, read ${sinceClick.toFixed(2)} s after the click)`);
  await page.evaluate(() => document.querySelector("audio").pause());

  step = "phone width";
  await page.setViewportSize({ width: 390, height: 844 });
  await open(call.job_id, "?t=9.4");
  await page.waitForFunction(() => Math.abs(document.querySelector("audio").currentTime - 9.4) < 0.01);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(overflow <= 0, `the review fits 390 px (${overflow} px too wide)`);
  const trackBox = await slider.boundingBox();
  const metricsBox = await page.locator(".metrics").boundingBox();
  const timelineBox = await page.locator(".timeline-col").boundingBox();
  check(metricsBox.y >= timelineBox.y + timelineBox.height && near(metricsBox.x, timelineBox.x, 1) && near(metricsBox.width, timelineBox.width, 1), `the metrics panel sits under the timeline, as wide (${JSON.stringify(timelineBox)} / ${JSON.stringify(metricsBox)})`);
  await page.mouse.click(trackBox.x + trackBox.width * 0.5, trackBox.y + trackBox.height / 2);
  await page.waitForFunction(() => !document.querySelector("audio").seeking);
  check(near(await audioTime(), 17, 0.5), `a tap seeks at phone width (${await audioTime()})`);
  await setAudioTime(6.2);
  await page.mouse.move(0, 0);
  await shot("timeline-phone");
  check(pageErrors.length === 0, "no script errors: " + pageErrors.join("; "));
} catch (e) {
  failed = 1;
  const message = e && e.message ? e.message : String(e);
  // A check names its step; a timeout from playwright does not.
  console.error("FAIL " + (message.startsWith(step + ":") ? message : step + ": " + message));
  await shot("failure").catch(() => {});
} finally {
  await browser.close();
}
console.log(`timeline e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
