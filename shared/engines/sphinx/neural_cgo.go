//go:build cgo

package sphinx

import (
	"context"
	"unicode/utf8"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/moonshine"
)

// neuralChannel writes one channel's words with the neural model
// (Config.Moonshine) instead of PocketSphinx: each speech region's samples,
// as the channel came and resampled to 16 kHz, are one utterance. The model
// gives no word times, so each word gets a share of the region's time in
// proportion to its letters (and one for the space after it).
func (t *Transcriber) neuralChannel(ctx context.Context, samples []int16, rate, ch int, regions []region) ([]callscribe.Segment, error) {
	r := newResampler(samples, rate)
	alias := callscribe.SpeakerAlias(ch, t.cfg.AgentChannel)
	var (
		out []callscribe.Segment
		buf []int16
		pcm []float32
	)
	for _, g := range regions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := g.End - g.Start
		if cap(buf) < n {
			buf, pcm = make([]int16, n), make([]float32, n)
		}
		buf = buf[:r.Read(buf[:n], g.Start)]
		pcm = pcm[:len(buf)]
		for i, s := range buf {
			pcm[i] = float32(s) / 32768
		}
		words, err := t.cfg.Moonshine.Recognize(ctx, pcm)
		if err != nil {
			return nil, err
		}
		if len(words) == 0 {
			continue
		}
		start := float64(g.Start) / targetRate
		end := float64(g.Start+len(buf)) / targetRate
		letters := 0
		for _, w := range words {
			letters += utf8.RuneCountInString(w.Text) + 1
		}
		spans := make([]callscribe.Word, len(words))
		at := start
		for i, w := range words {
			d := (end - start) * float64(utf8.RuneCountInString(w.Text)+1) / float64(letters)
			conf := w.Confidence
			spans[i] = callscribe.Word{Text: w.Text, Start: at, End: at + d, Confidence: &conf}
			at += d
		}
		seg := callscribe.Segment{
			Text:         moonshine.Text(words),
			TimeStart:    round2(start),
			TimeEnd:      round2(end),
			SpeakerID:    ch,
			SpeakerAlias: alias,
		}
		seg.Words = fitWords(spans, seg.TimeStart, seg.TimeEnd)
		seg.Confidence = callscribe.MeanConfidence(seg.Words)
		out = append(out, seg)
	}
	return out, nil
}
