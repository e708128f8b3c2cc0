import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiError } from "../src/api/error";
import { describe } from "../src/errors";

const err = (code: string, message = "m", details?: Record<string, unknown>, requestId = "") => new ApiError(400, code, message, details, requestId);

test("FILE_TOO_LARGE names the limit the service gave, or none before it is read", () => {
  assert.equal(describe(err("FILE_TOO_LARGE"), 25 << 20), "The file is larger than the 25 MB limit.");
  assert.equal(describe(err("FILE_TOO_LARGE"), null), "The file is larger than this service's upload limit.");
});

test("QUOTA_EXCEEDED reads its details", () => {
  assert.equal(
    describe(err("QUOTA_EXCEEDED", "m", { file_minutes: 3, used_minutes: 58.5, limit_minutes: 60 }), null),
    "This upload (3 min) would exceed your monthly quota: 58.5 of 60 minutes used.",
  );
});

test("other codes show the message with the request id", () => {
  assert.equal(describe(err("INVALID_KEYTERMS", "Too many key terms.", undefined, "req-1"), null), "Too many key terms. (request req-1)");
  assert.equal(describe(err("INVALID_KEYTERMS", "Too many key terms."), null), "Too many key terms.");
  assert.equal(describe(new Error("boom"), null), "Something went wrong: Error: boom");
});
