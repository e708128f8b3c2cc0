import { test } from "node:test";
import assert from "node:assert/strict";
import type { Limits } from "../src/api/types";
import { listPageSize, refuseUpload, uploadHint } from "../src/limits";

const lim: Limits = {
  max_audio_bytes: 10 << 20,
  direct_upload_max_bytes: 4 << 20,
  audio_formats: ["mp3", "wav"],
  max_metadata_bytes: 64 << 10,
  default_page_size: 10,
  max_page_size: 100,
  requestId: "r",
};

test("uploadHint states the limit the service gave, and no size before it is read", () => {
  assert.equal(uploadHint(lim), "MP3 or WAV, up to 10 MB; stereo calls are split into Agent (left) and User (right).");
  assert.equal(uploadHint({ ...lim, max_audio_bytes: 25 << 20 }), "MP3 or WAV, up to 25 MB; stereo calls are split into Agent (left) and User (right).");
  assert.doesNotMatch(uploadHint(null), /MB/);
});

test("refuseUpload refuses a file or metadata over the limits, and nothing at them", () => {
  assert.equal(refuseUpload(10 << 20, 0, lim), null);
  assert.equal(refuseUpload((10 << 20) + 1, 0, lim), "This file is 10 MB; the limit is 10 MB.");
  assert.equal(refuseUpload(12 << 20, 0, lim), "This file is 12 MB; the limit is 10 MB.");
  assert.equal(refuseUpload(1, 64 << 10, lim), null);
  assert.equal(refuseUpload(1, 65 << 10, lim), "The metadata is 65 KB; the limit is 64 KB.");
});

test("listPageSize asks for 20 within the service's maximum", () => {
  assert.equal(listPageSize(null), 20);
  assert.equal(listPageSize(lim), 20);
  assert.equal(listPageSize({ ...lim, max_page_size: 5 }), 5);
});
