// Package commonproviders holds the factories of the insight providers every
// deployment offers the same way: the built-in summarizer and tagger (offline)
// and the OpenAI-compatible chat providers. The local stack's table (package
// localstack) and the derived-job worker's (package awsstack/insight) list them
// beside their own. Speech providers are not here: the transcription worker
// must not link the insights.
package commonproviders

import (
	"github.com/callscribe/callscribe/shared/app"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/insights"
	"github.com/callscribe/callscribe/shared/openai"
)

func openAIClient(cfg app.Config) *openai.Client {
	return openai.NewClient(cfg.OpenAIBaseURL, cfg.OpenAIAPIKey, cfg.OpenAITimeout)
}

// BuiltinSummarizer is SUMMARIZER=builtin.
func BuiltinSummarizer(app.Config) (callscribe.Summarizer, func(), error) {
	return insights.NewSummarizer(), nil, nil
}

// BuiltinTagger is TAGGER=builtin.
func BuiltinTagger(app.Config) (callscribe.Tagger, func(), error) {
	return insights.NewTagger(), nil, nil
}

// OpenAISummarizer is SUMMARIZER=openai: chat completions with a JSON schema.
func OpenAISummarizer(cfg app.Config) (callscribe.Summarizer, func(), error) {
	return openai.NewChatSummarizer(openAIClient(cfg), cfg.OpenAIChatModel), nil, nil
}

// OpenAITagger is TAGGER=openai.
func OpenAITagger(cfg app.Config) (callscribe.Tagger, func(), error) {
	return openai.NewChatTagger(openAIClient(cfg), cfg.OpenAIChatModel), nil, nil
}
