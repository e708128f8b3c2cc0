package dynamodb

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// syntheticResult is a transcription result of a call of the given minutes
// shaped like an engine's with word timings: two speakers taking turns of 4
// to 30 words at about 160 words a minute, every word with start and end to
// the millisecond and a confidence to 4 decimals, every segment with its mean
// confidence and a sentiment, plus the call's metrics and sentiment. Words
// are drawn by a Zipf law, as words of speech are, from a vocabulary of
// common English words and a tail of random letters; it is about 960 KB of
// JSON an hour, the size measured on real hour-long results. The seed fixes the result.
func syntheticResult(t testing.TB, minutes int, seed uint64) json.RawMessage {
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

// TestSyntheticResultSizes logs the sizes and compression ratios the package
// documentation quotes, and checks resultMinutesThatFit against them: a
// result of that many minutes fits in a bare job's item, one 10% longer does
// not.
func TestSyntheticResultSizes(t *testing.T) {
	for _, m := range []int{1, 10, 30, 60, 120} {
		r := syntheticResult(t, m, 7)
		av, err := largeJSONAttr(r)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%3d min: %8d bytes JSON, %7d stored, ratio %.1f", m, len(r), attrBytes(av), float64(len(r))/float64(attrBytes(av)))
	}
	bare, err := jobItem(job("acc", t0))
	if err != nil {
		t.Fatal(err)
	}
	room := itemLimitBytes - itemMarginBytes - itemBytes(bare, "") - len(attrResult)
	for _, c := range []struct {
		minutes int
		fits    bool
	}{{resultMinutesThatFit, true}, {resultMinutesThatFit * 11 / 10, false}} {
		av, err := largeJSONAttr(syntheticResult(t, c.minutes, 7))
		if err != nil {
			t.Fatal(err)
		}
		if fits := attrBytes(av) <= room; fits != c.fits {
			t.Errorf("%d minutes: %d bytes stored, room %d: fits = %v, want %v", c.minutes, attrBytes(av), room, fits, c.fits)
		}
	}
}

func startedJob(t *testing.T, s *JobStore, j *callscribe.Job, q *callscribe.QuotaReservation) {
	t.Helper()
	mustCreate(t, s, j, q)
	if _, err := s.TransitionJob(t.Context(), callscribe.TransitionStart.For(j.ID, t0)); err != nil {
		t.Fatal(err)
	}
}

// TestLongResultRoundTrips stores the longest result that fits (compressed,
// as a B attribute) and reads it back byte for byte through GetJob, and
// through the search confirmation, which decodes the stored transcript.
func TestLongResultRoundTrips(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	j := job("acc-long", t0)
	startedJob(t, s, j, nil)
	result := syntheticResult(t, resultMinutesThatFit, 7)
	succeed := callscribe.TransitionSucceed.For(j.ID, t0.Add(time.Minute))
	succeed.Result = result
	done, err := s.TransitionJob(t.Context(), succeed)
	if err != nil {
		t.Fatalf("succeed with a %d-minute result (%d bytes): %v", resultMinutesThatFit, len(result), err)
	}
	if done.Status != callscribe.StatusSucceeded || !bytes.Equal(done.Result, result) {
		t.Fatalf("succeed returned status %s and a %d-byte result, want succeeded and %d bytes", done.Status, len(done.Result), len(result))
	}
	if _, ok := rawItem(t, names.Jobs, j.ID)[attrResult].(*types.AttributeValueMemberB); !ok {
		t.Fatalf("a %d-byte result is stored as %T, want compressed bytes", len(result), rawItem(t, names.Jobs, j.ID)[attrResult])
	}
	got, err := s.GetJob(t.Context(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Result, result) {
		t.Fatalf("GetJob result differs: %d bytes, want %d", len(got.Result), len(result))
	}
	var parsed callscribe.TranscriptionResult
	if err := json.Unmarshal(result, &parsed); err != nil {
		t.Fatal(err)
	}
	last := parsed.Transcript[len(parsed.Transcript)-1]
	phrase := last.Words[len(last.Words)-2].Text + " " + last.Words[len(last.Words)-1].Text
	q, err := callscribe.ParseSearchQuery(`"`+phrase+`"`, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: "acc-long", Filter: callscribe.JobFilter{Search: q}, Limit: 10})
	if err != nil || len(p.Jobs) != 1 || p.Jobs[0].ID != j.ID {
		t.Fatalf("search for the result's last words %q = %+v, %v; want the job", phrase, p, err)
	}
}

// TestPlainStringResultStillReads reads an item written before compression:
// a large result stored as a plain string.
func TestPlainStringResultStillReads(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	j := job("acc-old", t0)
	j.Status = callscribe.StatusSucceeded
	result := syntheticResult(t, 15, 3)
	item, err := jobItem(j)
	if err != nil {
		t.Fatal(err)
	}
	item[attrResult] = str(string(result))
	if _, err := client.PutItem(t.Context(), &ddb.PutItemInput{TableName: aws.String(names.Jobs), Item: item}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetJob(t.Context(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Result, result) {
		t.Fatalf("plain-string result reads back as %d bytes, want %d", len(got.Result), len(result))
	}
}

// TestDerivedJobLargeInputRoundTrips stores a summary made from a long
// call's segments: its input is compressed like a result and reads back
// whole, and its result can still be stored (the transition reads the input).
func TestDerivedJobLargeInputRoundTrips(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	var call callscribe.TranscriptionResult
	if err := json.Unmarshal(syntheticResult(t, 60, 5), &call); err != nil {
		t.Fatal(err)
	}
	j := job("acc-derived", t0)
	j.Type = callscribe.TypeSummary
	j.Input = &callscribe.Transcript{Segments: call.Transcript}
	startedJob(t, s, j, nil)
	if _, ok := rawItem(t, names.Jobs, j.ID)[attrInput].(*types.AttributeValueMemberB); !ok {
		t.Fatalf("an hour's input is stored as %T, want compressed bytes", rawItem(t, names.Jobs, j.ID)[attrInput])
	}
	succeed := callscribe.TransitionSucceed.For(j.ID, t0.Add(time.Minute))
	succeed.Result = json.RawMessage(`{"summary":"a long call"}`)
	if _, err := s.TransitionJob(t.Context(), succeed); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetJob(t.Context(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(j.Input)
	have, _ := json.Marshal(got.Input)
	if !bytes.Equal(have, want) || string(got.Result) != `{"summary":"a long call"}` {
		t.Fatalf("input reads back as %d bytes (want %d), result %s", len(have), len(want), got.Result)
	}
}

// TestResultTooLargeFailsJob: a two-hour result does not fit even
// compressed; the succeed transition fails the job once with
// result_too_large, releases its quota, and writes nothing of the result
// (neither the attribute nor its search terms).
func TestResultTooLargeFailsJob(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	j := job("acc-big", t0)
	j.AudioSeconds = 7200
	startedJob(t, s, j, &callscribe.QuotaReservation{Month: "2025-03", LimitSeconds: 10000})
	succeed := callscribe.TransitionSucceed.For(j.ID, t0.Add(time.Minute))
	succeed.Result = syntheticResult(t, 120, 7)
	done, err := s.TransitionJob(t.Context(), succeed)
	if err != nil {
		t.Fatalf("succeed with a two-hour result: %v", err)
	}
	if done.Status != callscribe.StatusFailed || done.Error == nil || done.Error.Code != callscribe.JobErrResultTooLarge || len(done.Result) != 0 {
		t.Fatalf("succeed with a two-hour result returned %+v, want failed with %s", done, callscribe.JobErrResultTooLarge)
	}
	if !strings.Contains(done.Error.Message, "minutes") {
		t.Errorf("error message %q does not say how long a call fits", done.Error.Message)
	}
	got, err := s.GetJob(t.Context(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != callscribe.StatusFailed || got.Error == nil || got.Error.Code != callscribe.JobErrResultTooLarge {
		t.Fatalf("stored job = status %s, error %+v", got.Status, got.Error)
	}
	if _, ok := rawItem(t, names.Jobs, j.ID)[attrResult]; ok {
		t.Fatal("the failed job's item holds a result")
	}
	if used, err := s.UsedSeconds(t.Context(), "acc-big", "2025-03"); err != nil || used != 0 {
		t.Fatalf("used after the failure = %v, %v; want 0", used, err)
	}
	terms, err := client.Scan(t.Context(), &ddb.ScanInput{TableName: aws.String(names.Search), Select: types.SelectCount})
	if err != nil {
		t.Fatal(err)
	}
	if terms.Count != 0 {
		t.Fatalf("%d search terms written for a result that was not stored", terms.Count)
	}
	if _, err := s.TransitionJob(t.Context(), succeed); !callscribe.IsCode(err, callscribe.CodeConflict) {
		t.Fatalf("a redelivered succeed = %v, want CONFLICT", err)
	}
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
