//go:build cgo

package sphinx

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// A product name the stock and domain LMs do not expect is recognised once it
// is a keyterm; words missing from the dictionary are reported, not dropped.
func TestKeytermsBoostTheirWords(t *testing.T) {
	tr := freshTranscriber(t)
	const text = "Your Vortex router needs a firmware update."
	speech := speak(t, "slt", text, 16000)
	audio := wavOf(t, 16000, track(16000, 2+float64(len(speech))/16000, clip{1.0, speech}))
	req := callscribe.TranscriptionRequest{Audio: audio, Format: callscribe.FormatWAV}
	base, err := tr.Transcribe(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if base.MetaData != nil {
		t.Errorf("a job without keyterms has meta_data %+v", base.MetaData)
	}
	req.Keyterms = []string{"Vortex router", "Zyxqvo"}
	boosted, err := tr.Transcribe(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got := joined(boosted)
	t.Logf("without keyterms: %q; with: %q", joined(base), got)
	if !strings.Contains(got, "vortex router") {
		t.Errorf("with the keyterm %q the transcript is %q", req.Keyterms[0], got)
	}
	if w := wer(text, got); w >= wer(text, joined(base)) && w > 0 {
		t.Errorf("WER with keyterms %.0f%% is not below %.0f%% without", 100*w, 100*wer(text, joined(base)))
	}
	if boosted.MetaData == nil || boosted.MetaData.Keyterms == nil {
		t.Fatalf("no meta_data.keyterms: %+v", boosted.MetaData)
	}
	kt := boosted.MetaData.Keyterms
	if kt.Method != callscribe.KeytermsLanguageModel || !slices.Equal(kt.Applied, []string{"Vortex router"}) || !slices.Equal(kt.UnknownWords, []string{"zyxqvo"}) {
		t.Errorf("report %+v", kt)
	}
}

// The boost is for one job: afterwards every decoder is back on its usual
// search with no keyterm search left, and the same audio decodes as before.
func TestKeytermsDoNotLeak(t *testing.T) {
	tr := freshTranscriber(t)
	const text = "Your Vortex router needs a firmware update."
	speech := speak(t, "slt", text, 16000)
	pcm := track(16000, 2+float64(len(speech))/16000, clip{1.0, speech})
	// Stereo: both decoders serve the keyterm job.
	req := callscribe.TranscriptionRequest{Audio: wavOf(t, 16000, pcm, pcm), Format: callscribe.FormatWAV}
	before := make([]string, len(tr.all))
	for i, d := range tr.all {
		before[i], _ = d.searchState()
	}
	first, err := tr.Transcribe(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	kreq := req
	kreq.Keyterms = []string{"Vortex router"}
	if _, err := tr.Transcribe(context.Background(), kreq); err != nil {
		t.Fatal(err)
	}
	for i, d := range tr.all {
		active, leftover := d.searchState()
		if active != before[i] || leftover {
			t.Errorf("decoder %d after a keyterm job: active search %q (was %q), keyterm search left: %v", i, active, before[i], leftover)
		}
	}
	again, err := tr.Transcribe(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := joined(first), joined(again); a != b {
		t.Errorf("the same audio decodes as %q before a keyterm job and %q after", a, b)
	}
}

// joined is a result's words, lower case, in time order.
func joined(res *callscribe.TranscriptionResult) string {
	var out []string
	for _, s := range res.Transcript {
		out = append(out, strings.Join(NormalizeText(s.Text), " "))
	}
	return strings.Join(out, " ")
}

// A job without speech decodes nothing but still reports its terms against
// the dictionary.
func TestKeytermsReportedWithoutSpeech(t *testing.T) {
	tr := transcriber(t)
	pcm := make([]int16, 8000)
	res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: wavOf(t, 8000, pcm, pcm), Keyterms: []string{"Northwind Energy"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.MetaData == nil || res.MetaData.Keyterms == nil {
		t.Fatalf("no meta_data.keyterms: %+v", res)
	}
	kt := res.MetaData.Keyterms
	if !slices.Equal(kt.Applied, []string{"Northwind Energy"}) || !slices.Equal(kt.UnknownWords, []string{"northwind"}) {
		t.Errorf("report %+v", kt)
	}
}
