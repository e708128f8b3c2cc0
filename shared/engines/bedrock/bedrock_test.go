package bedrock

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/llminsights/llminsightstest"
)

const testModel = "anthropic.claude-3-haiku-20240307-v1:0"

// converseServer speaks the Converse REST-JSON protocol: POST
// /model/{modelId}/converse with a JSON body; errors are an HTTP status, the
// X-Amzn-ErrorType header and a {"message"} body.
type converseServer struct {
	*httptest.Server
	path  string
	auth  string
	body  map[string]any
	calls int
}

func newConverseServer(t *testing.T, answer func(w http.ResponseWriter)) *converseServer {
	t.Helper()
	s := &converseServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls++
		s.path, s.auth = r.URL.Path, r.Header.Get("Authorization")
		b, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || json.Unmarshal(b, &s.body) != nil {
			w.Header().Set("X-Amzn-ErrorType", "ValidationException")
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"message":"bad request"}`)
			return
		}
		answer(w)
	}))
	t.Cleanup(s.Close)
	return s
}

// newClient points the SDK at the server with static credentials and a fixed
// region, and without retries so an error answer is seen once.
func newClient(t *testing.T, s *converseServer) *Client {
	t.Helper()
	// AWS_CA_BUNDLE (set on these machines) must not leak into anything that
	// loads shared config.
	t.Setenv("AWS_CA_BUNDLE", "")
	cfg := aws.Config{
		Region:           "us-east-1",
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		BaseEndpoint:     aws.String(s.URL),
		HTTPClient:       s.Client(),
		RetryMaxAttempts: 1,
	}
	return NewClient(bedrockruntime.NewFromConfig(cfg), testModel)
}

// toolAnswer answers with an assistant message calling tool with input.
func toolAnswer(tool string, input any) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"output": map[string]any{"message": map[string]any{
				"role": "assistant",
				"content": []any{
					map[string]any{"text": "Recording it."},
					map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_1", "name": tool, "input": input}},
				},
			}},
			"stopReason": "tool_use",
			"usage":      map[string]any{"inputTokens": 812, "outputTokens": 41, "totalTokens": 853},
			"metrics":    map[string]any{"latencyMs": 420},
		})
	}
}

func textAnswer(text, stopReason string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"text": text}}}},
			"stopReason": stopReason,
			"usage":      map[string]any{"inputTokens": 10, "outputTokens": 1024, "totalTokens": 1034},
			"metrics":    map[string]any{"latencyMs": 1},
		})
	}
}

func awsError(status int, errType, message string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Amzn-ErrorType", errType+":http://internal.amazon.com/coral/com.amazon.bedrock/")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": message})
	}
}

var call = callscribe.Transcript{Segments: []callscribe.Segment{
	{Text: "thanks for calling how can i help", SpeakerAlias: callscribe.AliasAgent},
	{Text: "i was charged twice this month", SpeakerAlias: callscribe.AliasUser, TimeStart: 2},
}}

func providerCode(t *testing.T, err error) (code, message string) {
	t.Helper()
	var je *callscribe.JobError
	if !errors.As(err, &je) || je.Code != callscribe.JobErrProviderError || je.ProviderError == nil {
		t.Fatalf("want a provider_error *JobError, got %#v", err)
	}
	return je.ProviderError.Code, je.ProviderError.Message
}

// dig walks a decoded JSON value by object keys and array indexes.
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %q: not an object: %v", k, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at [%d]: not an array that long: %v", k, v)
			}
			v = a[k]
		}
	}
	return v
}

func TestSummarizeForcesToolAndReadsItsInput(t *testing.T) {
	s := newConverseServer(t, toolAnswer("record_call_summary", map[string]any{
		"topic": " Billing: duplicate charge ", "summary": "The customer was charged twice. The agent refunded one charge.",
	}))
	res, err := NewSummarizer(newClient(t, s)).Summarize(t.Context(), call)
	if err != nil {
		t.Fatal(err)
	}
	if res.Topic == nil || *res.Topic != "Billing: duplicate charge" {
		t.Errorf("topic = %v", res.Topic)
	}
	if res.Summary != "The customer was charged twice. The agent refunded one charge." {
		t.Errorf("summary = %q", res.Summary)
	}
	if res.MetaData["method"] != Method || res.MetaData["model"] != testModel || res.MetaData["input_tokens"] != int32(812) || res.MetaData["output_tokens"] != int32(41) {
		t.Errorf("meta_data = %v", res.MetaData)
	}

	// The request: the model in the path, SigV4 for bedrock in our region, the
	// one tool forced by toolChoice with the summary schema, temperature 0.
	if s.path != "/model/"+testModel+"/converse" {
		t.Errorf("path = %q", s.path)
	}
	if !strings.HasPrefix(s.auth, "AWS4-HMAC-SHA256 Credential=AKIDTEST/") || !strings.Contains(s.auth, "/us-east-1/bedrock/aws4_request") {
		t.Errorf("Authorization = %q", s.auth)
	}
	b := s.body
	if got := dig(t, b, "toolConfig", "toolChoice", "tool", "name"); got != "record_call_summary" {
		t.Errorf("toolChoice = %v", dig(t, b, "toolConfig", "toolChoice"))
	}
	if tools := dig(t, b, "toolConfig", "tools").([]any); len(tools) != 1 {
		t.Errorf("tools = %v, want exactly one", tools)
	}
	schema := dig(t, b, "toolConfig", "tools", 0, "toolSpec", "inputSchema", "json")
	if req := dig(t, schema, "required"); !slices.Equal(toStrings(req), []string{"topic", "summary"}) {
		t.Errorf("schema required = %v", req)
	}
	if dig(t, b, "inferenceConfig", "temperature") != 0.0 {
		t.Errorf("inferenceConfig = %v", b["inferenceConfig"])
	}
	if sys := dig(t, b, "system", 0, "text").(string); !strings.Contains(sys, "record_call_summary") {
		t.Errorf("system prompt does not name the tool: %q", sys)
	}
	user := dig(t, b, "messages", 0, "content", 0, "text").(string)
	if dig(t, b, "messages", 0, "role") != "user" || !strings.Contains(user, "Agent: thanks for calling how can i help\nUser: i was charged twice this month") {
		t.Errorf("user message = %q", user)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestTagNormalizesAndCountsDropped(t *testing.T) {
	s := newConverseServer(t, toolAnswer("record_call_tags", map[string]any{
		// "Billing" folds onto billing; "world_peace" is not a reason; four
		// reasons exceed the maximum of three, so the last valid one is dropped.
		"call_reason":        []any{"Billing", "world_peace", "refund", "complaint", "fraud_report"},
		"customer_sentiment": []any{"furious"},
		// A JSON array sent as a string, as Claude sometimes does for arrays.
		"agent_approach": `["apologetic", "empathetic"]`,
		"call_outcome":   "resolved",
		"mood":           []any{"grumpy"},
	}))
	res, err := NewTagger(newClient(t, s)).Tag(t.Context(), callscribe.Transcript{Text: "Agent: hello\nUser: I want a refund"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"call_reason":        {"billing", "refund", "complaint"},
		"customer_sentiment": {"neutral"}, // "furious" dropped, default filled
		"agent_approach":     {"apologetic", "empathetic"},
		"call_outcome":       {"resolved"},
	}
	for k, v := range want {
		if !slices.Equal(res.Tags[k], v) {
			t.Errorf("tags[%s] = %v, want %v", k, res.Tags[k], v)
		}
	}
	if len(res.Tags) != len(want) {
		t.Errorf("tags = %v, want only the taxonomy's categories", res.Tags)
	}
	// world_peace, fraud_report (over the max), furious, grumpy (unknown category).
	if res.MetaData["dropped"] != 4 {
		t.Errorf("dropped = %v, want 4", res.MetaData["dropped"])
	}
	if d, _ := res.MetaData["defaulted"].([]string); !slices.Equal(d, []string{"customer_sentiment"}) {
		t.Errorf("defaulted = %v", res.MetaData["defaulted"])
	}

	// The schema offered to the model is the taxonomy, with enums.
	props := dig(t, s.body, "toolConfig", "tools", 0, "toolSpec", "inputSchema", "json", "properties")
	enum := toStrings(dig(t, props, "customer_sentiment", "items", "enum"))
	if !slices.Equal(enum, []string{"positive", "neutral", "negative", "mixed"}) {
		t.Errorf("customer_sentiment enum = %v", enum)
	}
	if dig(t, s.body, "toolConfig", "toolChoice", "tool", "name") != "record_call_tags" {
		t.Errorf("toolChoice = %v", dig(t, s.body, "toolConfig", "toolChoice"))
	}
	if user := dig(t, s.body, "messages", 0, "content", 0, "text").(string); !strings.Contains(user, "User: I want a refund") {
		t.Errorf("plain-text transcript not sent: %q", user)
	}
}

func TestMalformedToolOutput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter)
		tagger bool
		code   string
	}{
		{"summary missing fields", toolAnswer("record_call_summary", map[string]any{"title": "x"}), false, "missing_fields"},
		{"summary wrong types", toolAnswer("record_call_summary", map[string]any{"topic": 3, "summary": []any{"a"}}), false, "malformed_content"},
		{"tags of no known category", toolAnswer("record_call_tags", map[string]any{"reason": []any{"billing"}}), true, "missing_fields"},
		{"tags input not an object", toolAnswer("record_call_tags", []any{"billing"}), true, "malformed_content"},
		{"another tool", toolAnswer("something_else", map[string]any{"topic": "a", "summary": "b"}), false, "no_tool_use"},
		{"plain text cut off", textAnswer(`{"topic": "Billing`, "max_tokens"), false, "truncated_response"},
		{"guardrail", textAnswer("Sorry.", "guardrail_intervened"), true, "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, newConverseServer(t, tc.answer))
			var err error
			if tc.tagger {
				_, err = NewTagger(c).Tag(t.Context(), call)
			} else {
				_, err = NewSummarizer(c).Summarize(t.Context(), call)
			}
			if code, msg := providerCode(t, err); code != tc.code {
				t.Errorf("code = %q (%s), want %q", code, msg, tc.code)
			}
		})
	}
}

