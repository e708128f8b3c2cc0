//go:build cgo

package sphinx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// speakerLines are two sentences by one speaker, enough words (23) for the
// channel to be adapted to (speakerMinWords) with room for a few first-pass
// errors. Decoding dominates these tests' time, so no more speech than that.
var speakerLines = []string{
	"Thank you for calling customer service. How can I help you today?",
	"I can see the payment on your account from last Monday.",
}

func needSphinxTrain(t *testing.T) {
	t.Helper()
	needModel(t)
	if _, err := os.Stat(filepath.Join(DefaultSphinxTrainDir, "bw")); err != nil {
		t.Skip("sphinxtrain is not installed; run make deps-speech")
	}
}

// speakerTrack is speakerLines by voice at rate, a second of silence around
// each.
func speakerTrack(t *testing.T, voice string, rate int) []int16 {
	t.Helper()
	var clips []clip
	at := 1.0
	for _, line := range speakerLines {
		pcm := speak(t, voice, line, rate)
		clips = append(clips, clip{at, pcm})
		at += float64(len(pcm))/float64(rate) + 1
	}
	return track(rate, at+1, clips...)
}

// speakerCall is one channel holding speakerTrack, with its reference text.
func speakerCall(t *testing.T, voice string, rate int) ([]byte, string) {
	t.Helper()
	return wavOf(t, rate, speakerTrack(t, voice, rate)), strings.Join(speakerLines, " ")
}

// adaptingTranscriber is a one-decoder transcriber with speaker adaptation
// whose debug logs the test reads.
func adaptingTranscriber(t *testing.T) (*Transcriber, *bytes.Buffer) {
	t.Helper()
	logs := new(bytes.Buffer)
	tr, err := NewTranscriber(Config{Decoders: 1, SpeakerAdaptation: true,
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.Close)
	return tr, logs
}

// debugLine decodes into line the first debug line logged with msg.
func debugLine(t *testing.T, logs *bytes.Buffer, msg string, line any) {
	t.Helper()
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `"msg":"`+msg+`"`) {
			if err := json.Unmarshal([]byte(l), line); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no %q logged:\n%s", msg, logs.String())
}

// adaptationLog is the debug line speaker adaptation logged for a channel.
func adaptationLog(t *testing.T, logs *bytes.Buffer) (line struct {
	Rounds         int       `json:"rounds"`
	VarianceScale  []float64 `json:"variance_scale"`
	Classes        int       `json:"classes"`
	DomainLMWeight float64   `json:"domain_lm_weight"`
}) {
	t.Helper()
	debugLine(t, logs, "sphinx speaker adaptation", &line)
	return line
}

// warpLog is the debug line the frequency warp's choice logged for a channel.
func warpLog(t *testing.T, logs *bytes.Buffer) (line struct {
	Factor         float64   `json:"factor"`
	LogLikPerFrame []float64 `json:"loglik_per_frame"`
}) {
	t.Helper()
	debugLine(t, logs, "sphinx frequency warp", &line)
	return line
}

func transcribeText(t *testing.T, tr *Transcriber, audio []byte) string {
	t.Helper()
	res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: audio})
	if err != nil {
		t.Fatal(err)
	}
	return joined(res)
}

