// Package testengine is a deterministic speech engine for handler, pipeline and
// black-box API tests. It is linked into a binary only by files with the
// `testengine` build tag, so `make run` can never select it.
package testengine

import (
	"bytes"
	"context"
	"encoding/binary"
	"sort"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/audio/probe"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// Engine answers from the audio's shape: silent WAV data gives an empty
// transcript; a 16-bit PCM WAV whose sound comes in bursts (see [heardBursts])
// gives the channel's line once per burst, timed to the burst; otherwise one
// fixed utterance per channel, the channels taking equal turns over the
// audio. Words are spread evenly over their segment. A job's keyterms are
// echoed in meta_data as the embedded engine reports them, with the words of
// Lines as the engine's whole dictionary: a term with a word of Lines is
// applied, words outside Lines are unknown. Delay simulates slow
// recognition so crash tests can kill a process mid-job.
type Engine struct {
	Delay        time.Duration
	AgentChannel int
}

// Lines are the fixed utterances, per channel.
var Lines = [2]string{
	"thank you for calling how can i help you today",
	"i was charged twice on my bill and i want a refund",
}

// Transcribe implements callscribe.Transcriber.
func (e *Engine) Transcribe(ctx context.Context, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	if lang := strings.ToLower(req.Language); lang != "" && lang != "en" && !strings.HasPrefix(lang, "en-") {
		return nil, &callscribe.JobError{Code: callscribe.JobErrUnsupportedLanguage, Message: "This engine transcribes English only; got language " + req.Language + "."}
	}
	if e.Delay > 0 {
		select {
		case <-time.After(e.Delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	info, err := probe.Probe(bytes.NewReader(req.Audio), int64(len(req.Audio)))
	if err != nil {
		return nil, &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "The audio could not be decoded."}
	}
	if info.Channels > 2 {
		return nil, &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "Audio with more than 2 channels is not supported."}
	}
	en := "en"
	res := &callscribe.TranscriptionResult{Language: &en, DurationSeconds: info.DurationSeconds, Transcript: []callscribe.Segment{}}
	words := 0
	if bursts, ok := heardBursts(req.Audio); ok {
		for ch, spans := range bursts {
			for _, b := range spans {
				seg := callscribe.Segment{
					Text: Lines[ch%2], TimeStart: b[0], TimeEnd: b[1],
					SpeakerID: ch, SpeakerAlias: callscribe.SpeakerAlias(ch, e.AgentChannel),
				}
				seg.Words = spreadWords(seg)
				seg.Confidence = callscribe.MeanConfidence(seg.Words)
				res.Transcript = append(res.Transcript, seg)
				words += len(seg.Words)
			}
		}
		sort.SliceStable(res.Transcript, func(i, j int) bool { return res.Transcript[i].TimeStart < res.Transcript[j].TimeStart })
	} else if !silentWAV(req.Audio) {
		channels := max(info.Channels, 1)
		for ch := 0; ch < channels; ch++ {
			start := float64(ch) * info.DurationSeconds / float64(channels)
			seg := callscribe.Segment{
				Text: Lines[ch], TimeStart: start, TimeEnd: start + info.DurationSeconds/float64(channels),
				SpeakerID: ch, SpeakerAlias: callscribe.SpeakerAlias(ch, e.AgentChannel),
			}
			seg.Words = spreadWords(seg)
			seg.Confidence = callscribe.MeanConfidence(seg.Words)
			res.Transcript = append(res.Transcript, seg)
			words += len(strings.Fields(Lines[ch]))
		}
	}
	res.WordsCount = &words
	if len(req.Keyterms) > 0 {
		res.MetaData = &callscribe.TranscriptionMetaData{Keyterms: echoKeyterms(req.Keyterms)}
	}
	return res, nil
}

// WordConfidence is the confidence the engine gives every word.
const WordConfidence = 0.9

// spreadWords times the segment's words evenly over its span, in order; the
// last ends exactly at the segment's end.
func spreadWords(seg callscribe.Segment) []callscribe.Word {
	fields := strings.Fields(seg.Text)
	words := make([]callscribe.Word, len(fields))
	span := seg.TimeEnd - seg.TimeStart
	for i, f := range fields {
		conf := WordConfidence
		words[i] = callscribe.Word{
			Text:       f,
			Start:      seg.TimeStart + span*float64(i)/float64(len(fields)),
			End:        seg.TimeStart + span*float64(i+1)/float64(len(fields)),
			Confidence: &conf,
		}
	}
	if n := len(words); n > 0 {
		words[n-1].End = seg.TimeEnd
	}
	return words
}

// echoKeyterms reports terms against the vocabulary of Lines.
func echoKeyterms(terms []string) *callscribe.KeytermsReport {
	vocab := map[string]bool{}
	for _, l := range Lines {
		for _, w := range strings.Fields(l) {
			vocab[w] = true
		}
	}
	r := callscribe.NewKeytermsReport(callscribe.KeytermsEcho)
	seen := map[string]bool{}
	for _, term := range terms {
		applied := false
		for _, w := range strings.Fields(strings.ToLower(term)) {
			if vocab[w] {
				applied = true
			} else if !seen[w] {
				seen[w] = true
				r.UnknownWords = append(r.UnknownWords, w)
			}
		}
		if applied {
			r.Applied = append(r.Applied, term)
		}
	}
	return r
}

// Sound bursts (heardBursts): a sample at or above LoudSample (-40 dBFS) is
// sound; quiet shorter than BurstGapSeconds joins two stretches of sound into
// one burst (the gaps between a phrase's words), longer quiet separates them.
const (
	LoudSample      = 328 // 32768 * 10^(-40/20)
	BurstGapSeconds = 0.5
)

// heardBursts returns each channel's bursts of sound ([start, end) in
// seconds: the first loud sample to just after the last) in a canonical
// 44-byte-header 16-bit PCM WAV, when its sound comes in bursts: some channel
// is quiet for BurstGapSeconds or longer (its start and end included) and
// some channel has sound. A tone throughout (apitest.MakeWAV) or all-zero
// data is not bursts; nor is any other format.
func heardBursts(audio []byte) ([][][2]float64, bool) {
	if len(audio) <= 44 || string(audio[:4]) != "RIFF" || string(audio[8:12]) != "WAVE" || string(audio[12:16]) != "fmt " || string(audio[36:40]) != "data" {
		return nil, false
	}
	format, channels := binary.LittleEndian.Uint16(audio[20:]), int(binary.LittleEndian.Uint16(audio[22:]))
	rate, bits := int(binary.LittleEndian.Uint32(audio[24:])), binary.LittleEndian.Uint16(audio[34:])
	if format != 1 || bits != 16 || channels < 1 || channels > 2 || rate <= 0 {
		return nil, false
	}
	data := audio[44:]
	if n := int(binary.LittleEndian.Uint32(audio[40:])); n < len(data) {
		data = data[:n]
	}
	frames := len(data) / (2 * channels)
	gap := int(BurstGapSeconds * float64(rate))
	bursts := make([][][2]float64, channels)
	quiet, sound := false, false
	for ch := range channels {
		start, last := -1, -1 // the current burst's first and last loud frame
		for f := range frames {
			v := int16(binary.LittleEndian.Uint16(data[(f*channels+ch)*2:]))
			if v < LoudSample && v > -LoudSample {
				continue
			}
			switch {
			case start < 0:
				quiet = quiet || f >= gap
				start = f
			case f-last-1 >= gap:
				quiet = true
				bursts[ch] = append(bursts[ch], [2]float64{float64(start) / float64(rate), float64(last+1) / float64(rate)})
				start = f
			}
			last = f
		}
		if start < 0 {
			quiet = quiet || frames >= gap
			continue
		}
		sound = true
		quiet = quiet || frames-last-1 >= gap
		bursts[ch] = append(bursts[ch], [2]float64{float64(start) / float64(rate), float64(last+1) / float64(rate)})
	}
	return bursts, quiet && sound
}

// silentWAV reports whether a canonical 44-byte-header WAV carries only zero samples.
func silentWAV(audio []byte) bool {
	if len(audio) <= 44 || string(audio[:4]) != "RIFF" {
		return false
	}
	for _, b := range audio[44:] {
		if b != 0 {
			return false
		}
	}
	return true
}