func TestAWSErrorsKeepTheirCode(t *testing.T) {
	for _, tc := range []struct {
		status  int
		errType string
	}{
		{429, "ThrottlingException"},
		{400, "ValidationException"},
		{403, "AccessDeniedException"},
		{424, "ModelErrorException"},
	} {
		t.Run(tc.errType, func(t *testing.T) {
			s := newConverseServer(t, awsError(tc.status, tc.errType, "reason from bedrock "+tc.errType))
			_, err := NewTagger(newClient(t, s)).Tag(t.Context(), call)
			code, msg := providerCode(t, err)
			if code != tc.errType || msg != "reason from bedrock "+tc.errType {
				t.Errorf("provider_error = %q %q", code, msg)
			}
			if s.calls != 1 {
				t.Errorf("calls = %d", s.calls)
			}
		})
	}
}

func TestUnreachableEndpoint(t *testing.T) {
	s := newConverseServer(t, toolAnswer("record_call_summary", nil))
	c := newClient(t, s)
	s.Close()
	_, err := NewSummarizer(c).Summarize(t.Context(), call)
	if code, _ := providerCode(t, err); code != "provider_unreachable" {
		t.Errorf("code = %q", code)
	}
}

// A transcript that tries to end its fence and give orders goes over the wire
// inside the fence, unchanged, with the system prompt saying it is data; what
// the model answers outside the taxonomy is dropped.
func TestPromptInjectionStaysInsideTheFence(t *testing.T) {
	s := newConverseServer(t, toolAnswer("record_call_tags", map[string]any{
		"call_reason": []any{"HACKED", "billing"}, "customer_sentiment": []any{"positive"},
		"call_outcome": []any{"resolved"}, "agent_approach": []any{"professional"},
	}))
	res, err := NewTagger(newClient(t, s)).Tag(t.Context(), callscribe.Transcript{Text: llminsightstest.Injection})
	if err != nil {
		t.Fatal(err)
	}
	system := dig(t, s.body, "system", 0, "text").(string)
	user := dig(t, s.body, "messages", 0, "content", 0, "text").(string)
	inside, err := llminsightstest.Unfence(system, user)
	if err != nil {
		t.Fatal(err)
	}
	if inside != llminsightstest.Injection {
		t.Fatalf("transcript inside the fence %q", inside)
	}
	if msgs := dig(t, s.body, "messages").([]any); len(msgs) != 1 {
		t.Fatalf("the transcript was split over %d messages", len(msgs))
	}
	if strings.Join(res.Tags["call_reason"], ",") != "billing" || res.MetaData["dropped"] != 1 {
		t.Fatalf("tags %v meta %v", res.Tags, res.MetaData)
	}
}
