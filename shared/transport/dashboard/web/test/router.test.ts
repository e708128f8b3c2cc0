import { test } from "node:test";
import assert from "node:assert/strict";
import { jobHref, parseRoute } from "../src/router";

const id = "0b6f1c7e-2d3a-4c5b-8e9f-0a1b2c3d4e5f";

test("parseRoute names the page of each fragment", () => {
  assert.deepEqual(parseRoute(""), { page: "calls" });
  assert.deepEqual(parseRoute("#/"), { page: "calls" });
  assert.deepEqual(parseRoute("#/signin"), { page: "signin" });
  assert.deepEqual(parseRoute("#/keys"), { page: "keys" });
  assert.deepEqual(parseRoute("#/usage"), { page: "usage" });
  assert.deepEqual(parseRoute("#/calls/" + id), { page: "job", id });
  assert.deepEqual(parseRoute("#/jobs/" + id), { page: "job", id });
});

test("parseRoute sends anything it does not know to the calls list", () => {
  assert.deepEqual(parseRoute("#/calls/not-an-id"), { page: "calls" });
  assert.deepEqual(parseRoute("#/calls/" + id.toUpperCase()), { page: "calls" });
  assert.deepEqual(parseRoute("#/calls/" + id + "/x"), { page: "calls" });
  assert.deepEqual(parseRoute("#/keys/"), { page: "calls" });
  assert.deepEqual(parseRoute("#/nowhere"), { page: "calls" });
});

test("jobHref opens transcriptions as calls and other jobs as jobs", () => {
  assert.equal(jobHref("transcription", id), "#/calls/" + id);
  assert.equal(jobHref("summary", id), "#/jobs/" + id);
  assert.equal(jobHref("tags", id), "#/jobs/" + id);
  assert.deepEqual(parseRoute(jobHref("tags", id)), { page: "job", id });
});
