//go:build cgo

package sphinx

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// keytermCall is the audio the keyterm tests decode: one sentence with a
// product name the stock and domain LMs do not expect, on both channels of a
// 16 kHz call, so that both decoders of a two-decoder transcriber serve each
// job.
const keytermCall = "Your Vortex router needs a firmware update."

// keytermDecoding is what the keyterm tests assert on: a fresh two-decoder
// transcriber's decoders' searches and its transcripts of keytermCall before
// a job with keyterms, in that job, and after it. Decoding dominates these
// tests' time, so the audio is decoded once for all of them.
type keytermDecoding struct {
	keyterms []string
	// searchesBefore and searchesAfter are each decoder's active search
	// before and right after the keyterm job; leftAfter whether a keyterm
	// search was left on it.
	searchesBefore, searchesAfter []string
	leftAfter                     []bool
	first, boosted, again         *callscribe.TranscriptionResult
}

var (
	keytermMu  sync.Mutex
	keytermRun *keytermDecoding
)

// decodeKeytermCall returns the keyterm decoding, made by the first test
// that asks. A test that skips or fails while making it leaves nothing
// behind, and the next one tries again.
func decodeKeytermCall(t *testing.T) *keytermDecoding {
	t.Helper()
	keytermMu.Lock()
	defer keytermMu.Unlock()
	if keytermRun != nil {
		return keytermRun
	}
	tr := transcriber(t)
	speech := speak(t, "slt", keytermCall, 16000)
	pcm := track(16000, 2+float64(len(speech))/16000, clip{1.0, speech})
	req := callscribe.TranscriptionRequest{Audio: wavOf(t, 16000, pcm, pcm), Format: callscribe.FormatWAV}
	r := &keytermDecoding{keyterms: []string{"Vortex router", "Zyxqvo"}}
	for _, d := range tr.all {
		active, _ := d.searchState()
		r.searchesBefore = append(r.searchesBefore, active)
	}
	var err error
	if r.first, err = tr.Transcribe(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	kreq := req
	kreq.Keyterms = r.keyterms
	if r.boosted, err = tr.Transcribe(context.Background(), kreq); err != nil {
		t.Fatal(err)
	}
	for _, d := range tr.all {
		active, left := d.searchState()
		r.searchesAfter, r.leftAfter = append(r.searchesAfter, active), append(r.leftAfter, left)
	}
	if r.again, err = tr.Transcribe(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	keytermRun = r
	return r
}

// A product name the stock and domain LMs do not expect is recognised once it
// is a keyterm; words missing from the dictionary are reported, not dropped.
func TestKeytermsBoostTheirWords(t *testing.T) {
	r := decodeKeytermCall(t)
	const text = keytermCall
	if r.first.MetaData != nil {
		t.Errorf("a job without keyterms has meta_data %+v", r.first.MetaData)
	}
	base, got := channelText(r.first, 0), channelText(r.boosted, 0)
	t.Logf("without keyterms: %q; with: %q", base, got)
	if !strings.Contains(got, "vortex router") {
		t.Errorf("with the keyterm %q the transcript is %q", r.keyterms[0], got)
	}
	if w := wer(text, got); w >= wer(text, base) && w > 0 {
		t.Errorf("WER with keyterms %.0f%% is not below %.0f%% without", 100*w, 100*wer(text, base))
	}
	if r.boosted.MetaData == nil || r.boosted.MetaData.Keyterms == nil {
		t.Fatalf("no meta_data.keyterms: %+v", r.boosted.MetaData)
	}
	kt := r.boosted.MetaData.Keyterms
	if kt.Method != callscribe.KeytermsLanguageModel || !slices.Equal(kt.Applied, []string{"Vortex router"}) || !slices.Equal(kt.UnknownWords, []string{"zyxqvo"}) {
		t.Errorf("report %+v", kt)
	}
}

// The boost is for one job: afterwards every decoder is back on its usual
// search with no keyterm search left, and the same audio decodes as before.
func TestKeytermsDoNotLeak(t *testing.T) {
	r := decodeKeytermCall(t)
	for i := range r.searchesBefore {
		active, leftover := r.searchesAfter[i], r.leftAfter[i]
		if active != r.searchesBefore[i] || leftover {
			t.Errorf("decoder %d after a keyterm job: active search %q (was %q), keyterm search left: %v", i, active, r.searchesBefore[i], leftover)
		}
	}
	if a, b := joined(r.first), joined(r.again); a != b {
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

// channelText is the words of one channel of a result, lower case, in time
// order.
func channelText(res *callscribe.TranscriptionResult, ch int) string {
	var out []string
	for _, s := range res.Transcript {
		if s.SpeakerID == ch {
			out = append(out, strings.Join(NormalizeText(s.Text), " "))
		}
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
