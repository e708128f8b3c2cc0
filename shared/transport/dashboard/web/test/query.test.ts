import { test } from "node:test";
import assert from "node:assert/strict";
import { jobsQuery } from "../src/api/query";

test("jobsQuery sends the limit, the filters that are set, and the cursor", () => {
  assert.equal(jobsQuery({}, null, 20), "limit=20");
  assert.equal(jobsQuery({ status: "", type: "", language: "", created_after: "" }, null, 20), "limit=20");
  assert.equal(
    jobsQuery({ status: "failed", type: "transcription", language: "en", created_after: "2026-01-01T00:00:00.000Z" }, "abc", 5),
    "limit=5&status=failed&type=transcription&language=en&created_after=2026-01-01T00%3A00%3A00.000Z&cursor=abc",
  );
});

test("jobsQuery escapes what it is given", () => {
  const q = new URLSearchParams(jobsQuery({ language: "en&x=1" }, "a+b/c=", 20));
  assert.equal(q.get("language"), "en&x=1");
  assert.equal(q.get("cursor"), "a+b/c=");
  assert.equal(q.get("x"), null);
});

test("jobsQuery sends a job_id filter for one job's list entry", () => {
  assert.equal(jobsQuery({ job_id: "0b6f4f3e-8f5e-4b8e-9d3a-1f2e3d4c5b6a" }, null, 1), "limit=1&job_id=0b6f4f3e-8f5e-4b8e-9d3a-1f2e3d4c5b6a");
});
