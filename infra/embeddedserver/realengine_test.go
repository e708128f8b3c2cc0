package main

import (
	"testing"

	"github.com/callscribe/callscribe/shared/testkit/apitest"
)

// TestBlackBoxRealEngine runs the binary `make run` runs (no test tags, the
// default TRANSCRIBER=sphinx and built-in summarizer and tagger) on a
// synthesised 8 kHz stereo call and drives the whole product path over HTTP.
func TestBlackBoxRealEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary with the embedded speech engine")
	}
	t.Parallel()
	call := apitest.SynthesizeCall(t, apitest.BillingCall, []string{"calling", "help"}, []string{"charged", "twice"})
	svc := startBinary(t, binaries.Build(t, ""), "TRANSCRIBER=", "SUMMARIZER=", "TAGGER=", "WORKERS=1", "AGENT_CHANNEL=")
	apitest.RunRealCall(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: apitest.RealCallTimeout}, call)
}

// TestBlackBoxRedactionMP3RealEngine runs the binary `make run` runs on a
// synthesised call that reads out a card number, a phone number and an
// e-mail address, uploaded as an 8 kHz MP3 with redact_pii=true. The embedded
// engine (not the test engine, whose fixed lines hold no personal data) turns
// the speech into the words redaction works on, so the test shows what a real
// recogniser's output gives. Playback serves the toned WAV rendition, and
// neither the MP3 nor its untoned samples are left anywhere: once the jobs are
// done, the SQLite database and its WAL, the audio directory, the service's
// temporary directory and its debug-level log are searched for the spoken
// values.
//
// The MP3 upload takes every step a WAV upload does (the engine's words
// redacted, the toned audio stored and played back) and its own besides, so a
// WAV upload's real-engine decode is not run here too (it costs some 17
// CPU-seconds); the pipeline's own tests tone a WAV upload in place
// (TestRedactedTranscriptionTonesTheWAV).
func TestBlackBoxRedactionMP3RealEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary with the embedded speech engine")
	}
	t.Parallel()
	call := apitest.SynthesizePIICall(t).MP3(t)
	tmp := t.TempDir()
	svc := startBinary(t, binaries.Build(t, ""), "TRANSCRIBER=", "SUMMARIZER=", "TAGGER=", "WORKERS=1", "AGENT_CHANNEL=",
		"LOG_LEVEL=debug", "TMPDIR="+tmp, "REDACT_PII=")
	apitest.RunRedactedCall(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: apitest.RealCallTimeout}, call,
		func() []string { return []string{svc.dataDir, svc.logPath, tmp} })
}
