package engines

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

type fakeTranscriber struct{ name string }

func (fakeTranscriber) Transcribe(context.Context, callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	return nil, nil
}

func TestBuildSelectsClosesAndExplains(t *testing.T) {
	var closed []string
	table := Table[string]{
		Transcribers: map[string]Factory[string, callscribe.Transcriber]{
			"a": func(env string) (callscribe.Transcriber, func(), error) {
				return fakeTranscriber{env + "/a"}, func() { closed = append(closed, "a") }, nil
			},
			"broken": func(string) (callscribe.Transcriber, func(), error) { return nil, nil, errors.New("no model") },
		},
	}
	e, err := Build(table, "env", Selection{Transcriber: "a"})
	if err != nil || e.Transcriber.(fakeTranscriber).name != "env/a" || e.Summarizer != nil || e.Tagger != nil {
		t.Fatalf("built %+v, %v", e, err)
	}
	e.Close()
	if len(closed) != 1 {
		t.Fatalf("closers run: %v", closed)
	}
	if e, err := Build(table, "env", Selection{}); err != nil || e.Transcriber != nil {
		t.Fatalf("an empty selection built %+v, %v", e, err)
	}
	_, err = Build(table, "env", Selection{Transcriber: "whisper"})
	if err == nil || !strings.Contains(err.Error(), `TRANSCRIBER="whisper" is not one of [a broken]`) {
		t.Fatalf("unknown name: %v", err)
	}
	_, err = Build(table, "env", Selection{Transcriber: "a", Tagger: "builtin"})
	if err == nil || !strings.Contains(err.Error(), "TAGGER") || len(closed) != 2 {
		t.Fatalf("a failure after a built provider must close it: %v, closed %v", err, closed)
	}
	_, err = Build(table, "env", Selection{Transcriber: "broken"})
	if err == nil || !strings.Contains(err.Error(), "starting the broken speech engine: no model") {
		t.Fatalf("factory failure: %v", err)
	}
}

type fakeScorer struct{}

func (fakeScorer) ScoreSentiment(string) *callscribe.SegmentSentiment { return nil }

// The table's sentiment scorer comes with a transcriber, and only then.
func TestBuildCarriesTheSentimentScorer(t *testing.T) {
	table := Table[string]{
		Transcribers: map[string]Factory[string, callscribe.Transcriber]{
			"a": func(env string) (callscribe.Transcriber, func(), error) { return fakeTranscriber{env}, nil, nil },
		},
		Sentiment: fakeScorer{},
	}
	e, err := Build(table, "env", Selection{Transcriber: "a"})
	if err != nil || e.Sentiment == nil {
		t.Fatalf("with a transcriber: %v %v", e, err)
	}
	if e, err := Build(table, "env", Selection{}); err != nil || e.Sentiment != nil {
		t.Fatalf("without one: %v %v", e, err)
	}
}
