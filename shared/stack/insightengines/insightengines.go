// Package insightengines holds the factories of the insight engines every
// deployment offers the same way: the built-in summarizer and tagger (offline)
// and the OpenAI-compatible chat engines. The embedded stack's table (package
// stack/embedded) and the derived-job worker's (package
// stack/awsstack/derivedengines) list them beside their own. Speech engines are
// not here: the transcription worker must not link the insights.
package insightengines

import (
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights"
	"github.com/callscribe/callscribe/shared/engines/openai"
	"github.com/callscribe/callscribe/shared/stack/config"
)

func openAIClient(cfg config.Config) *openai.Client {
	return openai.NewClient(cfg.OpenAIBaseURL, cfg.OpenAIAPIKey, cfg.OpenAITimeout)
}

// BuiltinSummarizer is SUMMARIZER=builtin.
func BuiltinSummarizer(config.Config) (callscribe.Summarizer, func(), error) {
	return insights.NewSummarizer(), nil, nil
}

// BuiltinTagger is TAGGER=builtin.
func BuiltinTagger(config.Config) (callscribe.Tagger, func(), error) {
	return insights.NewTagger(), nil, nil
}

// OpenAISummarizer is SUMMARIZER=openai: chat completions with a JSON schema.
func OpenAISummarizer(cfg config.Config) (callscribe.Summarizer, func(), error) {
	return openai.NewChatSummarizer(openAIClient(cfg), cfg.OpenAIChatModel), nil, nil
}

// OpenAITagger is TAGGER=openai.
func OpenAITagger(cfg config.Config) (callscribe.Tagger, func(), error) {
	return openai.NewChatTagger(openAIClient(cfg), cfg.OpenAIChatModel), nil, nil
}
