//go:build cgo

package sphinx

import (
	"context"
	"unicode/utf8"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/moonshine"
)

// neuralWords decodes each speech region of one channel with the neural
// model (Config.Moonshine): the region's samples as the channel came,
// resampled to 16 kHz, are one utterance. Its words are said in spoken form
// (moonshine.Spoken), as PocketSphinx writes them, each spoken word keeping
// its written word's confidence. The model gives no word times, so each
// written word gets a share of the region's time in proportion to its
// letters (and one for the space after it), split evenly among the words it
// is said as.
func (t *Transcriber) neuralWords(ctx context.Context, samples []int16, rate int, regions []region) ([][]callscribe.Word, error) {
	r := newResampler(samples, rate)
	out := make([][]callscribe.Word, len(regions))
	var (
		buf []int16
		pcm []float32
	)
	for i, g := range regions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := g.End - g.Start
		if cap(buf) < n {
			buf, pcm = make([]int16, n), make([]float32, n)
		}
		buf = buf[:r.Read(buf[:n], g.Start)]
		pcm = pcm[:len(buf)]
		for k, s := range buf {
			pcm[k] = float32(s) / 32768
		}
		written, err := t.cfg.Moonshine.Recognize(ctx, pcm)
		if err != nil {
			return nil, err
		}
		start := float64(g.Start) / targetRate
		end := float64(g.Start+len(buf)) / targetRate
		letters := 0
		for _, w := range written {
			letters += utf8.RuneCountInString(w.Text) + 1
		}
		at := start
		for _, w := range written {
			d := (end - start) * float64(utf8.RuneCountInString(w.Text)+1) / float64(letters)
			said := moonshine.Spoken(w.Text)
			for k, text := range said {
				conf := w.Confidence
				from := at + d*float64(k)/float64(len(said))
				out[i] = append(out[i], callscribe.Word{Text: text, Start: from, End: from + d/float64(len(said)), Confidence: &conf})
			}
			at += d
		}
	}
	return out, nil
}
