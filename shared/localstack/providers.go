package localstack

import (
	"github.com/callscribe/callscribe/shared/app"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/commonproviders"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/openai"
	"github.com/callscribe/callscribe/shared/sphinx"
)

// Providers is the local stack's table: the embedded PocketSphinx engine (one
// decoder per worker), the built-in insights, and the OpenAI-compatible
// providers. A test build adds its deterministic engine to a copy.
func Providers() engines.Table[app.Config] {
	return engines.Table[app.Config]{
		Transcribers: map[string]engines.Factory[app.Config, callscribe.Transcriber]{
			"sphinx": func(cfg app.Config) (callscribe.Transcriber, func(), error) {
				t, err := sphinx.NewTranscriber(sphinx.Config{Decoders: cfg.Workers, AgentChannel: cfg.AgentChannel,
					SpeakerAdaptation: cfg.SpeakerAdaptation})
				if err != nil {
					return nil, nil, err
				}
				return t, t.Close, nil
			},
			"openai": func(cfg app.Config) (callscribe.Transcriber, func(), error) {
				client := openai.NewClient(cfg.OpenAIBaseURL, cfg.OpenAIAPIKey, cfg.OpenAITimeout)
				return openai.NewTranscriber(client, cfg.OpenAITranscribeModel, cfg.AgentChannel), nil, nil
			},
		},
		Summarizers: map[string]engines.Factory[app.Config, callscribe.Summarizer]{
			"builtin": commonproviders.BuiltinSummarizer,
			"openai":  commonproviders.OpenAISummarizer,
		},
		Taggers: map[string]engines.Factory[app.Config, callscribe.Tagger]{
			"builtin": commonproviders.BuiltinTagger,
			"openai":  commonproviders.OpenAITagger,
		},
	}
}
