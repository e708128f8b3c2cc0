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

// TestBlackBoxRedactionRealEngine runs the binary `make run` runs on a
// synthesised call that reads out a card number, a phone number and an
// e-mail address, uploaded with redact_pii=true. The embedded engine (not
// the test engine, whose fixed lines hold no personal data) turns the speech
// into the words redaction works on, so the test shows what a real
// recogniser's output gives. Once the jobs are done, the SQLite database and
// its WAL, the audio directory, the service's temporary directory and its
// debug-level log are searched for the spoken values.
func TestBlackBoxRedactionRealEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary with the embedded speech engine")
	}
	t.Parallel()
	call := apitest.SynthesizePIICall(t)
	tmp := t.TempDir()
	svc := startBinary(t, binaries.Build(t, ""), "TRANSCRIBER=", "SUMMARIZER=", "TAGGER=", "WORKERS=1", "AGENT_CHANNEL=",
		"LOG_LEVEL=debug", "TMPDIR="+tmp, "REDACT_PII=")
	apitest.RunRedactedCall(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: apitest.RealCallTimeout}, call,
		func() []string { return []string{svc.dataDir, svc.logPath, tmp} })
}

// TestBlackBoxRedactionMP3RealEngine is TestBlackBoxRedactionRealEngine with
// the call uploaded as an 8 kHz MP3: playback then serves the toned WAV
// rendition, and neither the MP3 nor its untoned samples are left anywhere.
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
