//go:build cgo

package sphinx

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/moonshine"
)

// loadMoonshine loads the neural model make deps-speech-models installs (or
// the one at $MOONSHINE_MODEL_DIR).
func loadMoonshine(t *testing.T) *moonshine.Model {
	t.Helper()
	dir := os.Getenv("MOONSHINE_MODEL_DIR")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", ".cache", "speech-models", "moonshine-tiny")
	}
	m, err := moonshine.Load(dir)
	if err != nil {
		t.Fatalf("loading the neural model (make deps-speech-models installs it): %v", err)
	}
	t.Cleanup(m.Close)
	return m
}

// With the neural model, alone or combined with PocketSphinx, each channel's
// regions are still found here, both legs are recognised, and every word lies
// inside its segment, in order, in spoken form, with a confidence.
func TestTheNeuralModelWritesEachRegionsWords(t *testing.T) {
	needModel(t)
	const rate = 8000
	agent, user := speak(t, "slt", agentLine, rate), speak(t, "rms", userLine, rate)
	userAt := 1.0 + float64(len(agent))/rate + 0.8
	length := userAt + float64(len(user))/rate + 0.7
	audio := wavOf(t, rate, track(rate, length, clip{1.0, agent}), track(rate, length, clip{userAt, user}))
	m := loadMoonshine(t)
	for _, alone := range []bool{true, false} {
		res, logs := transcribeWithLogs(t, Config{Moonshine: m, MoonshineOnly: alone}, audio)
		if !alone && !strings.Contains(logs.String(), "sphinx two recognisers") {
			t.Errorf("combined: no line says how the two recognisers were combined")
		}
		checkNeuralResult(t, res, length, userAt)
	}
}

func checkNeuralResult(t *testing.T, res *callscribe.TranscriptionResult, length, userAt float64) {
	t.Helper()
	texts := speakerTexts(res)
	if w := wer(agentLine, texts[0]); w > 0.25 {
		t.Errorf("agent: %q (WER %.0f%%)", texts[0], 100*w)
	}
	if w := wer(userLine, texts[1]); w > 0.25 {
		t.Errorf("user: %q (WER %.0f%%)", texts[1], 100*w)
	}
	for _, s := range res.Transcript {
		speechAt := 1.0
		if s.SpeakerID == 1 {
			speechAt = userAt
		}
		if s.TimeStart < speechAt-0.5 || s.TimeEnd > length {
			t.Errorf("segment %q at %.2f-%.2f, speech from %.2f", s.Text, s.TimeStart, s.TimeEnd, speechAt)
		}
		prev := s.TimeStart
		for _, w := range s.Words {
			if w.Start < prev || w.End < w.Start || w.End > s.TimeEnd {
				t.Errorf("word %q at %.2f-%.2f out of order or outside %.2f-%.2f", w.Text, w.Start, w.End, s.TimeStart, s.TimeEnd)
			}
			if w.Confidence == nil || *w.Confidence <= 0 || *w.Confidence > 1 {
				t.Errorf("word %q has confidence %v", w.Text, w.Confidence)
			}
			if w.Text != strings.ToLower(w.Text) || strings.ContainsAny(w.Text, ".,?!$") {
				t.Errorf("word %q is not in spoken form", w.Text)
			}
			prev = w.End
		}
	}
}
