package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// ChatMethod names the chat providers in meta_data.
const ChatMethod = "openai-chat-completions"

// chatMaxTranscriptChars bounds the transcript sent to the model. Calls longer
// than this keep their beginning (the reason) and end (the outcome); the middle
// is elided with a marker so the model knows.
const chatMaxTranscriptChars = 60000

// chatRequest is the body of POST /v1/chat/completions. response_format with a
// strict json_schema is understood by OpenAI, vLLM, llama.cpp server and Ollama.
type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	Temperature    float64         `json:"temperature"`
	ResponseFormat *responseFormat `json:"response_format"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type       string     `json:"type"`
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string         `json:"name"`
	Strict bool           `json:"strict"`
	Schema map[string]any `json:"schema"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// chatCompletion sends one structured-output request and returns the message
// content (JSON text) and meta_data describing the exchange. Every failure is a
// provider_error *JobError.
func (c *Client) chatCompletion(ctx context.Context, model, system, user, schemaName string, schema map[string]any) ([]byte, map[string]any, error) {
	body, err := json.Marshal(chatRequest{
		Model: model,
		Messages: []chatMessage{
			{Role: "system", Content: system},
			{Role: "user", Content: user},
		},
		// Deterministic output: the same call should get the same tags.
		Temperature:    0,
		ResponseFormat: &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{Name: schemaName, Strict: true, Schema: schema}},
	})
	if err != nil {
		return nil, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint("/v1/chat/completions"), bytes.NewReader(body))
	if err != nil {
		return nil, nil, providerFailure("invalid_request", err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	raw, err := c.do(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	var resp chatResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, nil, providerFailure("malformed_response", fmt.Sprintf("chat completion response is not valid JSON: %v", err))
	}
	if len(resp.Choices) == 0 {
		return nil, nil, providerFailure("empty_response", "chat completion response has no choices")
	}
	ch := resp.Choices[0]
	if ch.Message.Refusal != nil && *ch.Message.Refusal != "" {
		return nil, nil, providerFailure("refused", "the model refused: "+truncate(*ch.Message.Refusal, 200))
	}
	if ch.Message.Content == nil || strings.TrimSpace(*ch.Message.Content) == "" {
		return nil, nil, providerFailure("empty_response", "chat completion message has no content")
	}
	meta := map[string]any{"method": ChatMethod, "model": cmpOr(resp.Model, model), "finish_reason": ch.FinishReason}
	if resp.Usage != nil {
		meta["prompt_tokens"], meta["completion_tokens"] = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	}
	return []byte(stripCodeFence(*ch.Message.Content)), meta, nil
}

// contentError reports content that is not the JSON the schema asked for. A
// response cut off by the token limit is named as such, as that is the fix.
func contentError(meta map[string]any, err error) error {
	if meta["finish_reason"] == "length" {
		return providerFailure("truncated_response", "the model's answer was cut off by the token limit")
	}
	return providerFailure("malformed_content", fmt.Sprintf("the model's answer is not the requested JSON: %v", err))
}

// stripCodeFence removes a ```json fence some servers put around JSON even in
// structured-output mode.
func stripCodeFence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimPrefix(s, "```")
	if nl := strings.IndexByte(s, '\n'); nl >= 0 {
		s = s[nl+1:]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
}

// renderTranscript gives the model the call as "Agent: ..."/"User: ..." lines
// when speakers are known, the caller's text otherwise.
func renderTranscript(t callscribe.Transcript) string {
	var s string
	if len(t.Segments) > 0 {
		var b strings.Builder
		for _, seg := range t.Segments {
			text := strings.TrimSpace(seg.Text)
			if text == "" {
				continue
			}
			if seg.SpeakerAlias != "" {
				b.WriteString(seg.SpeakerAlias)
				b.WriteString(": ")
			}
			b.WriteString(text)
			b.WriteByte('\n')
		}
		s = b.String()
	} else {
		s = strings.TrimSpace(t.Text)
	}
	if len(s) <= chatMaxTranscriptChars {
		return s
	}
	head, tail := chatMaxTranscriptChars*2/3, chatMaxTranscriptChars/3
	return strings.ToValidUTF8(s[:head], "") + "\n[... middle of the call omitted ...]\n" + strings.ToValidUTF8(s[len(s)-tail:], "")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

const chatSummarySystem = `You summarise customer-service phone calls for a support team. The transcript may come from a speech engine: lower case, unpunctuated, with misrecognised words; infer the meaning and never invent facts that are not in the call. "Agent" is the company's representative, "User" is the customer.
Return JSON with:
- "topic": a short label of what the call was about, at most 6 words (for example "Billing: duplicate charge").
- "summary": 2 to 4 plain sentences saying why the customer called, what the agent did, and how the call ended.`

// ChatSummarizer is a callscribe.Summarizer backed by an OpenAI-compatible
// chat completions endpoint.
type ChatSummarizer struct {
	client *Client
	model  string
}

// NewChatSummarizer returns a summarizer using model (OPENAI_CHAT_MODEL).
func NewChatSummarizer(client *Client, model string) *ChatSummarizer {
	return &ChatSummarizer{client: client, model: model}
}

var _ callscribe.Summarizer = (*ChatSummarizer)(nil)

var summarySchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"topic":   map[string]any{"type": "string", "description": "Short label of the call, at most 6 words."},
		"summary": map[string]any{"type": "string", "description": "2 to 4 sentences: why the customer called, what the agent did, how it ended."},
	},
	"required":             []string{"topic", "summary"},
	"additionalProperties": false,
}

