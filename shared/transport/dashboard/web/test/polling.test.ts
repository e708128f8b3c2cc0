import { test } from "node:test";
import assert from "node:assert/strict";
import { finished, nextDelay } from "../src/polling";

test("nextDelay grows by half and stops at 15 s", () => {
  assert.equal(nextDelay(1000), 1500);
  assert.equal(nextDelay(1500), 2250);
  assert.equal(nextDelay(12000), 15000);
  assert.equal(nextDelay(15000), 15000);
});

test("finished is true for succeeded and failed only", () => {
  assert.deepEqual(["queued", "processing", "succeeded", "failed"].map(finished), [false, false, true, true]);
});
