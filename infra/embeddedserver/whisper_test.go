package main

import (
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/testkit/apitest"
	"github.com/callscribe/callscribe/shared/testkit/whisperstandin"
)

// TestBlackBoxWhisperServer runs the binary with TRANSCRIBER=openai against a
// local Whisper-compatible stand-in that hears the audio it is sent, so the
// product path teams use with a speaches, whisper.cpp or OpenAI server is
// checked end to end: settings sent, channels as speakers, times, and the
// failures a wrong key or a server that is down give.
func TestBlackBoxWhisperServer(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary")
	}
	t.Parallel()
	const key, model = "sk-standin-0123456789", "Systran/faster-whisper-small"
	standIn := whisperstandin.Start(t, whisperstandin.OpenAI, key)
	svc := startService(t, "TRANSCRIBER=openai", "OPENAI_BASE_URL="+standIn.URL+"/v1", "OPENAI_API_KEY="+key,
		"OPENAI_TRANSCRIBE_MODEL="+model, "OPENAI_TIMEOUT=10s", "AGENT_CHANNEL=0")
	apitest.RunWhisperServer(t, svc, apitest.Options{QuotaMinutes: quotaMinutes}, apitest.WhisperServer{StandIn: standIn, APIKey: key, Model: model})
}

// TestBlackBoxWhisperServerTimeout: a server slower than OPENAI_TIMEOUT (a
// long call on a CPU server) fails the job at once with provider_timeout.
func TestBlackBoxWhisperServerTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary")
	}
	t.Parallel()
	const key, model = "sk-standin-0123456789", "whisper-1"
	standIn := whisperstandin.Start(t, whisperstandin.Speaches, key)
	svc := startService(t, "TRANSCRIBER=openai", "OPENAI_BASE_URL="+standIn.URL, "OPENAI_API_KEY="+key,
		"OPENAI_TRANSCRIBE_MODEL="+model, "OPENAI_TIMEOUT=300ms", "AGENT_CHANNEL=0")
	apitest.RunWhisperTimeout(t, svc, apitest.Options{QuotaMinutes: quotaMinutes}, apitest.WhisperServer{StandIn: standIn, APIKey: key, Model: model}, 3*time.Second)
}