// With speaker adaptation a telephone channel is decoded, adapted to and
// decoded again, and still recognised; wideband audio is decoded once.
func TestSpeakerAdaptationAdaptsTelephoneChannels(t *testing.T) {
	needSphinxTrain(t)
	t.Parallel() // own one-decoder transcribers: another such test can use the other core
	tr, logs := adaptingTranscriber(t)
	// What the pooled decoder decodes before and after the jobs: the same,
	// once the channel's fitted LM weight is undone.
	probe, err := tr.all[0].cepstra(speak(t, "slt", shortLine, 16000))
	if err != nil {
		t.Fatal(err)
	}
	probeWords := func() string {
		t.Helper()
		words, err := tr.all[0].decodeCepstra(probe)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(words) // text, frames and posterior of each word
	}
	before := probeWords()
	for _, rate := range []int{8000, 16000} {
		logs.Reset()
		audio, ref := speakerCall(t, "slt", rate)
		got := transcribeText(t, tr, audio)
		if w := wer(ref, got); w > 0.3 {
			t.Errorf("%d Hz: WER %.0f%% (%q)", rate, 100*w, got)
		}
		if search := tr.all[0].activeSearch(); search != "mixed" {
			t.Errorf("%d Hz: the decoder went back to the pool on search %q, want mixed", rate, search)
		}
		adapted := strings.Contains(logs.String(), `"msg":"sphinx speaker adaptation"`)
		if adapted != (rate == 8000) {
			t.Errorf("%d Hz: adapted = %v; logs:\n%s", rate, adapted, logs.String())
		}
		if adapted && !strings.Contains(logs.String(), `"redecoded":false`) {
			t.Errorf("%d Hz: a clean channel was decoded again between rounds; logs:\n%s", rate, logs.String())
		}
		if adapted {
			// One speaker's frames spread less than the speaker-independent
			// model's Gaussians: each stream's variance scale is under 1.
			adaptation := adaptationLog(t, logs)
			scale := adaptation.VarianceScale
			// Each broad phonetic class had a transform of its own.
			if adaptation.Classes != phoneClassCount {
				t.Errorf("%d Hz: %d classes of Gaussians adapted, want %d", rate, adaptation.Classes, phoneClassCount)
			}
			// Call-centre lines: the domain LM's weight for the last decode
			// was fitted above the fixed one (lmmix.go).
			if w := adaptation.DomainLMWeight; w <= DefaultDomainLMWeight || w >= 1 {
				t.Errorf("%d Hz: domain LM weight %v fitted for call-centre lines, want above %v", rate, w, DefaultDomainLMWeight)
			}
			if len(scale) != 3 {
				t.Errorf("%d Hz: variance scale %v, want one per stream", rate, scale)
			}
			for i, v := range scale {
				if v <= minVarianceScale || v >= 1 {
					t.Errorf("%d Hz: stream %d's variance scale %v, want between %v and 1", rate, i, v, minVarianceScale)
				}
			}
			// Before adapting, the channel chose its frequency warp among
			// none and the default ones, scoring each by a real alignment.
			warp := warpLog(t, logs)
			if !slices.Contains(append([]float64{1}, DefaultSpeakerWarpFactors...), warp.Factor) {
				t.Errorf("%d Hz: warp %v, want 1 or one of %v", rate, warp.Factor, DefaultSpeakerWarpFactors)
			}
			if len(warp.LogLikPerFrame) != 1+len(DefaultSpeakerWarpFactors) {
				t.Errorf("%d Hz: log-likelihoods %v, want one per candidate", rate, warp.LogLikPerFrame)
			}
			for _, ll := range warp.LogLikPerFrame {
				if ll >= 0 || ll < -1000 {
					t.Errorf("%d Hz: log-likelihood per frame %v, want a real alignment's", rate, ll)
				}
			}
		}
	}
	if after := probeWords(); after != before {
		t.Errorf("after the jobs the decoder decodes\n%s\nwant, as before them,\n%s", after, before)
	}
}

// A channel whose first pass heard few words with confidence (here a noisy
// line) is decoded again on the quick search between the rounds, and the
// decoder still goes back to the pool on its full search.
func TestUnreliableFirstPassIsDecodedAgainBetweenRounds(t *testing.T) {
	needSphinxTrain(t)
	t.Parallel() // own one-decoder transcribers: another such test can use the other core
	tr, logs := adaptingTranscriber(t)
	const rate = 8000
	audio := wavOf(t, rate, withNoise(speakerTrack(t, "slt", rate), 200, 0))
	if got := transcribeText(t, tr, audio); got == "" {
		t.Fatal("the noisy call decoded as nothing")
	}
	if !strings.Contains(logs.String(), `"redecoded":true`) {
		t.Errorf("the noisy channel was not decoded again between rounds; logs:\n%s", logs.String())
	}
	if search := tr.all[0].activeSearch(); search != "mixed" {
		t.Errorf("the decoder went back to the pool on search %q, want mixed", search)
	}
}

