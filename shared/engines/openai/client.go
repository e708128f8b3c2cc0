// Package openai talks to OpenAI-compatible HTTP APIs (OpenAI, whisper.cpp server,
// faster-whisper servers, vLLM, llama.cpp server, Ollama): audio transcription and
// chat completions. Provider failures become *callscribe.JobError values with a
// provider_error block, so the job fails with a clear reason.
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Client is the shared HTTP client of the transcription and chat providers.
type Client struct {
	BaseURL    string // e.g. https://api.openai.com (with or without a trailing /v1)
	APIKey     string
	HTTPClient *http.Client
}

// NewClient returns a client with a request timeout.
func NewClient(baseURL, apiKey string, timeout time.Duration) *Client {
	return &Client{BaseURL: baseURL, APIKey: apiKey, HTTPClient: &http.Client{Timeout: timeout}}
}

// endpoint joins the base URL and an API path such as "/v1/audio/transcriptions",
// accepting base URLs that already end in /v1.
func (c *Client) endpoint(path string) string {
	base := strings.TrimRight(c.BaseURL, "/")
	if strings.HasSuffix(base, "/v1") && strings.HasPrefix(path, "/v1/") {
		path = strings.TrimPrefix(path, "/v1")
	}
	return base + path
}

// do sends req and returns the body of a 2xx answer. Failures are mapped:
// 4xx (but 408/429) -> permanent *JobError; 5xx, 408, 429 and transport errors ->
// *JobError too, because a provider that keeps failing must fail the job with its
// reason rather than loop; the caller decides whether to retry.
func (c *Client) do(ctx context.Context, req *http.Request) ([]byte, error) {
	req = req.WithContext(ctx)
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	resp, err := c.HTTPClient.Do(req)
	if err != nil {
		code := "provider_unreachable"
		if ctx.Err() != nil || isTimeout(err) {
			code = "provider_timeout"
		}
		return nil, providerFailure(code, fmt.Sprintf("request to provider failed: %v", err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, providerFailure("provider_unreachable", fmt.Sprintf("reading provider response: %v", err))
	}
	if resp.StatusCode/100 != 2 {
		code, msg := parseProviderError(body)
		if code == "" {
			code = fmt.Sprintf("http_%d", resp.StatusCode)
		}
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		return nil, providerFailure(code, fmt.Sprintf("provider answered HTTP %d: %s", resp.StatusCode, msg))
	}
	return body, nil
}

func isTimeout(err error) bool {
	type timeout interface{ Timeout() bool }
	t, ok := err.(timeout)
	return ok && t.Timeout()
}

// parseProviderError reads OpenAI's {"error":{"code","type","message"}} shape,
// the flat {"error":"..."} shape some compatible servers use (whisper.cpp) and
// FastAPI's {"detail":"..."} (speaches).
func parseProviderError(body []byte) (code, message string) {
	var nested struct {
		Error struct {
			Code    any    `json:"code"`
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &nested) == nil && nested.Error.Message != "" {
		switch c := nested.Error.Code.(type) {
		case string:
			code = c
		case float64:
			code = fmt.Sprint(c)
		}
		if code == "" {
			code = nested.Error.Type
		}
		return code, nested.Error.Message
	}
	var flat struct {
		Error  string `json:"error"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &flat) == nil && flat.Error != "" {
		return "", flat.Error
	}
	if flat.Detail != "" {
		return "", flat.Detail
	}
	return "", strings.TrimSpace(string(body[:min(len(body), 200)]))
}

func providerFailure(code, message string) *callscribe.JobError {
	return callscribe.ProviderFailure(code, message)
}
