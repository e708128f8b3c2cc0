//go:build cgo

package sphinx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// These tests recognise real speech synthesised with flite. Decoders take a
// second to load, so one Transcriber serves every test.
var (
	shared     *Transcriber
	sharedErr  error
	sharedOnce sync.Once
)

// needModel skips the test when the speech model is not installed.
func needModel(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(DefaultModelDir, "en-us.lm.bin")); err != nil {
		t.Skip("pocketsphinx-en-us is not installed; run make deps-speech")
	}
}

func transcriber(t *testing.T) *Transcriber {
	t.Helper()
	needModel(t)
	sharedOnce.Do(func() { shared, sharedErr = NewTranscriber(Config{Decoders: 2}) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	os.Exit(code)
}

// speak synthesises text at the given rate (flite, then sox for the rate).
func speak(t *testing.T, voice, text string, rate int) []int16 {
	t.Helper()
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed; run make deps-speech (tests recognise synthesised speech)")
	}
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw.wav")
	if b, err := exec.Command("flite", "-voice", voice, "-t", text, "-o", raw).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v %s", err, b)
	}
	data, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	a, err := decode.DecodeWAV(data)
	if err != nil {
		t.Fatal(err)
	}
	if a.SampleRate == rate {
		return a.Channels[0]
	}
	// Rate conversion for test input reuses the engine's resampler only for
	// 16 kHz; other rates go through sox so the test does not grade itself.
	if _, err := exec.LookPath("sox"); err != nil {
		t.Skip("sox is not installed; run make deps-speech")
	}
	conv := filepath.Join(dir, "conv.wav")
	if b, err := exec.Command("sox", "-D", raw, "-r", strconv.Itoa(rate), conv).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, b)
	}
	data, _ = os.ReadFile(conv)
	a, err = decode.DecodeWAV(data)
	if err != nil {
		t.Fatal(err)
	}
	return a.Channels[0]
}

// track lays out speech clips at given start times (seconds) on a silent track.
type clip struct {
	at  float64
	pcm []int16
}

func track(rate int, length float64, clips ...clip) []int16 {
	out := make([]int16, int(length*float64(rate)))
	for _, c := range clips {
		copy(out[int(c.at*float64(rate)):], c.pcm)
	}
	return out
}

