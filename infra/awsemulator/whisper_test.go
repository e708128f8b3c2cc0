package main

import (
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/testkit/apitest"
	"github.com/callscribe/callscribe/shared/testkit/whisperstandin"
)

// TestBlackBoxAWSLocalWhisperServer runs the emulation with TRANSCRIBER=openai
// against the Whisper-compatible stand-in, as infra/embeddedserver's
// TestBlackBoxWhisperServer: the same checks through the Lambda handlers, the
// SQS-triggered worker and the stored result.
func TestBlackBoxAWSLocalWhisperServer(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary with the local AWS servers")
	}
	t.Parallel()
	const key, model = "sk-standin-0123456789", "whisper-1"
	standIn := whisperstandin.Start(t, whisperstandin.OpenAI, key)
	// The base URL without /v1 here and with it in infra/embeddedserver's
	// test: OPENAI_BASE_URL takes both.
	svc := startService(t, "", "TRANSCRIBER=openai", "OPENAI_BASE_URL="+standIn.URL, "OPENAI_API_KEY="+key,
		"OPENAI_TRANSCRIBE_MODEL="+model, "OPENAI_TIMEOUT=10s", "AGENT_CHANNEL=0")
	apitest.RunWhisperServer(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: 90 * time.Second},
		apitest.WhisperServer{StandIn: standIn, APIKey: key, Model: model})
}
