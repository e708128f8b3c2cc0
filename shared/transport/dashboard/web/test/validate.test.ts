import { test } from "node:test";
import assert from "node:assert/strict";
import { callbackUrlProblem, isAudioName } from "../src/validate";

test("callbackUrlProblem accepts http and https URLs with a host", () => {
  assert.equal(callbackUrlProblem("https://example.com/hook"), null);
  assert.equal(callbackUrlProblem("http://10.0.0.5:8080/cb?x=1"), null);
});

test("callbackUrlProblem refuses other schemes and what is not a URL", () => {
  assert.match(callbackUrlProblem("ftp://example.com/hook")!, /https/);
  assert.match(callbackUrlProblem("javascript:alert(1)")!, /https/);
  assert.match(callbackUrlProblem("example.com/hook")!, /full URL/);
  assert.match(callbackUrlProblem("")!, /full URL/);
});

test("isAudioName picks MP3 and WAV files by name, in any case", () => {
  assert.equal(isAudioName("call.WAV"), true);
  assert.equal(isAudioName("a/b/call.mp3"), true);
  assert.equal(isAudioName("notes.txt"), false);
  assert.equal(isAudioName("wav"), false);
});
