// Package testengine is a deterministic speech engine for handler, pipeline and
// black-box API tests. It is linked into a binary only by files with the
// `testengine` build tag, so `make run` can never select it.
package testengine

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/audio/probe"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// Engine answers from the audio's shape: silent WAV data gives an empty
// transcript; otherwise one fixed utterance per channel. A job's keyterms are
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
	if !silentWAV(req.Audio) {
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