// Summarize asks the model for a topic and a summary.
func (s *ChatSummarizer) Summarize(ctx context.Context, t callscribe.Transcript) (*callscribe.SummaryResult, error) {
	content, meta, err := s.client.chatCompletion(ctx, s.model, chatSummarySystem, renderTranscript(t), "call_summary", summarySchema)
	if err != nil {
		return nil, err
	}
	var out struct {
		Topic   *string `json:"topic"`
		Summary *string `json:"summary"`
	}
	if err := json.Unmarshal(content, &out); err != nil {
		return nil, contentError(meta, err)
	}
	if out.Summary == nil || strings.TrimSpace(*out.Summary) == "" || out.Topic == nil {
		return nil, providerFailure("missing_fields", `the model's answer lacks "topic" or "summary"`)
	}
	topic := strings.TrimSpace(*out.Topic)
	res := &callscribe.SummaryResult{Summary: strings.TrimSpace(*out.Summary), MetaData: meta}
	if topic != "" {
		res.Topic = &topic
	}
	return res, nil
}

// ChatTagger is a callscribe.Tagger backed by an OpenAI-compatible chat
// completions endpoint. Its answers go through callscribe.NormalizeTags, so
// values outside the taxonomy are dropped and counted, never stored.
type ChatTagger struct {
	client *Client
	model  string
}

// NewChatTagger returns a tagger using model (OPENAI_CHAT_MODEL).
func NewChatTagger(client *Client, model string) *ChatTagger {
	return &ChatTagger{client: client, model: model}
}

var _ callscribe.Tagger = (*ChatTagger)(nil)

// tagsSchema is built from the taxonomy, so the model is constrained to the
// allowed values (enum) where the server enforces schemas. Item counts are in
// the descriptions rather than minItems/maxItems, which not every server's
// strict mode accepts; NormalizeTags enforces them.
func tagsSchema() map[string]any {
	props := map[string]any{}
	var required []string
	for _, c := range callscribe.Taxonomy() {
		enum := make([]string, len(c.Values))
		for i, v := range c.Values {
			enum[i] = v.Value
		}
		count := fmt.Sprintf("%d to %d values", c.MinValues, c.MaxValues)
		if c.MinValues == c.MaxValues {
			count = fmt.Sprintf("exactly %d value", c.MinValues)
		}
		props[c.Name] = map[string]any{
			"type":        "array",
			"description": count + ", most important first.",
			"items":       map[string]any{"type": "string", "enum": enum},
		}
		required = append(required, c.Name)
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

func chatTagsSystem() string {
	var b strings.Builder
	b.WriteString(`You tag customer-service phone calls with values from a fixed taxonomy. The transcript may come from a speech engine: lower case, unpunctuated, with misrecognised words. "Agent" is the company's representative, "User" is the customer. customer_sentiment is judged from the customer's words only; call_outcome from how the call ended; agent_approach from the agent's words.
Use only these values:
`)
	for _, c := range callscribe.Taxonomy() {
		fmt.Fprintf(&b, "%s (%d-%d values):\n", c.Name, c.MinValues, c.MaxValues)
		for _, v := range c.Values {
			fmt.Fprintf(&b, "- %s: %s\n", v.Value, v.Description)
		}
	}
	b.WriteString("Return JSON mapping each category to an array of its values.")
	return b.String()
}

// Tag asks the model for taxonomy values.
func (t *ChatTagger) Tag(ctx context.Context, tr callscribe.Transcript) (*callscribe.TagsResult, error) {
	content, meta, err := t.client.chatCompletion(ctx, t.model, chatTagsSystem(), renderTranscript(tr), "call_tags", tagsSchema())
	if err != nil {
		return nil, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(content, &out); err != nil {
		return nil, contentError(meta, err)
	}
	raw := map[string][]string{}
	dropped, known := 0, 0
	for k, v := range out {
		var vals []any
		if err := json.Unmarshal(v, &vals); err != nil {
			// A category given as something other than an array: a lone string
			// is accepted as one value, anything else is dropped.
			var one string
			if json.Unmarshal(v, &one) != nil {
				dropped++
				continue
			}
			vals = []any{one}
		}
		for _, x := range vals {
			if s, ok := x.(string); ok {
				raw[k] = append(raw[k], s)
			} else {
				dropped++
			}
		}
		if _, ok := callscribe.TaxonomyCategoryNamed(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), " ", "_")); ok {
			known++
		}
	}
	if known == 0 {
		return nil, providerFailure("missing_fields", "the model's answer names none of the taxonomy's categories")
	}
	tags, n := callscribe.NormalizeTags(raw)
	meta["dropped"] = dropped + n
	if defaulted := callscribe.FillTagDefaults(tags); len(defaulted) > 0 {
		meta["defaulted"] = defaulted
	}
	return &callscribe.TagsResult{Tags: tags, MetaData: meta}, nil
}
