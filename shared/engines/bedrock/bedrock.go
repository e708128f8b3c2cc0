// Package bedrock implements callscribe.Summarizer and callscribe.Tagger on the
// Amazon Bedrock Converse API (aws-sdk-go-v2 service/bedrockruntime), for any
// model that supports tool use (SUMMARIZER=bedrock, TAGGER=bedrock,
// BEDROCK_MODEL_ID).
//
// Structured output comes from tool use, not from asking for JSON in prose: the
// request declares one tool whose input schema is the result we want and forces
// it with toolChoice, so the model's answer arrives as the tool's input object.
// Converse has no "JSON mode" that works across model families, and a forced
// tool call is what Anthropic, Mistral, Llama and Nova models all honour. This
// package is only that transport (llminsights.Model): the prompts, the fenced
// transcript, the schemas and the parsing of answers are package llminsights',
// shared with the OpenAI-compatible transport, so both judge calls the same way.
//
// Every failure becomes a provider_error *callscribe.JobError carrying the AWS
// error code (ThrottlingException, ValidationException, AccessDeniedException,
// ...) or one of ours for bad answers (malformed_content, missing_fields,
// truncated_response, no_tool_use), so a failed job says why. Throttling is
// retried by the SDK's retryer before it gets here.
package bedrock

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	smithy "github.com/aws/smithy-go"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/llminsights"
)

// Method names the Bedrock providers in meta_data.
const Method = "bedrock-converse"

// DefaultModelID is the model used when BEDROCK_MODEL_ID is unset: small, cheap
// and good at forced tool use.
const DefaultModelID = "anthropic.claude-3-haiku-20240307-v1:0"

// maxOutputTokens is ample for a summary or a tag set; a bound keeps a runaway
// answer cheap and makes truncation detectable (stopReason max_tokens).
const maxOutputTokens = 1024

// Client sends Converse requests to one model.
type Client struct {
	rt      *bedrockruntime.Client
	modelID string
}

// NewClient returns a client for modelID (a model id, inference profile id or
// ARN). Building it makes no network call.
func NewClient(rt *bedrockruntime.Client, modelID string) *Client {
	if modelID == "" {
		modelID = DefaultModelID
	}
	return &Client{rt: rt, modelID: modelID}
}

var _ llminsights.Model = (*Client)(nil)

// NewSummarizer returns the LLM summarizer over Converse.
func NewSummarizer(c *Client) *llminsights.Summarizer { return llminsights.NewSummarizer(c) }

// NewTagger returns the LLM tagger over Converse.
func NewTagger(c *Client) *llminsights.Tagger { return llminsights.NewTagger(c) }

// Complete sends one forced-tool-use request (the tool's input schema is the
// prompt's schema) and returns the tool's input as JSON, plus meta_data
// describing the exchange.
func (c *Client) Complete(ctx context.Context, p llminsights.Prompt) (*llminsights.Answer, error) {
	t := p.Schema
	out, err := c.rt.Converse(ctx, &bedrockruntime.ConverseInput{
		ModelId: aws.String(c.modelID),
		System:  []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: p.System + "\nRecord your answer by calling the " + t.Name + " tool."}},
		Messages: []types.Message{{
			Role:    types.ConversationRoleUser,
			Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: p.User}},
		}},
		// Deterministic output: the same call should get the same tags.
		InferenceConfig: &types.InferenceConfiguration{Temperature: aws.Float32(0), MaxTokens: aws.Int32(maxOutputTokens)},
		ToolConfig: &types.ToolConfiguration{
			Tools: []types.Tool{&types.ToolMemberToolSpec{Value: types.ToolSpecification{
				Name:        aws.String(t.Name),
				Description: aws.String(t.Description),
				InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(t.JSON)},
			}}},
			ToolChoice: &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(t.Name)}},
		},
	})
	if err != nil {
		return nil, apiFailure(ctx, err)
	}
	meta := map[string]any{"method": Method, "model": c.modelID, "stop_reason": string(out.StopReason)}
	if u := out.Usage; u != nil {
		meta["input_tokens"], meta["output_tokens"] = aws.ToInt32(u.InputTokens), aws.ToInt32(u.OutputTokens)
	}
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return nil, providerFailure("empty_response", "the Converse response has no message")
	}
	for _, block := range msg.Value.Content {
		use, ok := block.(*types.ContentBlockMemberToolUse)
		if !ok || aws.ToString(use.Value.Name) != t.Name || use.Value.Input == nil {
			continue
		}
		input, err := use.Value.Input.MarshalSmithyDocument()
		if err != nil {
			return nil, providerFailure("malformed_content", fmt.Sprintf("the tool input could not be read: %v", err))
		}
		return &llminsights.Answer{JSON: input, MetaData: meta, Truncated: out.StopReason == types.StopReasonMaxTokens}, nil
	}
	switch out.StopReason {
	case types.StopReasonMaxTokens:
		return nil, providerFailure("truncated_response", "the model's answer was cut off by the token limit")
	case types.StopReasonContentFiltered, types.StopReasonGuardrailIntervened:
		return nil, providerFailure("refused", "the model's answer was blocked: "+string(out.StopReason))
	}
	return nil, providerFailure("no_tool_use", fmt.Sprintf("the model answered without calling the %s tool (stop reason %q)", t.Name, out.StopReason))
}

// apiFailure maps an SDK error to a provider_error with the AWS error code, so
// the job shows ThrottlingException or AccessDeniedException rather than a
// generic failure.
func apiFailure(ctx context.Context, err error) error {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return providerFailure(apiErr.ErrorCode(), truncate(apiErr.ErrorMessage(), 300))
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return providerFailure("provider_timeout", fmt.Sprintf("Bedrock request did not finish: %v", err))
	}
	return providerFailure("provider_unreachable", fmt.Sprintf("Bedrock request failed: %v", err))
}

func providerFailure(code, message string) *callscribe.JobError {
	return callscribe.ProviderFailure(code, message)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
