import { test } from "node:test";
import assert from "node:assert/strict";
import type { Job } from "../src/api/types";
import { errorOf, sourceOf, summaryOf, tagsOf, transcriptOf } from "../src/api/types";

const base = { job_id: "j", created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z", requestId: "r" };
const segment = { text: "hello", time_start: 0, time_end: 1.5, speaker_id: 1, speaker_alias: "Agent" };
// The wire shape, as the service sends it; the document types result loosely.
const job = (j: Record<string, unknown>) => ({ ...base, ...j }) as unknown as Job;

test("transcriptOf reads a succeeded transcription's segments, and nothing else's", () => {
  const result = { language: "en", duration_seconds: 2, words_count: 1, transcript: [segment] };
  assert.deepEqual(transcriptOf(job({ type: "transcription", status: "succeeded", result })), [segment]);
  assert.deepEqual(transcriptOf(job({ type: "transcription", status: "processing" })), []);
  assert.deepEqual(transcriptOf(job({ type: "summary", status: "succeeded", result })), []);
});

test("summaryOf and tagsOf read their own job type's result only", () => {
  const summary = { topic: "Billing", summary: "Charged twice.", meta_data: null };
  const tags = { tags: { call_reason: ["billing"] }, meta_data: null };
  assert.deepEqual(summaryOf(job({ type: "summary", status: "succeeded", result: summary })), summary);
  assert.equal(summaryOf(job({ type: "tags", status: "succeeded", result: tags })), null);
  assert.equal(summaryOf(job({ type: "summary", status: "queued" })), null);
  assert.deepEqual(tagsOf(job({ type: "tags", status: "succeeded", result: tags })), tags);
  assert.equal(tagsOf(job({ type: "summary", status: "succeeded", result: summary })), null);
});

test("errorOf is a failed job's error; sourceOf a derived job's source", () => {
  const error = { code: "bad_audio", message: "Unreadable." };
  assert.deepEqual(errorOf(job({ type: "transcription", status: "failed", error })), error);
  assert.equal(errorOf(job({ type: "transcription", status: "succeeded", result: {} })), null);
  assert.equal(sourceOf(job({ type: "tags", status: "queued", source_job_id: "s" })), "s");
  assert.equal(sourceOf(job({ type: "summary", status: "queued" })), null);
});
