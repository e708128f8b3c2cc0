// Browser test of the dashboard's webhook screens (Debian's Chromium driven
// by playwright-core), against a running embedded service that may call
// 127.0.0.1 (CALLBACK_ALLOW_HOSTS) and retries within a second
// (CALLBACK_BACKOFF_BASE of a few hundred ms):
//
//   BASE_URL=http://127.0.0.1:8080 OUT_DIR=/tmp/shots node e2e/webhooks.e2e.mjs
//
// A receiver in this script refuses two deliveries and accepts the third,
// verifying each signature with node:crypto the Standard Webhooks way. The
// keys page must show the signing secret that verified them and rotate it;
// the tags job's page must list the three attempts. Screenshots go to OUT_DIR.
import { chromium } from "playwright-core";
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const base = process.env.BASE_URL;
const outDir = process.env.OUT_DIR || "e2e-out";
if (!base) {
  console.error("BASE_URL is required");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

let passed = 0;
let step = "start";
function check(cond, what) {
  if (!cond) throw new Error(`${step}: ${what}`);
  passed++;
}

/** Standard Webhooks verification, as a receiver written in JavaScript does it. */
function verify(secret, headers, body) {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const signed = `${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${body}`;
  const expected = createHmac("sha256", key).update(signed).digest();
  const fresh = Math.abs(Date.now() / 1000 - Number(headers["webhook-timestamp"])) < 300;
  return fresh && (headers["webhook-signature"] || "").split(" ").some((s) => {
    const [version, sig] = s.split(",");
    const got = Buffer.from(sig || "", "base64");
    return version === "v1" && got.length === expected.length && timingSafeEqual(got, expected);
  });
}

const received = [];
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    received.push({ headers: req.headers, body });
    res.statusCode = received.length < 3 ? 503 : 204;
    res.end();
  });
});
await new Promise((ok) => receiver.listen(0, "127.0.0.1", ok));
const hook = `http://127.0.0.1:${receiver.address().port}/hooks/tags`;

async function call(method, path, token, body) {
  const headers = token ? { Authorization: "Bearer " + token } : {};
  if (body) headers["Content-Type"] = "application/json";
  const r = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  return { status: r.status, body: await r.json().catch(() => null) };
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-gpu"],
});
const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
page.on("dialog", (d) => d.accept());
const pageErrors = [];
page.on("pageerror", (e) => pageErrors.push(String(e)));
const shot = (name) => page.screenshot({ path: join(outDir, name + ".png"), fullPage: true });

let failed = 0;
try {
  step = "account";
  const creds = { email: `hooks-${Date.now()}@example.com`, password: "a-long-password" };
  check((await call("POST", "/dashboard/signup", null, creds)).status === 201, "signed up");
  const login = await call("POST", "/dashboard/login", null, creds);
  check(login.status === 200, "signed in");
  const session = login.body.token;
  const key = (await call("POST", "/dashboard/api-keys", session)).body.api_key;

  step = "tag with a callback";
  const tagged = await call("POST", "/v1/tag", key, {
    transcript_text: "Agent: Thanks for calling.\nUser: I was charged twice and want a refund.\nAgent: I have refunded the second charge.",
    callback_url: hook,
    call_uuid: "call-42",
  });
  check(tagged.status === 202, `tag accepted (${tagged.status})`);
  const jobId = tagged.body.job_id;
  for (let i = 0; i < 200 && received.length < 3; i++) await new Promise((ok) => setTimeout(ok, 50));
  check(received.length === 3, `the receiver got 3 attempts (${received.length})`);
  const secret = (await call("GET", "/dashboard/signing-secret", session)).body.signing_secret;
  check(received.every((r) => verify(secret, r.headers, r.body)), "every attempt verifies with the account's signing secret");
  check(new Set(received.map((r) => r.headers["webhook-id"])).size === 1, "one webhook-id across the attempts");
  check(!verify("whsec_" + Buffer.from("not the secret").toString("base64"), received[0].headers, received[0].body), "another secret does not verify");

  step = "keys page";
  await page.goto(base + "/");
  await page.evaluate((s) => sessionStorage.setItem("callscribe.session", JSON.stringify(s)), { token: session, expiresAt: login.body.expires_at });
  await page.goto(base + "/#/keys");
  const field = page.getByRole("textbox", { name: "Signing secret" });
  await field.waitFor();
  check((await field.inputValue()) === secret, "the keys page shows the secret that signed the deliveries");
  await shot("webhooks-01-keys");
  await page.getByRole("button", { name: "Rotate secret" }).click();
  await page.getByText("The previous secret keeps signing deliveries beside this one until").waitFor();
  const rotated = await field.inputValue();
  check(rotated !== secret && rotated.startsWith("whsec_"), "rotation shows a new secret");
  await shot("webhooks-02-rotated");

  step = "deliveries";
  await page.goto(base + "/#/jobs/" + jobId);
  const rows = page.locator(".deliveries-table tbody tr");
  await page.getByRole("heading", { name: "Deliveries" }).waitFor();
  for (let i = 0; i < 100 && (await rows.count()) < 3; i++) {
    await page.getByRole("button", { name: "Refresh" }).click();
    await page.waitForTimeout(100);
  }
  check((await rows.count()) === 3, `three attempts listed (${await rows.count()})`);
  const text = await page.locator(".deliveries-table").innerText();
  check(/#3[\s\S]*204[\s\S]*Delivered/.test(text) && /#1[\s\S]*503[\s\S]*Retried/.test(text), `the table says what happened:\n${text}`);
  check(text.includes("127.0.0.1:" + receiver.address().port) && !text.includes("/hooks/tags"), "the host is shown, the path is not");
  await shot("webhooks-03-deliveries");
  check(pageErrors.length === 0, `no page errors: ${pageErrors.join("; ")}`);
} catch (e) {
  failed = 1;
  console.error(String(e));
  await shot("webhooks-failed").catch(() => {});
} finally {
  await browser.close();
  receiver.close();
}
console.log(`webhooks e2e: ${passed} checks passed${failed ? ", then one failed" : ""}; screenshots in ${outDir}`);
process.exit(failed);
