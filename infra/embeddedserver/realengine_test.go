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
	svc := startBinary(t, build(t, ""), "TRANSCRIBER=", "SUMMARIZER=", "TAGGER=", "WORKERS=1", "AGENT_CHANNEL=")
	apitest.RunRealCall(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: apitest.RealCallTimeout}, call)
}