// When SphinxTrain fails the channel keeps its first pass (the transcript
// without adaptation) and the failure is logged; the job does not fail.
func TestSpeakerAdaptationFailureKeepsTheFirstPass(t *testing.T) {
	needSphinxTrain(t)
	t.Parallel() // own one-decoder transcribers: another such test can use the other core
	tools := t.TempDir()
	for _, tool := range []string{"bw", "mllr_solve"} {
		if err := os.WriteFile(filepath.Join(tools, tool), []byte("#!/bin/sh\necho broken >&2\nexit 3\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	broken, err := NewTranscriber(Config{Decoders: 1, SpeakerAdaptation: true, SphinxTrainDir: tools,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer broken.Close()
	plain, err := NewTranscriber(Config{Decoders: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	audio, _ := speakerCall(t, "slt", 8000)
	got, want := transcribeText(t, broken, audio), transcribeText(t, plain, audio)
	if got != want || got == "" {
		t.Errorf("with SphinxTrain failing: %q, want the first pass %q", got, want)
	}
	if !strings.Contains(logs.String(), "speaker adaptation failed") || !strings.Contains(logs.String(), "broken") {
		t.Errorf("the failure is not logged with its cause:\n%s", logs.String())
	}
}

// A channel with too few words to adapt to is still reported from the full
// search, not from the quick first pass that adaptation aligns: the same
// words as a transcriber without adaptation hears.
func TestTooFewWordsToAdaptToAreDecodedOnTheFullSearch(t *testing.T) {
	needSphinxTrain(t)
	t.Parallel() // own one-decoder transcribers: another such test can use the other core
	adapting, logs := adaptingTranscriber(t)
	plain, err := NewTranscriber(Config{Decoders: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	const rate = 8000
	// Fewer than speakerMinWords, in a sentence the quick search hears
	// differently.
	pcm := speak(t, "slt", speakerLines[0], rate)
	audio := wavOf(t, rate, track(rate, float64(len(pcm))/rate+2, clip{1, pcm}))
	got, want := transcribeText(t, adapting, audio), transcribeText(t, plain, audio)
	if got != want || got == "" {
		t.Errorf("too few words to adapt to: %q, want the full search's %q", got, want)
	}
	if search := adapting.all[0].activeSearch(); search != "mixed" {
		t.Errorf("the decoder went back to the pool on search %q, want mixed", search)
	}
	// The debug log says why the channel was not adapted to, and at what
	// domain LM weight it was decoded.
	var skipped struct {
		Words          int      `json:"words"`
		MinWords       int      `json:"min_words"`
		DomainLMWeight *float64 `json:"domain_lm_weight"`
	}
	debugLine(t, logs, "sphinx speaker adaptation skipped", &skipped)
	if skipped.Words <= 0 || skipped.Words >= skipped.MinWords || skipped.MinWords != speakerMinWords || skipped.DomainLMWeight == nil {
		t.Errorf("skipped adaptation logged %+v, want the channel's few words, min_words %d and its LM weight", skipped, speakerMinWords)
	}
}

// errAfter is a context whose Err reports cancellation from its n-th call on,
// so a test can stop a transcription at each point that checks it.
// checkpoints is a context that counts a job's cancellation checks (its
// Err calls), notes where in the engine each was made, and reports the job
// cancelled from check stopAt on (never, when stopAt is 0).
type checkpoints struct {
	context.Context
	stopAt int
	mu     sync.Mutex
	sites  []string
}

func (c *checkpoints) Err() error {
	_, file, line, _ := runtime.Caller(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sites = append(c.sites, fmt.Sprintf("%s:%d", filepath.Base(file), line))
	if c.stopAt > 0 && len(c.sites) >= c.stopAt {
		return context.Canceled
	}
	return nil
}

// stops lists the checks (1-based) to stop a job at: the first check made
// at each place, which stops the job as it enters that stage.
func (c *checkpoints) stops() []int {
	seen := map[string]bool{}
	var at []int
	for i, site := range c.sites {
		if !seen[site] {
			seen[site] = true
			at = append(at, i+1)
		}
	}
	return at
}

// Whether a job finishes or stops in its first pass, its adaptation or its
// last decode, with keyterms or without, the decoder goes back to the pool on
// its full search: the next job must not be decoded on the quick one (or on
// the last job's keyterms). A whole job without keyterms on this audio is
// TestSpeakerAdaptationAdaptsTelephoneChannels's, which checks the same; here
// the jobs without keyterms stop where the keyterms' job was seen to check.
func TestDecoderReturnsToItsFullSearch(t *testing.T) {
	needSphinxTrain(t)
	t.Parallel() // own one-decoder transcribers: another such test can use the other core
	tr, err := NewTranscriber(Config{Decoders: 1, SpeakerAdaptation: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	audio, _ := speakerCall(t, "slt", 8000)
	withKeyterms := []string{"payment", "customer service"}
	// A whole job first, noting where the engine checks for cancellation;
	// then jobs stopped as they enter each of those stages. (Stopping at
	// every check costs a partial decode a check, and the checks within a
	// stage leave the decoder in the same state.)
	whole := &checkpoints{Context: context.Background()}
	if _, err := tr.Transcribe(whole, callscribe.TranscriptionRequest{Audio: audio, Keyterms: withKeyterms}); err != nil {
		t.Fatal(err)
	}
	if search := tr.all[0].activeSearch(); search != "mixed" {
		t.Fatalf("a finished job with keyterms: the decoder is on search %q, want mixed", search)
	}
	stops := whole.stops() // one a place the engine checks at
	// The first pass's regions and the last decode's at least: fewer means
	// the checks have moved.
	if len(stops) < 2 {
		t.Fatalf("the job checked for cancellation at %v only", whole.sites)
	}
	for _, keyterms := range [][]string{withKeyterms, nil} {
		for _, n := range stops {
			ctx := &checkpoints{Context: context.Background(), stopAt: n}
			_, err := tr.Transcribe(ctx, callscribe.TranscriptionRequest{Audio: audio, Keyterms: keyterms})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("keyterms %q, stopped at check %d of %d (%s): err %v, want cancelled", keyterms, n, len(whole.sites), whole.sites[n-1], err)
			}
			// Without keyterms the job must check at the same places, or it
			// was not stopped in the stage it was meant to be.
			if len(ctx.sites) != n || ctx.sites[n-1] != whole.sites[n-1] {
				t.Fatalf("keyterms %q: stopped at %v, want check %d at %s", keyterms, ctx.sites, n, whole.sites[n-1])
			}
			if search := tr.all[0].activeSearch(); search != "mixed" {
				t.Fatalf("keyterms %q, stopped at check %d (%s): the decoder is on search %q, want mixed", keyterms, n, whole.sites[n-1], search)
			}
		}
	}
	t.Logf("%d checks at %d places, stopped at %v", len(whole.sites), len(stops), stops)
}

// Without SphinxTrain's tools the engine does not start with adaptation on,
// and says what to install.
func TestSpeakerAdaptationNeedsSphinxTrain(t *testing.T) {
	needModel(t)
	tr, err := NewTranscriber(Config{Decoders: 1, SpeakerAdaptation: true, SphinxTrainDir: t.TempDir()})
	if err == nil {
		tr.Close()
		t.Fatal("started without SphinxTrain")
	}
	if !strings.Contains(err.Error(), "sphinxtrain") {
		t.Errorf("error %q does not say to install sphinxtrain", err)
	}
}

func TestAlignmentUtterancesKeepConfidentRuns(t *testing.T) {
	const dim = 2
	cep := make([]float32, 100*dim)
	for i := range cep {
		cep[i] = float32(i / dim) // each frame holds its own index
	}
	p := regionPass{cep: cep, words: []word{
		{Text: "thank", Start: 10, End: 19, Posterior: 0.9},
		{Text: "you", Start: 20, End: 29, Posterior: 0.8},
		{Text: "for", Start: 30, End: 34, Posterior: 0.1}, // a likely error: cuts the run
		{Text: "calling", Start: 35, End: 50, Posterior: 0.95},
		{Text: "us", Start: 51, End: 60, Posterior: 0.2},
		{Text: "today", Start: 61, End: 70, Posterior: 0.7},
		{Text: "please", Start: 71, End: 97, Posterior: 0.99},
	}}
	all := alignmentUtterances(p, 0, dim)
	if len(all) != 1 || len(all[0].words) != 7 || len(all[0].cep) != len(cep) {
		t.Fatalf("without a threshold: %d utterances, want the whole region once", len(all))
	}
	got := alignmentUtterances(p, 0.5, dim)
	// "thank you" and "today please"; "calling" alone is too short to align.
	if len(got) != 2 {
		t.Fatalf("%d utterances, want 2: %+v", len(got), got)
	}
	for i, want := range []struct {
		words    string
		from, to int // frames, margin included, clipped to the region
	}{{"thank you", 5, 35}, {"today please", 56, 100}} {
		u := got[i]
		if w := strings.Join(u.words, " "); w != want.words {
			t.Errorf("utterance %d: %q, want %q", i, w, want.words)
		}
		if first, n := int(u.cep[0]), len(u.cep)/dim; first != want.from || first+n != want.to {
			t.Errorf("utterance %d: frames %d..%d, want %d..%d", i, first, first+n, want.from, want.to)
		}
	}
}

func TestConfidentShare(t *testing.T) {
	passes := []regionPass{
		{words: []word{{Text: "a", Posterior: 0.9}, {Text: "b", Posterior: 0.5}}},
		{},
		{words: []word{{Text: "c", Posterior: 0.49}, {Text: "d", Posterior: 0.1}}},
	}
	if got := confidentShare(passes, 0.5); got != 0.5 {
		t.Errorf("share at 0.5 = %v, want 0.5 (a posterior equal to the threshold counts)", got)
	}
	if got := confidentShare(passes, 0.95); got != 0 {
		t.Errorf("share at 0.95 = %v, want 0", got)
	}
	if got := confidentShare([]regionPass{{}, {}}, 0.5); got != 1 {
		t.Errorf("share without words = %v, want 1 (nothing to decode again)", got)
	}
}

// bw given only the entries of its transcription's words (pronunciations.go)
// aligns exactly as with the whole dictionary: the same alignment scores and
// the same statistics, byte for byte.
func TestAlignmentWithItsWordsEntriesMatchesTheWholeDictionary(t *testing.T) {
	needSphinxTrain(t)
	t.Parallel()
	tr, _ := adaptingTranscriber(t)
	d, s := tr.all[0], tr.speaker
	set := alignmentSet{dir: t.TempDir()}
	for i, line := range speakerLines {
		cep, err := d.cepstra(speak(t, "rms", line, 16000))
		if err != nil {
			t.Fatal(err)
		}
		// The line's own words ("for" and "can" have alternate
		// pronunciations), aligned as one utterance.
		if err := set.add(fmt.Sprintf("u%d", i), alignmentUtterance{cep: cep, words: NormalizeText(line)}); err != nil {
			t.Fatal(err)
		}
	}
	ctl, lsn, own, err := set.write(s.dict)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(own); bytes.Count(b, []byte("\n")) > 40 {
		t.Fatalf("the alignment's dictionary has more than 40 lines for two sentences:\n%s", b)
	}
	align := func(dict string) (map[string]AlignmentScore, [][]byte) {
		t.Helper()
		accum := filepath.Join(t.TempDir(), "accum")
		if err := os.Mkdir(accum, 0o700); err != nil {
			t.Fatal(err)
		}
		scores, err := AlignmentScores(t.Context(), s.tools, s.model, dict, ctl, lsn, set.dir, accum, "", filepath.Join(accum, "bw.log"))
		if err != nil {
			t.Fatal(err)
		}
		var counts [][]byte
		for _, f := range []string{"gauden_counts", "mixw_counts", "tmat_counts"} {
			b, err := os.ReadFile(filepath.Join(accum, f))
			if err != nil {
				t.Fatal(err)
			}
			counts = append(counts, b)
		}
		return scores, counts
	}
	wantScores, wantCounts := align(s.dict) // the whole dictionary the decoder reads
	gotScores, gotCounts := align(own)
	if len(wantScores) != set.n {
		t.Fatalf("the whole dictionary aligned %d of %d utterances", len(wantScores), set.n)
	}
	if fmt.Sprint(gotScores) != fmt.Sprint(wantScores) {
		t.Errorf("scores %v with the alignment's own dictionary, want %v", gotScores, wantScores)
	}
	for i := range wantCounts {
		if !bytes.Equal(gotCounts[i], wantCounts[i]) {
			t.Errorf("statistics file %d differs from the whole dictionary's", i)
		}
	}
}