// audibleSpan returns the times of the first and last samples above -40 dBFS.
func audibleSpan(pcm []int16, rate int) (float64, float64) {
	first, last := -1, -1
	for i, v := range pcm {
		if v > 328 || v < -328 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return float64(first) / float64(rate), float64(last+1) / float64(rate)
}

func wavOf(_ *testing.T, rate int, channels ...[]int16) []byte {
	return decode.EncodeWAV(rate, channels...)
}

func wer(ref, hyp string) float64 {
	r, h := NormalizeText(ref), NormalizeText(hyp)
	prev := make([]int, len(h)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(r); i++ {
		cur := make([]int, len(h)+1)
		cur[0] = i
		for j := 1; j <= len(h); j++ {
			c := prev[j-1]
			if r[i-1] != h[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return float64(prev[len(h)]) / float64(len(r))
}

func jobCode(err error) string {
	var je *callscribe.JobError
	if errors.As(err, &je) {
		return je.Code
	}
	return ""
}

const (
	agentLine = "Thank you for calling customer service. How can I help you today?"
	userLine  = "I would like to cancel my subscription please."
	shortLine = "Your refund has been processed."
)

// A known sentence, placed at a known time in mono 16 kHz audio: low WER and
// segment times within 0.1 s of the speech.
func TestRecognisesSentenceWithTimes(t *testing.T) {
	tr := transcriber(t)
	speech := speak(t, "slt", agentLine, 16000)
	pcm := track(16000, 2+float64(len(speech))/16000+1.5, clip{2.0, speech})
	res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: wavOf(t, 16000, pcm), Format: callscribe.FormatWAV, Language: "en-US"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Transcript) != 1 {
		t.Fatalf("want one segment, got %+v", res.Transcript)
	}
	s := res.Transcript[0]
	if w := wer(agentLine, s.Text); w > 0.2 {
		t.Errorf("WER %.0f%%: %q", 100*w, s.Text)
	}
	start, end := audibleSpan(pcm, 16000)
	if d := s.TimeStart - start; d < -0.1 || d > 0.1 {
		t.Errorf("time_start %.2f, speech starts at %.2f", s.TimeStart, start)
	}
	if d := s.TimeEnd - end; d < -0.1 || d > 0.1 {
		t.Errorf("time_end %.2f, speech ends at %.2f", s.TimeEnd, end)
	}
	if s.SpeakerID != 0 || s.SpeakerAlias != callscribe.AliasAgent {
		t.Errorf("mono speaker %d %q", s.SpeakerID, s.SpeakerAlias)
	}
	checkWords(t, s)
	// The confidences come from the lattice's posteriors, not the 1 (log 0)
	// the decoder reports when it has no lattice, which the confidence map
	// would turn into its value at 1 for every word.
	if s.Confidence == nil || *s.Confidence > 0.99 || *s.Confidence < 0.3 {
		t.Errorf("segment confidence %v: not a posterior of this line", s.Confidence)
	}
	if m, _ := BuiltinConfidenceMap(); s.Confidence != nil && abs(*s.Confidence-m.Apply(1, 16000)) < 1e-9 {
		t.Errorf("segment confidence %v: every word at posterior 1 (no lattice)", *s.Confidence)
	}
	if *res.Language != "en" || *res.WordsCount != len(strings.Fields(s.Text)) {
		t.Errorf("language %q words %d", *res.Language, *res.WordsCount)
	}
	if want := float64(len(pcm)) / 16000; res.DurationSeconds < want-0.01 || res.DurationSeconds > want+0.01 {
		t.Errorf("duration %.2f, want %.2f", res.DurationSeconds, want)
	}
}

// A two-channel 8 kHz call: each channel is its speaker, segments come in time
// order, and AGENT_CHANNEL decides the aliases.
func TestStereoTelephoneCall(t *testing.T) {
	tr := transcriber(t)
	agent := speak(t, "slt", agentLine, 8000)
	user := speak(t, "rms", userLine, 8000)
	agentLen := float64(len(agent)) / 8000
	userAt := 0.5 + agentLen + 0.7
	length := userAt + float64(len(user))/8000 + 0.5
	ch0 := track(8000, length, clip{0.5, agent})
	ch1 := track(8000, length, clip{userAt, user})
	audio := wavOf(t, 8000, ch0, ch1)
	res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: audio})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Transcript) != 2 {
		t.Fatalf("want two segments, got %+v", res.Transcript)
	}
	a, u := res.Transcript[0], res.Transcript[1]
	if a.SpeakerID != 0 || a.SpeakerAlias != "Agent" || u.SpeakerID != 1 || u.SpeakerAlias != "User" {
		t.Errorf("attribution: %+v", res.Transcript)
	}
	if w := wer(agentLine, a.Text); w > 0.3 {
		t.Errorf("agent WER %.0f%%: %q", 100*w, a.Text)
	}
	if w := wer(userLine, u.Text); w > 0.3 {
		t.Errorf("user WER %.0f%%: %q", 100*w, u.Text)
	}
	checkWords(t, a)
	checkWords(t, u)
	us, ue := audibleSpan(ch1, 8000)
	if d := u.TimeStart - us; d < -0.1 || d > 0.1 {
		t.Errorf("user time_start %.2f, speech starts at %.2f", u.TimeStart, us)
	}
	if d := u.TimeEnd - ue; d < -0.1 || d > 0.1 {
		t.Errorf("user time_end %.2f, speech ends at %.2f", u.TimeEnd, ue)
	}
	if *res.WordsCount != len(strings.Fields(a.Text))+len(strings.Fields(u.Text)) {
		t.Errorf("words_count %d", *res.WordsCount)
	}

	// AGENT_CHANNEL=1 swaps the aliases, not the ids. And the same call as
	// MP3 (MPEG 2.5 at 8 kHz) has the codec delay trimmed, so its times agree
	// with the WAV's. One more decoding checks both: the MP3 (the WAV when
	// sox cannot write MP3) on a transcriber with AGENT_CHANNEL=1.
	swapped := &Transcriber{cfg: tr.cfg, log: tr.log, pool: tr.pool, narrow: tr.narrow,
		mappedMLLRPath: tr.mappedMLLRPath, unmappedMLLRPath: tr.unmappedMLLRPath, identityPath: tr.identityPath}
	swapped.cfg.AgentChannel = 1
	req2, noMP3 := callscribe.TranscriptionRequest{Audio: audio}, ""
	if _, err := exec.LookPath("sox"); err == nil {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "c.wav"), audio, 0o644)
		if b, err := exec.Command("sox", filepath.Join(dir, "c.wav"), "-C", "32", filepath.Join(dir, "c.mp3")).CombinedOutput(); err != nil {
			noMP3 = fmt.Sprintf("sox cannot write MP3 (libsox-fmt-mp3 missing?): %s", b)
		} else {
			mp3, _ := os.ReadFile(filepath.Join(dir, "c.mp3"))
			req2 = callscribe.TranscriptionRequest{Audio: mp3, Format: callscribe.FormatMP3}
		}
	}
	res2, err := swapped.Transcribe(context.Background(), req2)
	if err != nil {
		t.Fatal(err)
	}
	if len(res2.Transcript) != 2 || res2.Transcript[0].SpeakerAlias != "User" || res2.Transcript[1].SpeakerAlias != "Agent" || res2.Transcript[0].SpeakerID != 0 {
		t.Errorf("AGENT_CHANNEL=1: %+v", res2.Transcript)
	}
	if noMP3 != "" {
		t.Skip(noMP3)
	}
	if req2.Format != callscribe.FormatMP3 {
		return
	}
	if len(res2.Transcript) != 2 {
		t.Fatalf("MP3: %+v", res2.Transcript)
	}
	for i, s := range res2.Transcript {
		w := res.Transcript[i]
		if s.SpeakerID != w.SpeakerID || abs(s.TimeStart-w.TimeStart) > 0.1 || abs(s.TimeEnd-w.TimeEnd) > 0.1 {
			t.Errorf("MP3 segment %+v, WAV segment %+v", s, w)
		}
	}
}

