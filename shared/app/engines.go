package app

import (
	"fmt"
	"sort"
	"sync"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/insights"
	"github.com/callscribe/callscribe/shared/openai"
	"github.com/callscribe/callscribe/shared/sphinx"
)

// Engines are the providers a process uses; Close releases what they hold
// (the embedded decoders' memory).
type Engines struct {
	Transcriber callscribe.Transcriber
	Summarizer  callscribe.Summarizer
	Tagger      callscribe.Tagger
	closers     []func()
}

// Close releases the engines' resources.
func (e *Engines) Close() {
	for _, c := range e.closers {
		c()
	}
}

// TranscriberFactory builds a speech engine from the configuration.
type TranscriberFactory func(cfg Config) (callscribe.Transcriber, func(), error)

var (
	registryMu   sync.Mutex
	transcribers = map[string]TranscriberFactory{
		"sphinx": func(cfg Config) (callscribe.Transcriber, func(), error) {
			t, err := sphinx.NewTranscriber(sphinx.Config{Decoders: cfg.Workers, AgentChannel: cfg.AgentChannel})
			if err != nil {
				return nil, nil, err
			}
			return t, t.Close, nil
		},
		"openai": func(cfg Config) (callscribe.Transcriber, func(), error) {
			return openai.NewTranscriber(openai.NewClient(cfg.OpenAIBaseURL, cfg.OpenAIAPIKey, cfg.OpenAITimeout), cfg.OpenAITranscribeModel, cfg.AgentChannel), nil, nil
		},
	}
)

// RegisterTranscriber adds a speech engine by name. Used by deployments with
// extra providers (AWS Transcribe) and by test builds (the deterministic engine,
// compiled only with the testengine build tag, so `make run` can never use it).
func RegisterTranscriber(name string, f TranscriberFactory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	transcribers[name] = f
}

// SummarizerFactory and TaggerFactory build insight providers.
type (
	SummarizerFactory func(cfg Config) (callscribe.Summarizer, error)
	TaggerFactory     func(cfg Config) (callscribe.Tagger, error)
)

var (
	summarizers = map[string]SummarizerFactory{
		"builtin": func(Config) (callscribe.Summarizer, error) { return insights.NewSummarizer(), nil },
		"openai": func(cfg Config) (callscribe.Summarizer, error) {
			return openai.NewChatSummarizer(openai.NewClient(cfg.OpenAIBaseURL, cfg.OpenAIAPIKey, cfg.OpenAITimeout), cfg.OpenAIChatModel), nil
		},
	}
	taggers = map[string]TaggerFactory{
		"builtin": func(Config) (callscribe.Tagger, error) { return insights.NewTagger(), nil },
		"openai": func(cfg Config) (callscribe.Tagger, error) {
			return openai.NewChatTagger(openai.NewClient(cfg.OpenAIBaseURL, cfg.OpenAIAPIKey, cfg.OpenAITimeout), cfg.OpenAIChatModel), nil
		},
	}
)

// RegisterInsights adds summary/tag providers by name (Bedrock on AWS).
func RegisterInsights(name string, s SummarizerFactory, t TaggerFactory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if s != nil {
		summarizers[name] = s
	}
	if t != nil {
		taggers[name] = t
	}
}

// NewEngines builds the configured providers. withTranscriber is false for
// processes that never transcribe (API-only Lambdas), which then skip loading
// the embedded speech models.
func NewEngines(cfg Config, withTranscriber bool) (*Engines, error) {
	registryMu.Lock()
	defer registryMu.Unlock()
	e := &Engines{}
	if withTranscriber {
		f, ok := transcribers[cfg.Transcriber]
		if !ok {
			return nil, fmt.Errorf("TRANSCRIBER=%q is not one of %v", cfg.Transcriber, keys(transcribers))
		}
		t, closeFn, err := f(cfg)
		if err != nil {
			return nil, fmt.Errorf("starting the %s speech engine: %w", cfg.Transcriber, err)
		}
		e.Transcriber = t
		if closeFn != nil {
			e.closers = append(e.closers, closeFn)
		}
	}
	sf, ok := summarizers[cfg.Summarizer]
	if !ok {
		return nil, fmt.Errorf("SUMMARIZER=%q is not one of %v", cfg.Summarizer, keys(summarizers))
	}
	tf, ok := taggers[cfg.Tagger]
	if !ok {
		return nil, fmt.Errorf("TAGGER=%q is not one of %v", cfg.Tagger, keys(taggers))
	}
	var err error
	if e.Summarizer, err = sf(cfg); err != nil {
		return nil, fmt.Errorf("starting the %s summarizer: %w", cfg.Summarizer, err)
	}
	if e.Tagger, err = tf(cfg); err != nil {
		return nil, fmt.Errorf("starting the %s tagger: %w", cfg.Tagger, err)
	}
	return e, nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
