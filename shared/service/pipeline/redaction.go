package pipeline

import (
	"bytes"
	"context"
	"fmt"

	audiotone "github.com/callscribe/callscribe/shared/audio/tone"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/redact"
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

// redact replaces the personal data in a transcription's result (package
// redact) and then in its stored recording: a WAV file gets a tone over the
// redacted stretches, written back under the same key; an MP3 file, which
// cannot be rewritten without an encoder these builds lack (and whose WAV
// rendition could be ten times the upload limit), is deleted, so no copy
// with the spoken values is left. The result's redaction block counts the
// items per category and says what became of the audio.
//
// A retried attempt finds the recording already toned: its transcript then
// lacks the toned values, which is why the audio is written last, after
// everything that can fail for a transient reason.
func (w *Worker) redact(ctx context.Context, job *callscribe.Job, audio []byte, res *callscribe.TranscriptionResult) error {
	segs, counts, spans := redact.Segments(res.Transcript)
	res.Transcript = segs
	res.Redaction = &callscribe.Redaction{Categories: categoryCounts(counts), Audio: callscribe.RedactionAudioUnchanged}
	if len(spans) == 0 {
		return nil
	}
	padded := make([]audiotone.Span, len(spans))
	for i, s := range spans {
		padded[i] = audiotone.Span{Start: s.Start - SpanPadding, End: s.End + SpanPadding}
	}
	if job.AudioFormat == callscribe.FormatWAV {
		if _, err := audiotone.ReplaceWAV(audio, padded); err == nil {
			if err := w.Audio.PutAudio(ctx, job.AudioKey, bytes.NewReader(audio), int64(len(audio))); err != nil {
				return fmt.Errorf("storing the redacted audio: %w", err)
			}
			res.Redaction.Audio = callscribe.RedactionAudioToned
			return nil
		}
		// A WAV encoding the tone writer does not handle: deleted like MP3.
	}
	if err := w.Audio.DeleteAudio(ctx, job.AudioKey); err != nil {
		return fmt.Errorf("deleting the unredactable audio: %w", err)
	}
	res.Redaction.Audio = callscribe.RedactionAudioDeleted
	return nil
}
