import { test } from "node:test";
import assert from "node:assert/strict";
import { callAtHref, jobHref, parseRoute, timeParam } from "../src/router";

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

test("a call's fragment may carry t, the time its audio opens at", () => {
  assert.deepEqual(parseRoute("#/calls/" + id + "?t=12.5"), { page: "job", id, t: 12.5 });
  assert.deepEqual(parseRoute("#/calls/" + id + "?t=0"), { page: "job", id, t: 0 });
  assert.deepEqual(parseRoute("#/calls/" + id + "?x=1&t=7"), { page: "job", id, t: 7 });
  assert.deepEqual(parseRoute(callAtHref(id, 83.25)), { page: "job", id, t: 83.25 });
  assert.equal(callAtHref(id, 1 / 3), "#/calls/" + id + "?t=0.333");
  // An unusable t opens the call at the start.
  for (const q of ["?t=", "?t=-3", "?t=abc", "?t=1e3", "?t=Infinity", "?t=12.", "?"]) {
    assert.deepEqual(parseRoute("#/calls/" + id + q), { page: "job", id }, q);
  }
});

test("timeParam reads seconds from a fragment's query", () => {
  assert.equal(timeParam("t=90"), 90);
  assert.equal(timeParam("t=%2012.5%20"), 12.5);
  assert.equal(timeParam("u=3"), null);
  assert.equal(timeParam(""), null);
});
