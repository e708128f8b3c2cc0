// Package engines builds the speech and insight engines a process runs from
// its configuration (TRANSCRIBER, SUMMARIZER, TAGGER), out of a table of
// factories that each deployment writes out explicitly: no package-level
// registry, no init(). The table is what decides what a binary links: the
// embedded stack's table names the embedded engine; on AWS the transcription
// worker's names only speech engines and the derived-job worker's only
// insight engines, so neither links the other's SDKs and the API functions
// link none. The tables themselves are in shared/stack.
//
// Env is what a factory builds from: the configuration for the embedded
// stack, the AWS wiring (configuration plus the SDK configuration and clients
// built once per process) on AWS.
//
// The engines, one package each below this one:
//
//	sphinx         Transcriber  embedded PocketSphinx (cgo), offline
//	awstranscribe  Transcriber  Amazon Transcribe batch jobs, output read from S3
//	openai         Transcriber, Summarizer, Tagger: OpenAI-compatible servers
//	bedrock        Summarizer, Tagger: Amazon Bedrock Converse
//	insights       Summarizer, Tagger built in: lexicon plus a trained linear
//	               model (model.json), offline; it sends no prompt anywhere
//	llminsights    what the LLM-backed summarizer and tagger (openai, bedrock)
//	               say and read back: the system prompts, the tagging prompt
//	               built from the taxonomy, the fenced transcript, the answer
//	               schemas and parsing
package engines

import (
	"fmt"
	"slices"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Factory builds one provider. close, when not nil, releases what the
// provider holds (the embedded decoders' memory).
type Factory[Env, T any] func(env Env) (provider T, close func(), err error)

// Table names the providers a deployment offers.
type Table[Env any] struct {
	Transcribers map[string]Factory[Env, callscribe.Transcriber]
	Summarizers  map[string]Factory[Env, callscribe.Summarizer]
	Taggers      map[string]Factory[Env, callscribe.Tagger]
	// Sentiment scores the transcripts' segments wherever a transcriber is
	// built (offline, nothing to configure); nil: results carry no sentiment.
	Sentiment callscribe.SentimentScorer
}

// Selection names the providers to build; an empty name is one the process
// does not need (an API process builds none; the callback worker none either).
type Selection struct {
	Transcriber string // TRANSCRIBER
	Summarizer  string // SUMMARIZER
	Tagger      string // TAGGER
}

// Engines are the providers a process uses.
type Engines struct {
	Transcriber callscribe.Transcriber
	Summarizer  callscribe.Summarizer
	Tagger      callscribe.Tagger
	Sentiment   callscribe.SentimentScorer
	closers     []func()
}

// Close releases the providers' resources.
func (e *Engines) Close() {
	for _, c := range e.closers {
		c()
	}
}

// Build makes the selected providers. A name the table does not offer is an
// error naming the setting and the choices.
func Build[Env any](t Table[Env], env Env, sel Selection) (*Engines, error) {
	e := &Engines{}
	var err error
	if e.Transcriber, err = build(e, "TRANSCRIBER", "speech engine", t.Transcribers, sel.Transcriber, env); err != nil {
		e.Close()
		return nil, err
	}
	if e.Transcriber != nil {
		e.Sentiment = t.Sentiment
	}
	if e.Summarizer, err = build(e, "SUMMARIZER", "summarizer", t.Summarizers, sel.Summarizer, env); err != nil {
		e.Close()
		return nil, err
	}
	if e.Tagger, err = build(e, "TAGGER", "tagger", t.Taggers, sel.Tagger, env); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

func build[Env, T any](e *Engines, setting, what string, factories map[string]Factory[Env, T], name string, env Env) (T, error) {
	var zero T
	if name == "" {
		return zero, nil
	}
	f, ok := factories[name]
	if !ok {
		return zero, fmt.Errorf("%s=%q is not one of %v", setting, name, names(factories))
	}
	p, closeFn, err := f(env)
	if err != nil {
		return zero, fmt.Errorf("starting the %s %s: %w", name, what, err)
	}
	if closeFn != nil {
		e.closers = append(e.closers, closeFn)
	}
	return p, nil
}

func names[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
