package awsstack_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/engines/awstranscribe"
	"github.com/callscribe/callscribe/shared/engines/llminsights"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/stack/awsstack/derivedengines"
	"github.com/callscribe/callscribe/shared/stack/awsstack/transcriptionengines"
	"github.com/callscribe/callscribe/shared/stack/config"
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
	t.Setenv("SESSION_SECRET", "a-session-secret-for-the-provider-tests")
}

func open(t *testing.T) *awsstack.AWS {
	t.Helper()
	cfg, err := config.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	a, err := awsstack.Open(t.Context(), cfg, config.NewLogger(cfg.LogLevel))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The workers' tables build from the default credential chain and the one
// SDK configuration without calling AWS, and a built provider reaches the
// configured model.
func TestWorkerProvidersBuildWithoutCallingAWS(t *testing.T) {
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
	t.Setenv("BEDROCK_MODEL_ID", "amazon.nova-micro-v1:0")
	a := open(t)

	stt, err := engines.Build(transcriptionengines.EngineTable(), a, engines.Selection{Transcriber: "aws-transcribe"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := stt.Transcriber.(*awstranscribe.Transcriber); !ok || stt.Summarizer != nil || stt.Tagger != nil {
		t.Errorf("speech table built %T, %T, %T", stt.Transcriber, stt.Summarizer, stt.Tagger)
	}
	in, err := engines.Build(derivedengines.EngineTable(), a, engines.Selection{Summarizer: "bedrock", Tagger: "bedrock"})
	if err != nil {
		t.Fatal(err)
	}
	// The tagger is the shared LLM tagger; the request below shows it talks to Bedrock.
	if _, ok := in.Tagger.(*llminsights.Tagger); !ok || in.Transcriber != nil {
		t.Errorf("insight table built %T, %T", in.Transcriber, in.Tagger)
	}
	if hits.Load() != 0 {
		t.Fatalf("building the engines made %d requests", hits.Load())
	}
	res, err := in.Summarizer.Summarize(t.Context(), callscribe.Transcript{Text: "User: I was charged twice"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary != "Charged twice." || path != "/model/amazon.nova-micro-v1:0/converse" {
		t.Errorf("summary %q via %q; want the configured model", res.Summary, path)
	}
	// Each table offers only its own kind: the speech worker has no Bedrock.
	if _, err := engines.Build(transcriptionengines.EngineTable(), a, engines.Selection{Summarizer: "bedrock"}); err == nil || !strings.Contains(err.Error(), "SUMMARIZER") {
		t.Fatalf("speech table built a summarizer: %v", err)
	}
}

func TestAWSTranscribeNeedsTheBucket(t *testing.T) {
	isolateAWSEnv(t)
	t.Setenv("AUDIO_BUCKET", "")
	_, err := engines.Build(transcriptionengines.EngineTable(), open(t), engines.Selection{Transcriber: "aws-transcribe"})
	if err == nil || !strings.Contains(err.Error(), "AUDIO_BUCKET") {
		t.Fatalf("err = %v", err)
	}
}
