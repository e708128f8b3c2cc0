package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/audio/probe"
	audiotone "github.com/callscribe/callscribe/shared/audio/tone"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/redact"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

// inputRedaction counts the tokens in a derived job's input, redacted when
// the job was created (package jobs), so its result says what was removed.
func inputRedaction(in *callscribe.Transcript) *callscribe.Redaction {
	_, counts := redact.Transcript(*in)
	return &callscribe.Redaction{Categories: categoryCounts(counts)}
}

// categoryCounts lists every category, zero or not.
func categoryCounts(counts redact.Counts) map[string]int {
	categories := make(map[string]int, len(redact.Categories))
	for _, c := range redact.Categories {
		categories[c] = counts[c]
	}
	return categories
}

// SpanPadding widens each redacted stretch of audio on both sides: word
// times are a recogniser's estimate, and a digit's first or last phoneme
// left audible would give it away.
const SpanPadding = 0.15

// MaxRenditionBytes bounds the WAV rendition of a redacted MP3 (16-bit PCM
// at the file's rate and channels, 2 bytes a sample): 128 MiB is 70 minutes
// of 8 kHz stereo (or 16 kHz mono), 35 of 16 kHz stereo, 12.7 of 44.1 kHz
// stereo. Making one holds the decoded samples and the WAV at once, about
// twice the rendition (some 270 MB at the bound, beside the 1024 MB the
// transcription worker's Lambda has); a retried attempt reads it back whole.
// Decoding a minute takes about 40 ms with libmpg123 and 0.25 s with go-mp3
// (infra/bench/README.md, PII redaction), so 70 minutes is some 18 s of the
// worker Lambda's 180 s timeout. A longer recording is deleted instead.
const MaxRenditionBytes = 128 << 20

// renditionLimit is MaxRenditionBytes, lowered by the tests of the fallback.
var renditionLimit = MaxRenditionBytes

// redact replaces the personal data in a transcription's result (package
// redact) and then in its stored recording, the padded time spans of the
// redacted words overwritten by a 1 kHz tone (package tone):
//
//   - a WAV file is toned in place and written back under the same key;
//   - an MP3 file, which cannot be rewritten without an encoder these builds
//     lack, is decoded and stored as a toned 16-bit WAV rendition at its own
//     rate and channels under jobs.RenditionKey; then the MP3 is deleted, and
//     the returned StoredAudio makes the succeed transition point the job at
//     the rendition. Cgo builds decode with libmpg123, others (the Lambdas)
//     with the pure-Go decoder (decode.DecodeMP3Go), which reads 16, 24, 32,
//     44.1 and 48 kHz but refuses 22.05 kHz (go-mp3 turns it to noise at low
//     bit rates) and MPEG-2.5 (8 to 12 kHz, the usual telephone MP3);
//   - an MP3 that cannot be decoded here, or whose rendition would be over
//     MaxRenditionBytes, and a WAV encoding the tone writer does not handle,
//     are deleted, so no copy with the spoken values is left.
//
// The result's redaction block counts the items per category and says what
// became of the audio. Every store write comes after everything that can fail
// for a transient reason, and in an order that leaves nothing unredacted if
// the attempt stops between two of them: the rendition is written before the
// MP3 is deleted, and both before the job succeeds. A retried attempt finds
// the recording already toned (transcribe reads the rendition when the MP3 is
// gone): its transcript then lacks the toned values.
func (w *Worker) redact(ctx context.Context, job *callscribe.Job, audio []byte, res *callscribe.TranscriptionResult) (*callscribe.StoredAudio, error) {
	segs, counts, spans := redact.Segments(res.Transcript)
	res.Transcript = segs
	res.Redaction = &callscribe.Redaction{Categories: categoryCounts(counts), Audio: callscribe.RedactionAudioUnchanged}
	if len(spans) == 0 {
		return nil, nil
	}
	padded := make([]audiotone.Span, len(spans))
	for i, s := range spans {
		padded[i] = audiotone.Span{Start: s.Start - SpanPadding, End: s.End + SpanPadding}
	}
	switch job.AudioFormat {
	case callscribe.FormatWAV:
		if _, err := audiotone.ReplaceWAV(audio, padded); err == nil {
			if err := w.Audio.PutAudio(ctx, job.AudioKey, bytes.NewReader(audio), int64(len(audio))); err != nil {
				return nil, fmt.Errorf("storing the redacted audio: %w", err)
			}
			res.Redaction.Audio = callscribe.RedactionAudioToned
			return nil, nil
		}
	case callscribe.FormatMP3:
		rendition, err := tonedRendition(audio, padded, mp3Decoder())
		if err == nil {
			moved := &callscribe.StoredAudio{Key: jobs.RenditionKey(job.AudioKey), Format: callscribe.FormatWAV}
			if err := w.Audio.PutAudio(ctx, moved.Key, bytes.NewReader(rendition), int64(len(rendition))); err != nil {
				return nil, fmt.Errorf("storing the redacted rendition: %w", err)
			}
			if err := w.Audio.DeleteAudio(ctx, job.AudioKey); err != nil {
				return nil, fmt.Errorf("deleting the redacted MP3: %w", err)
			}
			res.Redaction.Audio = callscribe.RedactionAudioToned
			return moved, nil
		}
		w.jobLogger(ctx, job).Warn("redacted MP3 deleted instead of toned", "err", err)
	}
	if err := w.Audio.DeleteAudio(ctx, job.AudioKey); err != nil {
		return nil, fmt.Errorf("deleting the unredactable audio: %w", err)
	}
	res.Redaction.Audio = callscribe.RedactionAudioDeleted
	return nil, nil
}

// errRenditionTooLarge is tonedRendition's refusal of a recording whose
// rendition would be over MaxRenditionBytes.
var errRenditionTooLarge = errors.New("its WAV rendition would be over the size bound")

// mp3Decoder is the build's MP3 decoder for redaction: libmpg123 with cgo,
// else the pure-Go one.
func mp3Decoder() func([]byte) (*decode.Audio, error) {
	if decode.MP3Supported() {
		return decode.DecodeMP3
	}
	return decode.DecodeMP3Go
}

// tonedRendition decodes an MP3 and returns it as a 16-bit WAV with the tone
// over spans. The size is checked from the probed duration before decoding, so
// a long recording is never decoded only to be refused, and again after.
func tonedRendition(mp3 []byte, spans []audiotone.Span, decodeMP3 func([]byte) (*decode.Audio, error)) ([]byte, error) {
	info, err := probe.Probe(bytes.NewReader(mp3), int64(len(mp3)))
	if err != nil {
		return nil, err
	}
	if renditionBytes(int(math.Ceil(info.DurationSeconds*float64(info.SampleRate))), info.Channels) > renditionLimit {
		return nil, errRenditionTooLarge
	}
	a, err := decodeMP3(mp3)
	if err != nil {
		return nil, err
	}
	if renditionBytes(len(a.Channels[0]), len(a.Channels)) > renditionLimit {
		return nil, errRenditionTooLarge
	}
	wav := decode.EncodeWAV(a.SampleRate, a.Channels...)
	if _, err := audiotone.ReplaceWAV(wav, spans); err != nil {
		return nil, err
	}
	return wav, nil
}

// renditionBytes is the size of a 16-bit WAV of frames samples per channel.
func renditionBytes(frames, channels int) int {
	return 44 + frames*channels*2
}
