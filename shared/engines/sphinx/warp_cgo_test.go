//go:build cgo

package sphinx

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// maxAbsDiff is the largest difference between two equally long vectors.
func maxAbsDiff(a, b []float32) float64 {
	var m float64
	for i := range a {
		m = max(m, math.Abs(float64(a[i]-b[i])))
	}
	return m
}

// oneDecoder is a one-decoder transcriber without speaker adaptation and
// its decoder.
func oneDecoder(t *testing.T) (*Transcriber, *decoder) {
	t.Helper()
	needModel(t)
	tr, err := NewTranscriber(Config{Decoders: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.Close)
	return tr, tr.all[0]
}

// A warped front end copies every other parameter of the decoder's: warped by
// 1 it computes the decoder's own cepstra. Warped by 1.08 it computes other
// cepstra, and the same ones again when built after a front end without a
// warp (sphinxbase keeps the warp in static variables; addWarp's comment).
func TestWarpedFrontEnds(t *testing.T) {
	t.Parallel()
	_, d := oneDecoder(t)
	speech := speak(t, "slt", shortLine, 16000)
	own, err := d.cepstra(speech)
	if err != nil {
		t.Fatal(err)
	}
	warpedBy := func(factor float64) []float32 {
		t.Helper()
		if err := d.addWarp(factor); err != nil {
			t.Fatal(err)
		}
		cep, err := d.warpedCepstra(len(d.warps)-1, speech, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(cep) != len(own) {
			t.Fatalf("warped by %v: %d values, the decoder's front end %d", factor, len(cep), len(own))
		}
		return cep
	}
	if diff := maxAbsDiff(warpedBy(1), own); diff > 1e-5 {
		t.Errorf("warped by 1: differs from the decoder's cepstra by up to %v", diff)
	}
	first := warpedBy(1.08)
	if diff := maxAbsDiff(first, own); diff < 0.05 {
		t.Errorf("warped by 1.08: differs from the decoder's cepstra by only %v", diff)
	}
	v, err := newVAD(DefaultVADThreshold) // a front end without a warp
	if err != nil {
		t.Fatal(err)
	}
	v.close()
	if again := warpedBy(1.08); !slices.Equal(again, first) {
		t.Errorf("warped by 1.08 after a front end without a warp: differs by up to %v", maxAbsDiff(again, first))
	}
	for _, bad := range []float64{0, 0.3, 3, math.NaN()} {
		if err := d.addWarp(bad); err == nil {
			t.Errorf("warp %v: no error", bad)
		}
	}
}

// refWords are a line's words as the dictionary spells them.
func refWords(line string) []string {
	return strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || r == '\'' {
			return unicode.ToLower(r)
		}
		return ' '
	}, line))
}

// chooseWarp runs a real bw alignment of every candidate and picks the one
// whose features fit the words: here the true features against the same
// frames in reverse order, listed first as if they were the unwarped ones.
func TestChooseWarpPicksTheFeaturesTheWordsFit(t *testing.T) {
	needSphinxTrain(t)
	t.Parallel()
	tr, _ := adaptingTranscriber(t)
	tr.speaker.minPosterior = -1 // align each region with all its words
	d := tr.all[0]
	dim := d.cepDim()
	var truth, reversed []regionPass
	for _, line := range speakerLines {
		cep, err := d.cepstra(speak(t, "slt", line, 16000))
		if err != nil {
			t.Fatal(err)
		}
		frames := len(cep) / dim
		back := make([]float32, len(cep))
		for f := range frames {
			copy(back[f*dim:(f+1)*dim], cep[(frames-1-f)*dim:(frames-f)*dim])
		}
		var words []word
		for _, w := range refWords(line) {
			words = append(words, word{Text: w})
		}
		truth = append(truth, regionPass{cep: cep, words: words})
		reversed = append(reversed, regionPass{cep: back, words: words})
	}
	best, perFrame, err := tr.speaker.chooseWarp(context.Background(), [][]regionPass{reversed, truth}, "", modelStreams[0])
	if err != nil {
		t.Fatal(err)
	}
	if best != 1 || len(perFrame) != 2 || perFrame[1] <= perFrame[0] {
		t.Errorf("best %d with log-likelihoods per frame %v; want the true features (1) scoring higher", best, perFrame)
	}
	// A margin above the gap keeps candidate 0.
	tr.speaker.warpMargin = perFrame[1] - perFrame[0] + 0.01
	if best, _, err := tr.speaker.chooseWarp(context.Background(), [][]regionPass{reversed, truth}, "", modelStreams[0]); err != nil || best != 0 {
		t.Errorf("with a margin above the gap: best %d (%v), want 0", best, err)
	}
}
