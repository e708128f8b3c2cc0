package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/llminsights/llminsightstest"
)

// chatServer is an OpenAI-compatible /v1/chat/completions endpoint that records
// the request and answers with the given handler.
type chatServer struct {
	*httptest.Server
	got  chatRequest
	auth string
	path string
}

func newChatServer(t *testing.T, answer func(w http.ResponseWriter)) *chatServer {
	t.Helper()
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.path, s.auth = r.URL.Path, r.Header.Get("Authorization")
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &s.got); err != nil {
			http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, 400)
			return
		}
		answer(w)
	}))
	t.Cleanup(s.Close)
	return s
}

// completion writes a chat completion whose message content is content.
func completion(content string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model-0613",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
		})
	}
}

func raw(status int, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

var segs = callscribe.Transcript{Segments: []callscribe.Segment{
	{Text: "thanks for calling how can i help", SpeakerAlias: callscribe.AliasAgent},
	{Text: "i was charged twice this month", SpeakerAlias: callscribe.AliasUser, TimeStart: 2},
}}

func providerCode(t *testing.T, err error) string {
	t.Helper()
	var je *callscribe.JobError
	if !errors.As(err, &je) || je.Code != callscribe.JobErrProviderError || je.ProviderError == nil {
		t.Fatalf("want a provider_error *JobError, got %#v", err)
	}
	return je.ProviderError.Code
}

func TestChatSummarizerRequestAndResult(t *testing.T) {
	s := newChatServer(t, completion(`{"topic":"Billing: duplicate charge","summary":"The customer was charged twice. The agent refunded one charge."}`))
	// A base URL ending in /v1, as OpenAI-compatible servers are often configured.
	sum := NewChatSummarizer(NewClient(s.URL+"/v1", "sk-test", 5*time.Second), "gpt-test")
	res, err := sum.Summarize(context.Background(), segs)
	if err != nil {
		t.Fatal(err)
	}
	if s.path != "/v1/chat/completions" || s.auth != "Bearer sk-test" {
		t.Errorf("path %q auth %q", s.path, s.auth)
	}
	rf := s.got.ResponseFormat
	if s.got.Model != "gpt-test" || rf == nil || rf.Type != "json_schema" || !rf.JSONSchema.Strict || rf.JSONSchema.Schema["additionalProperties"] != false {
		t.Errorf("request: %+v", s.got)
	}
	if len(s.got.Messages) != 2 || !strings.Contains(s.got.Messages[1].Content, "\nAgent: thanks for calling how can i help\nUser: i was charged twice this month\n") {
		t.Errorf("transcript not rendered with speakers: %q", s.got.Messages)
	}
	if res.Topic == nil || *res.Topic != "Billing: duplicate charge" || !strings.Contains(res.Summary, "charged twice") {
		t.Errorf("result %+v", res)
	}
	if res.MetaData["method"] != ChatMethod || res.MetaData["model"] != "test-model-0613" || res.MetaData["prompt_tokens"] != 120 {
		t.Errorf("meta %v", res.MetaData)
	}
}

func TestChatTaggerNormalizesAndCountsDropped(t *testing.T) {
	// Out-of-taxonomy values, an unknown category, too many outcomes, a
	// non-string, a missing category and a code fence, as real models produce.
	content := "```json\n" + `{
		"call_reason": ["billing", "weather", "Refund"],
		"customer_sentiment": ["furious"],
		"call_outcome": ["resolved", "escalated"],
		"agent_approach": ["apologetic", 7],
		"urgency": ["high"]
	}` + "\n```"
	s := newChatServer(t, completion(content))
	tg := NewChatTagger(NewClient(s.URL, "", 5*time.Second), "llama3")
	res, err := tg.Tag(context.Background(), callscribe.Transcript{Text: "User: I was charged twice"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"call_reason":        {"billing", "refund"},
		"customer_sentiment": {"neutral"}, // "furious" dropped, default filled
		"agent_approach":     {"apologetic"},
		"call_outcome":       {"resolved"},
	}
	for k, v := range want {
		if strings.Join(res.Tags[k], ",") != strings.Join(v, ",") {
			t.Errorf("%s = %v, want %v", k, res.Tags[k], v)
		}
	}
	if len(res.Tags) != 4 {
		t.Errorf("tags has categories outside the taxonomy: %v", res.Tags)
	}
	// weather, furious, escalated (over the maximum), 7, high.
	if res.MetaData["dropped"] != 5 {
		t.Errorf("dropped = %v, want 5", res.MetaData["dropped"])
	}
	if d, _ := res.MetaData["defaulted"].([]string); len(d) != 1 || d[0] != "customer_sentiment" {
		t.Errorf("defaulted = %v", res.MetaData["defaulted"])
	}
	// The schema constrains values to the taxonomy.
	props := s.got.ResponseFormat.JSONSchema.Schema["properties"].(map[string]any)
	items := props["call_outcome"].(map[string]any)["items"].(map[string]any)
	if enum := items["enum"].([]any); len(enum) != 7 {
		t.Errorf("call_outcome enum %v", enum)
	}
	if !strings.Contains(s.got.Messages[0].Content, "follow_up_required") {
		t.Error("system prompt does not list the taxonomy")
	}
}

func TestChatFailures(t *testing.T) {
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter)
		tags   bool
		code   string
	}{
		{"http 500 with OpenAI error", raw(500, `{"error":{"message":"The server had an error","type":"server_error","code":null}}`), false, "server_error"},
		{"http 401", raw(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`), true, "invalid_api_key"},
		{"http 429 flat error", raw(429, `{"error":"rate limited"}`), true, "http_429"},
		{"response not JSON", raw(200, `{"choices":[{"message":`), false, "malformed_response"},
		{"no choices", raw(200, `{"choices":[]}`), true, "empty_response"},
		{"null content", raw(200, `{"choices":[{"message":{"role":"assistant","content":null}}]}`), false, "empty_response"},
		{"refusal", raw(200, `{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}`), true, "refused"},
		{"content not JSON", completion(`Sure! The topic is billing.`), false, "malformed_content"},
		{"tags content not JSON", completion(`{"call_reason": ["billing"`), true, "malformed_content"},
		{"truncated", raw(200, `{"choices":[{"finish_reason":"length","message":{"content":"{\"topic\": \"Bill"}}]}`), false, "truncated_response"},
		{"summary missing", completion(`{"topic":"Billing"}`), false, "missing_fields"},
		{"summary wrong type", completion(`{"topic":"Billing","summary":42}`), false, "malformed_content"},
		{"tags without any category", completion(`{"labels":["billing"]}`), true, "missing_fields"},
		{"tags not an object", completion(`["billing"]`), true, "malformed_content"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newChatServer(t, tc.answer)
			c := NewClient(s.URL, "k", 5*time.Second)
			var err error
			if tc.tags {
				_, err = NewChatTagger(c, "m").Tag(context.Background(), segs)
			} else {
				_, err = NewChatSummarizer(c, "m").Summarize(context.Background(), segs)
			}
			if got := providerCode(t, err); got != tc.code {
				t.Errorf("provider code %q, want %q (%v)", got, tc.code, err)
			}
		})
	}
}

func TestChatTimeoutAndUnreachable(t *testing.T) {
	release := make(chan struct{})
	s := newChatServer(t, func(w http.ResponseWriter) { <-release })
	defer close(release)
	_, err := NewChatTagger(NewClient(s.URL, "", 50*time.Millisecond), "m").Tag(context.Background(), segs)
	if got := providerCode(t, err); got != "provider_timeout" {
		t.Errorf("slow server: code %q", got)
	}

	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	_, err = NewChatSummarizer(NewClient(url, "", time.Second), "m").Summarize(context.Background(), segs)
	if got := providerCode(t, err); got != "provider_unreachable" {
		t.Errorf("closed server: code %q", got)
	}
}

// A transcript that tries to end its fence and give orders goes over the wire
// inside the fence, unchanged, with the system prompt saying it is data; what
// the model answers outside the taxonomy is dropped.
func TestPromptInjectionStaysInsideTheFence(t *testing.T) {
	s := newChatServer(t, completion(`{"call_reason":["HACKED","billing"],"customer_sentiment":["positive"],"call_outcome":["resolved"],"agent_approach":["professional"]}`))
	res, err := NewChatTagger(NewClient(s.URL, "", 5*time.Second), "m").Tag(context.Background(), callscribe.Transcript{Text: llminsightstest.Injection})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.got.Messages) != 2 || s.got.Messages[0].Role != "system" || s.got.Messages[1].Role != "user" {
		t.Fatalf("messages %+v", s.got.Messages)
	}
	inside, err := llminsightstest.Unfence(s.got.Messages[0].Content, s.got.Messages[1].Content)
	if err != nil {
		t.Fatal(err)
	}
	if inside != llminsightstest.Injection {
		t.Fatalf("transcript inside the fence %q", inside)
	}
	if strings.Join(res.Tags["call_reason"], ",") != "billing" || res.MetaData["dropped"] != 1 {
		t.Fatalf("tags %v meta %v", res.Tags, res.MetaData)
	}
	// The summarizer sends the same fence.
	s2 := newChatServer(t, completion(`{"topic":"Billing","summary":"Charged twice."}`))
	if _, err := NewChatSummarizer(NewClient(s2.URL, "", 5*time.Second), "m").Summarize(context.Background(), callscribe.Transcript{Text: llminsightstest.Injection}); err != nil {
		t.Fatal(err)
	}
	if _, err := llminsightstest.Unfence(s2.got.Messages[0].Content, s2.got.Messages[1].Content); err != nil {
		t.Fatal(err)
	}
}
