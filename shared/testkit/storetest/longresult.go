package storetest

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// LongResult is a transcription result of a call of the given minutes
// shaped like an engine's with word timings: two speakers taking turns of 4
// to 30 words at about 160 words a minute, every word with start and end to
// the millisecond and a confidence to 4 decimals, every segment with its mean
// confidence and a sentiment, plus the call's metrics and sentiment. Words
// are drawn by a Zipf law, as words of speech are, from a vocabulary of
// common English words and a tail of random letters; it is about 960 KB of
// JSON an hour, the size measured on real hour-long results. Package dynamodb sizes
// its item budget with it. The seed fixes the result.
func LongResult(t testing.TB, minutes int, seed uint64) json.RawMessage {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	// Distinct forms of the common words, the long tail made of random
	// letters (names, numbers, rare words), so the vocabulary is 3,000 words.
	vocab := strings.Fields(commonWords)
	for len(vocab) < 3000 {
		var b strings.Builder
		for range 3 + rng.IntN(8) {
			b.WriteByte(byte('a' + rng.IntN(26)))
		}
		vocab = append(vocab, b.String())
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	round := func(x float64, digits float64) float64 {
		p := math.Pow(10, digits)
		return math.Round(x*p) / p
	}
	labels := []string{"positive", "neutral", "negative"}
	end := float64(minutes * 60)
	var segs []callscribe.Segment
	words := 0
	for at, speaker := 0.3, 0; at < end; speaker = 1 - speaker {
		seg := callscribe.Segment{SpeakerID: speaker, SpeakerAlias: []string{"Agent", "Customer"}[speaker]}
		var text []string
		sum := 0.0
		for range 4 + rng.IntN(27) {
			w := vocab[zipf.Uint64()]
			d := 0.08 + 0.034*float64(len(w)) + 0.054*rng.Float64()
			// Engines' confidences crowd near 1 with a tail of doubtful words.
			c := round(1-0.5*math.Pow(rng.Float64(), 3), 4)
			seg.Words = append(seg.Words, callscribe.Word{Text: w, Start: round(at, 3), End: round(at+d, 3), Confidence: &c})
			text = append(text, w)
			sum += c
			at += d + 0.013 + 0.04*rng.Float64()
		}
		seg.Text = strings.Join(text, " ")
		seg.TimeStart = seg.Words[0].Start
		seg.TimeEnd = seg.Words[len(seg.Words)-1].End
		mean := round(sum/float64(len(seg.Words)), 4)
		seg.Confidence = &mean
		seg.Sentiment = &callscribe.SegmentSentiment{Label: labels[rng.IntN(3)], Score: round(2*rng.Float64()-1, 3)}
		segs = append(segs, seg)
		words += len(seg.Words)
		at += 0.13 + 0.67*rng.Float64()
	}
	lang := "en"
	b, err := json.Marshal(callscribe.TranscriptionResult{Language: &lang, DurationSeconds: end, WordsCount: &words, Transcript: segs})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const commonWords = `the to and a of I you that it is in we have for this on your
be can with so just not do but are my was what me all at if know like will
get there they as about one out up no he or would yes yeah okay right um uh
account number call thank thanks please sorry help need time let see go
going now how then from an when here our us been could back by did card
payment bill order phone service customer check today name email address
date day week month any some more well also make sure because want see
got which them said give take people first last new good great problem
issue refund charge credit balance plan price cost minute minutes hold
transfer manager information system update change cancel moment really
think look looking say tell ask question support through again still
other were had has she her his him their its into over after before only
very much many way work where why who something anything nothing mean
correct exactly perfect alright hello hi bye morning afternoon evening
`