// checkWords holds a segment's words to the contract: exactly the text's
// words in order, times monotonic inside the segment, confidences in [0, 1]
// and the segment's confidence their mean.
func checkWords(t *testing.T, s callscribe.Segment) {
	t.Helper()
	texts := make([]string, len(s.Words))
	for i, w := range s.Words {
		texts[i] = w.Text
	}
	if !slices.Equal(texts, strings.Fields(s.Text)) {
		t.Fatalf("words %q, text %q", texts, s.Text)
	}
	prev := s.TimeStart
	var sum float64
	for _, w := range s.Words {
		if w.Start < prev || w.End < w.Start || w.End > s.TimeEnd {
			t.Errorf("word %q at %.2f-%.2f: out of order or outside the segment %.2f-%.2f (previous ends %.2f)", w.Text, w.Start, w.End, s.TimeStart, s.TimeEnd, prev)
		}
		prev = w.End
		if w.Confidence == nil || *w.Confidence < 0 || *w.Confidence > 1 {
			t.Errorf("word %q confidence %v", w.Text, w.Confidence)
			continue
		}
		sum += *w.Confidence
	}
	if s.Confidence == nil || abs(*s.Confidence-sum/float64(len(s.Words))) > 1e-9 {
		t.Errorf("segment confidence %v, mean of the words' %.4f", s.Confidence, sum/float64(len(s.Words)))
	}
	// The words span the segment: the first starts it, the last ends it.
	if n := len(s.Words); s.Words[0].Start != s.TimeStart || s.Words[n-1].End != s.TimeEnd {
		t.Errorf("words span %.2f-%.2f, segment %.2f-%.2f", s.Words[0].Start, s.Words[n-1].End, s.TimeStart, s.TimeEnd)
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// The engine maps posteriors through the built-in confidence map unless
// told not to (calibrate and the map itself are tested in confidence_test.go).
func TestConfidenceMapIsLoaded(t *testing.T) {
	want, err := BuiltinConfidenceMap()
	if err != nil {
		t.Fatal(err)
	}
	if got := transcriber(t).confidence; !reflect.DeepEqual(got, want) {
		t.Errorf("the transcriber's confidence map %+v, want the built-in one", got)
	}
}

func TestSilenceOnly(t *testing.T) {
	tr := transcriber(t)
	pcm := make([]int16, 3*8000)
	// Faint noise, as on a real line, must not become words.
	for i := range pcm {
		pcm[i] = int16((i*7919)%41 - 20)
	}
	res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: wavOf(t, 8000, pcm, pcm)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Transcript == nil || len(res.Transcript) != 0 || *res.WordsCount != 0 || res.HasSpeech() {
		t.Errorf("silence gave %+v", res)
	}
	if res.DurationSeconds != 3 {
		t.Errorf("duration %v", res.DurationSeconds)
	}
}

func TestRejects(t *testing.T) {
	tr := transcriber(t)
	three := decode.EncodeWAV(8000, make([]int16, 800), make([]int16, 800), make([]int16, 800))
	for name, tc := range map[string]struct {
		req      callscribe.TranscriptionRequest
		code     string
		mentions string
	}{
		"three channels": {callscribe.TranscriptionRequest{Audio: three}, callscribe.JobErrBadAudio, "3 channels"},
		"garbage wav":    {callscribe.TranscriptionRequest{Audio: []byte("RIFF\x00\x00\x00\x00WAVEgarbage"), Format: callscribe.FormatWAV}, callscribe.JobErrBadAudio, "WAV"},
		"garbage mp3":    {callscribe.TranscriptionRequest{Audio: append([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"), bytes.Repeat([]byte{0x55}, 2000)...), Format: callscribe.FormatMP3}, callscribe.JobErrBadAudio, "MP3"},
		"german":         {callscribe.TranscriptionRequest{Audio: wavOf(t, 8000, make([]int16, 800)), Language: "de"}, callscribe.JobErrUnsupportedLanguage, `"de"`},
		"french region":  {callscribe.TranscriptionRequest{Audio: wavOf(t, 8000, make([]int16, 800)), Language: "fr-CA"}, callscribe.JobErrUnsupportedLanguage, "English"},
	} {
		_, err := tr.Transcribe(context.Background(), tc.req)
		if jobCode(err) != tc.code || !strings.Contains(err.Error(), tc.mentions) {
			t.Errorf("%s: err = %v, want %s mentioning %q", name, err, tc.code, tc.mentions)
		}
	}
}

// More concurrent jobs than decoders: the pool makes them wait, not fail.
func TestConcurrentJobsShareThePool(t *testing.T) {
	tr := transcriber(t)
	speech := speak(t, "slt", shortLine, 16000)
	audio := wavOf(t, 16000, track(16000, 4, clip{0.5, speech}), track(16000, 4, clip{0.5, speech}))
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: audio})
			if err == nil && len(res.Transcript) != 2 {
				err = errors.New("want a segment per channel")
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// Decoding the front end's cepstra is decoding the audio: the path the
// narrowband map takes changes nothing by itself. (Each utterance starts a
// stream of its own, so what the decoder heard before does not matter.)
func TestCepstraPathMatchesRawDecode(t *testing.T) {
	tr := transcriber(t)
	speech := speak(t, "slt", shortLine, 16000)
	d := <-tr.pool
	defer func() { tr.pool <- d }()
	raw, err := d.decode(speech)
	if err != nil || len(raw) == 0 {
		t.Fatalf("decode: %v %v", raw, err)
	}
	cep, err := d.cepstra(speech)
	if err != nil {
		t.Fatal(err)
	}
	if frames := len(cep) / d.cepDim(); frames < len(speech)/frameShift-2 || len(cep)%d.cepDim() != 0 {
		t.Fatalf("%d cepstral values for %d samples", len(cep), len(speech))
	}
	viaCep, err := d.decodeCepstra(cep)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(raw, viaCep) {
		t.Fatalf("raw %v\ncepstra %v", raw, viaCep)
	}
}

// A channel's words do not depend on what its decoder heard before: decoders
// are pooled across channels and jobs, so "before" is any other call. The
// call is a telephone channel with a little hiss (the front end's noise
// removal is what used to carry over), decoded on a decoder that has heard
// nothing, then again after another call on the same decoder.
func TestSameChannelSameWordsWhateverTheDecoderHeardBefore(t *testing.T) {
	needModel(t)
	// With the front end's noise removal on, the state a region's features
	// could inherit: the engine must start every region afresh even then.
	tr, err := NewTranscriber(Config{Decoders: 1, NoiseRemoval: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	hiss := func(pcm []int16, seed uint64) []int16 {
		rng := rand.New(rand.NewPCG(seed, 1))
		out := make([]int16, len(pcm))
		for i, v := range pcm {
			out[i] = clamp16(float32(v) + float32(60*rng.NormFloat64()))
		}
		return out
	}
	call := func(voice, text string, seed uint64) callscribe.TranscriptionRequest {
		pcm := speak(t, voice, text, 8000)
		return callscribe.TranscriptionRequest{Format: callscribe.FormatWAV,
			Audio: wavOf(t, 8000, hiss(track(8000, 2+float64(len(pcm))/8000, clip{0.5, pcm}), seed))}
	}
	agent := call("slt", "Thanks for calling, this is Grace. I can see both charges on your account and I have reversed the second one.", 1)
	other := call("rms", "Hi, I was billed twice for my phone this month and I would like the extra charge refunded please.", 7)
	ctx := context.Background()
	first, err := tr.Transcribe(ctx, agent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Transcribe(ctx, other); err != nil {
		t.Fatal(err)
	}
	again, err := tr.Transcribe(ctx, agent)
	if err != nil {
		t.Fatal(err)
	}
	a, b := channelText(first, 0), channelText(again, 0)
	if a == "" {
		t.Fatal("the call decoded as nothing")
	}
	if a != b {
		t.Errorf("the call decoded as %q on a new decoder, then after another call as %q", a, b)
	}
}

// The narrowband map is applied to 8 kHz audio of a high voice and to nothing
// else: a map that zeroes every feature silences 8 kHz speech by flite's slt
// (about 170 Hz) and leaves 8 kHz speech by rms (about 100 Hz) and 16 kHz
// speech alone.
func TestNarrowbandMapAppliesToHighVoicesAtTelephoneRate(t *testing.T) {
	needModel(t)
	t.Parallel() // own one-decoder transcribers: another such test can use the other core
	zero := &FeatureMap{Context: 0, Dim: 13, Weights: make([][]float32, 13), TrainedOn: "test: zeroes"}
	for i := range zero.Weights {
		zero.Weights[i] = make([]float32, zero.Inputs())
	}
	onlyHighTelephoneVoiceLost(t, Config{Decoders: 1, NarrowbandMap: zero}, "a zeroing map")
}

// onlyHighTelephoneVoiceLost decodes, in turn on one decoder built from cfg,
// 8 kHz speech by flite's slt (a high voice the narrowband map and its MLLR
// transform apply to), 8 kHz speech by rms (a low voice) and 16 kHz speech by
// slt. cfg breaks what applies to the first (what says how): it must be lost
// (WER 80% or more), the other two recognised as usual (30% or less), which
// shows the part applies there and nowhere else. The lost step says the
// shortest line: a decoder searching with broken features or a broken model
// prunes little and takes several times as long per second of speech.
func onlyHighTelephoneVoiceLost(t *testing.T, cfg Config, what string) {
	t.Helper()
	tr, err := NewTranscriber(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for i, c := range []struct {
		voice, line string
		rate        int
		broken      bool
	}{
		{"slt", shortLine, 8000, true},
		{"rms", userLine, 8000, false},
		{"slt", agentLine, 16000, false},
	} {
		speech := speak(t, c.voice, c.line, c.rate)
		pcm := track(c.rate, 1+float64(len(speech))/float64(c.rate)+1, clip{1, speech})
		res, err := tr.Transcribe(context.Background(), callscribe.TranscriptionRequest{Audio: wavOf(t, c.rate, pcm)})
		if err != nil {
			t.Fatal(err)
		}
		var text []string
		for _, s := range res.Transcript {
			text = append(text, s.Text)
		}
		w := wer(c.line, strings.Join(text, " "))
		switch {
		case c.broken && w < 0.8:
			t.Errorf("step %d, %s at %d Hz through %s: WER %.0f%% (%q); it was not applied", i, c.voice, c.rate, what, 100*w, text)
		case !c.broken && w > 0.3:
			t.Errorf("step %d, %s at %d Hz: WER %.0f%% (%q); %s must not touch it", i, c.voice, c.rate, 100*w, text, what)
		}
	}
}
