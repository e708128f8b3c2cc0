package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/testkit/apitest"
)

// realDialogue is a short billing call; synthcall speaks the Agent on the left
// channel and the User on the right with different flite voices.
const realDialogue = `Agent: Thank you for calling, my name is Sarah. How can I help you today?
User: Hello, I was charged twice for my bill this month.
Agent: I am sorry about that. I can see the second payment, I will refund it now.
User: Thank you, that is great.
`

// TestBlackBoxRealEngine runs the binary `make run` runs (no test tags, the
// default TRANSCRIBER=sphinx and built-in summarizer and tagger) on a
// synthesised 8 kHz stereo call and drives the whole product path over HTTP.
func TestBlackBoxRealEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary with the embedded speech engine")
	}
	for _, tool := range []string{"flite", "sox"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed; run make deps-speech", tool)
		}
	}
	t.Parallel()
	dir := t.TempDir()
	dialogue := filepath.Join(dir, "call.txt")
	if err := os.WriteFile(dialogue, []byte(realDialogue), 0o600); err != nil {
		t.Fatal(err)
	}
	wav, ref := filepath.Join(dir, "call.wav"), filepath.Join(dir, "call.json")
	synth := exec.Command(apitest.GoTool(), "run", "../bench/cmd/synthcall",
		"-in", dialogue, "-out", wav, "-rate", "8000", "-ref", ref)
	if out, err := synth.CombinedOutput(); err != nil {
		t.Fatalf("synthcall: %v\n%s", err, out)
	}
	audio, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	var reference struct {
		Duration float64 `json:"duration"`
	}
	if b, err := os.ReadFile(ref); err != nil || json.Unmarshal(b, &reference) != nil {
		t.Fatalf("reading the reference %s: %v", ref, err)
	}

	svc := startBinary(t, build(t, ""), "TRANSCRIBER=", "SUMMARIZER=", "TAGGER=", "WORKERS=1", "AGENT_CHANNEL=")
	apitest.RunRealCall(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: 60 * time.Second}, apitest.RealCall{
		Filename:   "billing-call.wav",
		Audio:      audio,
		Seconds:    reference.Duration,
		AgentWords: []string{"calling", "help"},
		UserWords:  []string{"charged", "twice"},
	})
}
