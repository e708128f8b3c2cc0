package app

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/callscribe/callscribe/shared/awstranscribe"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/llminsights"
)

// isolateAWSEnv keeps the default credential chain away from any real profile
// or credentials on the machine.
func isolateAWSEnv(t *testing.T) {
	t.Setenv("AWS_CA_BUNDLE", "")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "eu-west-1")
}

func TestAWSProvidersBuildWithoutCallingAWS(t *testing.T) {
	isolateAWSEnv(t)
	var hits atomic.Int32
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		path = r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"output": map[string]any{"message": map[string]any{"role": "assistant", "content": []any{
				map[string]any{"toolUse": map[string]any{"toolUseId": "t", "name": "record_call_summary", "input": map[string]any{"topic": "Billing", "summary": "Charged twice."}}},
			}}},
			"stopReason": "tool_use",
		})
	}))
	defer srv.Close()
	// The SDK's service-specific endpoint variable, honoured by the default chain.
	t.Setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", srv.URL)
	t.Setenv("AUDIO_BUCKET", "callscribe-audio")
	t.Setenv("TRANSCRIBER", "aws-transcribe")
	t.Setenv("SUMMARIZER", "bedrock")
	t.Setenv("TAGGER", "bedrock")
	t.Setenv("BEDROCK_MODEL_ID", "amazon.nova-micro-v1:0")

	cfg, err := ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngines(cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, ok := e.Transcriber.(*awstranscribe.Transcriber); !ok {
		t.Errorf("transcriber is %T", e.Transcriber)
	}
	// The tagger is the shared LLM tagger; the request below shows it talks to Bedrock.
	if _, ok := e.Tagger.(*llminsights.Tagger); !ok {
		t.Errorf("tagger is %T", e.Tagger)
	}
	if hits.Load() != 0 {
		t.Fatalf("building the engines made %d requests", hits.Load())
	}

	res, err := e.Summarizer.Summarize(t.Context(), callscribe.Transcript{Text: "User: I was charged twice"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary != "Charged twice." || path != "/model/amazon.nova-micro-v1:0/converse" {
		t.Errorf("summary %q via %q; want the configured model", res.Summary, path)
	}
}

func TestAWSTranscribeNeedsTheBucket(t *testing.T) {
	isolateAWSEnv(t)
	_, err := NewEngines(Config{Transcriber: "aws-transcribe", Summarizer: "builtin", Tagger: "builtin", AWSRegion: "eu-west-1"}, true)
	if err == nil || !strings.Contains(err.Error(), "AUDIO_BUCKET") {
		t.Fatalf("err = %v", err)
	}
}
