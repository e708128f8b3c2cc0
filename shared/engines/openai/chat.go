package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/callscribe/callscribe/shared/engines/llminsights"
)

// ChatMethod names the chat providers in meta_data.
const ChatMethod = "openai-chat-completions"

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

// ChatModel is the chat-completions transport of the LLM insights
// (llminsights.Model): prompts, rendering and parsing live in package
// llminsights; this sends one request with a strict json_schema response
// format and maps failures to provider_error codes.
type ChatModel struct {
	client *Client
	model  string
}

// NewChatModel returns the transport for model (OPENAI_CHAT_MODEL).
func NewChatModel(client *Client, model string) *ChatModel {
	return &ChatModel{client: client, model: model}
}

var _ llminsights.Model = (*ChatModel)(nil)

// NewChatSummarizer returns the LLM summarizer over chat completions.
func NewChatSummarizer(client *Client, model string) *llminsights.Summarizer {
	return llminsights.NewSummarizer(NewChatModel(client, model))
}

// NewChatTagger returns the LLM tagger over chat completions.
func NewChatTagger(client *Client, model string) *llminsights.Tagger {
	return llminsights.NewTagger(NewChatModel(client, model))
}

// Complete sends one structured-output request and returns the message content
// (JSON text) and meta_data describing the exchange. Every failure is a
// provider_error *JobError.
func (m *ChatModel) Complete(ctx context.Context, p llminsights.Prompt) (*llminsights.Answer, error) {
	body, err := json.Marshal(chatRequest{
		Model: m.model,
		Messages: []chatMessage{
			{Role: "system", Content: p.System},
			{Role: "user", Content: p.User},
		},
		// Deterministic output: the same call should get the same tags.
		Temperature:    0,
		ResponseFormat: &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{Name: p.Schema.Name, Strict: true, Schema: p.Schema.JSON}},
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.client.endpoint("/v1/chat/completions"), bytes.NewReader(body))
	if err != nil {
		return nil, providerFailure("invalid_request", err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	raw, err := m.client.do(ctx, req)
	if err != nil {
		return nil, err
	}
	var resp chatResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, providerFailure("malformed_response", fmt.Sprintf("chat completion response is not valid JSON: %v", err))
	}
	if len(resp.Choices) == 0 {
		return nil, providerFailure("empty_response", "chat completion response has no choices")
	}
	ch := resp.Choices[0]
	if ch.Message.Refusal != nil && *ch.Message.Refusal != "" {
		return nil, providerFailure("refused", "the model refused: "+truncate(*ch.Message.Refusal, 200))
	}
	if ch.Message.Content == nil || strings.TrimSpace(*ch.Message.Content) == "" {
		return nil, providerFailure("empty_response", "chat completion message has no content")
	}
	meta := map[string]any{"method": ChatMethod, "model": cmpOr(resp.Model, m.model), "finish_reason": ch.FinishReason}
	if resp.Usage != nil {
		meta["prompt_tokens"], meta["completion_tokens"] = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	}
	return &llminsights.Answer{JSON: []byte(stripCodeFence(*ch.Message.Content)), MetaData: meta, Truncated: ch.FinishReason == "length"}, nil
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
