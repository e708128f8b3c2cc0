package embedded

import (
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/engines/insights/sentiment"
	"github.com/callscribe/callscribe/shared/engines/openai"
	"github.com/callscribe/callscribe/shared/engines/sphinx"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/stack/insightengines"
)

// EngineTable is the embedded stack's table: the embedded PocketSphinx engine (one
// decoder per worker), the built-in insights and segment sentiment, and the
// OpenAI-compatible providers. A test build adds its deterministic engine to a copy.
func EngineTable() engines.Table[config.Config] {
	return engines.Table[config.Config]{
		Transcribers: map[string]engines.Factory[config.Config, callscribe.Transcriber]{
			"sphinx": func(cfg config.Config) (callscribe.Transcriber, func(), error) {
				t, err := sphinx.NewTranscriber(sphinx.Config{Decoders: cfg.Workers, AgentChannel: cfg.AgentChannel,
					SpeakerAdaptation: cfg.SpeakerAdaptation, KeepEcho: !cfg.EchoRemoval,
					MoonshineDir: cfg.NeuralSpeechDir(), MoonshineOnly: cfg.NeuralSpeech == "only"})
				if err != nil {
					return nil, nil, err
				}
				return t, t.Close, nil
			},
			"openai": func(cfg config.Config) (callscribe.Transcriber, func(), error) {
				client := openai.NewClient(cfg.OpenAIBaseURL, cfg.OpenAIAPIKey, cfg.OpenAITimeout)
				return openai.NewTranscriber(client, cfg.OpenAITranscribeModel, cfg.AgentChannel), nil, nil
			},
		},
		Summarizers: map[string]engines.Factory[config.Config, callscribe.Summarizer]{
			"builtin": insightengines.BuiltinSummarizer,
			"openai":  insightengines.OpenAISummarizer,
		},
		Taggers: map[string]engines.Factory[config.Config, callscribe.Tagger]{
			"builtin": insightengines.BuiltinTagger,
			"openai":  insightengines.OpenAITagger,
		},
		Sentiment: sentiment.NewScorer(),
	}
}
