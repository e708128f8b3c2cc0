package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

// scriptedEngine answers every job with one segment of text, a word a second
// from second 1.
type scriptedEngine struct{ text string }

func (e scriptedEngine) Transcribe(_ context.Context, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	var words []callscribe.Word
	for i, w := range strings.Fields(e.text) {
		words = append(words, callscribe.Word{Text: w, Start: float64(1 + i), End: float64(2 + i)})
	}
	en := "en"
	n := len(words)
	return &callscribe.TranscriptionResult{Language: &en, DurationSeconds: 30, WordsCount: &n, Transcript: []callscribe.Segment{{
		Text: e.text, TimeStart: 1, TimeEnd: float64(1 + n), SpeakerAlias: callscribe.AliasAgent, Words: words,
	}}}, nil
}

const spokenCard = "my card is four two four two four two four two four two four two four two four two thanks"

func (e *env) run(t *testing.T, id string) (*callscribe.Job, callscribe.TranscriptionResult) {
	t.Helper()
	if err := e.w.HandleMessage(context.Background(), callscribe.Message{Kind: callscribe.KindTranscribe, JobID: id}); err != nil {
		t.Fatal(err)
	}
	job := e.get(t, id)
	if job.Status != callscribe.StatusSucceeded {
		t.Fatalf("job %s is %s: %+v", id, job.Status, job.Error)
	}
	var res callscribe.TranscriptionResult
	if err := json.Unmarshal(job.Result, &res); err != nil {
		t.Fatal(err)
	}
	return job, res
}

func (e *env) storedAudio(t *testing.T, key string) []byte {
	t.Helper()
	rc, err := e.audio.OpenAudio(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// redactedTranscription stores a queued WAV transcription with redact_pii.
func (e *env) redactedTranscription(t *testing.T, id string, seconds float64) *callscribe.Job {
	t.Helper()
	audio := tone(seconds)
	job := &callscribe.Job{
		ID: id, AccountID: "acct", Type: callscribe.TypeTranscription, Status: callscribe.StatusQueued,
		AudioKey: "audio/acct/" + id + ".wav", AudioFormat: callscribe.FormatWAV, AudioSeconds: seconds, RedactPII: true,
	}
	if err := e.audio.PutAudio(context.Background(), job.AudioKey, bytes.NewReader(audio), int64(len(audio))); err != nil {
		t.Fatal(err)
	}
	if err := e.db.Jobs().CreateJob(context.Background(), job, nil); err != nil {
		t.Fatal(err)
	}
	return job
}

func TestRedactedTranscriptionTonesTheWAV(t *testing.T) {
	e := newEnv(t, scriptedEngine{spokenCard})
	job := e.redactedTranscription(t, "job-redact", 30)
	original := e.storedAudio(t, job.AudioKey)
	_, res := e.run(t, job.ID)

	if want := "my card is [REDACTED:CARD] thanks"; res.Transcript[0].Text != want {
		t.Errorf("text = %q, want %q", res.Transcript[0].Text, want)
	}
	if got := res.Redaction; got == nil || got.Categories["card"] != 1 || got.Categories["phone"] != 0 || got.Audio != "toned" {
		t.Fatalf("redaction = %+v", got)
	}
	if bytes.Contains(e.get(t, job.ID).Result, []byte("four two")) {
		t.Error("the stored result still holds the spoken digits")
	}
	got, err := decode.DecodeWAV(e.storedAudio(t, job.AudioKey))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := decode.DecodeWAV(original)
	// The card's words span seconds 4 to 20; the tone is padded by SpanPadding.
	const rate = 8000
	from, to := int((4-SpanPadding)*rate), int((20+SpanPadding)*rate)
	changed := 0
	for i := range want.Channels[0] {
		if got.Channels[0][i] != want.Channels[0][i] {
			if i < from || i >= to+1 {
				t.Fatalf("sample %d (%.2f s) changed outside the redacted span", i, float64(i)/rate)
			}
			changed++
		}
	}
	if changed < (to-from)*9/10 {
		t.Errorf("only %d of the span's %d samples changed", changed, to-from)
	}
}

func TestRedactedTranscriptionDeletesAnMP3WithRedactions(t *testing.T) {
	e := newEnv(t, scriptedEngine{spokenCard})
	job := &callscribe.Job{
		ID: "job-mp3", AccountID: "acct", Type: callscribe.TypeTranscription, Status: callscribe.StatusQueued,
		AudioKey: "audio/acct/job-mp3.mp3", AudioFormat: callscribe.FormatMP3, AudioSeconds: 30, RedactPII: true,
	}
	data := []byte("ID3 stands in for an MP3 the scripted engine never reads")
	if err := e.audio.PutAudio(context.Background(), job.AudioKey, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if err := e.db.Jobs().CreateJob(context.Background(), job, nil); err != nil {
		t.Fatal(err)
	}
	_, res := e.run(t, job.ID)
	if res.Redaction == nil || res.Redaction.Audio != "deleted" {
		t.Fatalf("redaction = %+v, want the audio deleted", res.Redaction)
	}
	if _, err := e.audio.OpenAudio(context.Background(), job.AudioKey); !callscribe.IsCode(err, callscribe.CodeNotFound) {
		t.Errorf("the MP3 is still stored (err %v)", err)
	}
}

func TestUnredactedTranscriptionKeepsEverything(t *testing.T) {
	e := newEnv(t, scriptedEngine{spokenCard})
	job := e.transcription(t, "job-plain", 30, "en")
	original := e.storedAudio(t, job.AudioKey)
	_, res := e.run(t, job.ID)
	if res.Transcript[0].Text != spokenCard || res.Redaction != nil {
		t.Errorf("text %q, redaction %+v: want both as the engine gave them", res.Transcript[0].Text, res.Redaction)
	}
	if !bytes.Equal(e.storedAudio(t, job.AudioKey), original) {
		t.Error("the audio changed")
	}
}

// A summary asked with redact_pii of text with a phone number stores, queues
// and summarises only the redacted text, and its result counts the number.
func TestRedactedTextSummary(t *testing.T) {
	e := newEnv(t, scriptedEngine{spokenCard})
	job, err := e.w.Jobs.Derive(context.Background(), jobs.DeriveRequest{
		AccountID: "acct", Type: callscribe.TypeSummary, Text: "User: call me back on 555-123-4567 about the refund", RedactPII: "true",
	})
	if err != nil {
		t.Fatal(err)
	}
	stored := e.get(t, job.ID)
	if stored.Input == nil || stored.Input.Text != "User: call me back on [REDACTED:PHONE] about the refund" {
		t.Fatalf("stored input = %+v", stored.Input)
	}
	if err := e.w.HandleMessage(context.Background(), callscribe.Message{Kind: callscribe.KindDerive, JobID: job.ID}); err != nil {
		t.Fatal(err)
	}
	var summary callscribe.SummaryResult
	if err := json.Unmarshal(e.get(t, job.ID).Result, &summary); err != nil {
		t.Fatal(err)
	}
	if r := summary.Redaction; r == nil || r.Categories["phone"] != 1 || r.Categories["card"] != 0 || r.Audio != "" {
		t.Errorf("summary redaction = %+v, want one phone number", r)
	}
	if _, err := e.w.Jobs.Derive(context.Background(), jobs.DeriveRequest{
		AccountID: "acct", Type: callscribe.TypeSummary, Text: "hello", RedactPII: "yes",
	}); !callscribe.IsCode(err, callscribe.CodeInvalidRedactPII) {
		t.Errorf("redact_pii=yes: err %v, want INVALID_REDACT_PII", err)
	}
}

// BenchmarkRedactMinute is redaction's whole cost per minute of audio in the
// worker: the transcript of a minute of two-sided call (150 words, a card
// number, a phone number and an e-mail address read out) redacted, and its
// 8 kHz stereo WAV toned and written back to the disk store
// (infra/bench/README.md).
func BenchmarkRedactMinute(b *testing.B) {
	e := newEnv(b, scriptedEngine{})
	const rate = 8000
	left, right := make([]int16, 60*rate), make([]int16, 60*rate)
	for i := range left {
		left[i], right[i] = int16(i%200*50), int16(i%120*80)
	}
	audio := decode.EncodeWAV(rate, left, right)
	job := &callscribe.Job{ID: "bench", AudioKey: "audio/acct/bench.wav", AudioFormat: callscribe.FormatWAV, RedactPII: true}
	lines := []string{
		"thank you for calling how can i help you today",
		"i was charged twice on my bill and i want a refund please",
		"can i take the card number you paid with please",
		"four two four two four two four two four two four two four two four two",
		"and a phone number in case we are cut off",
		"five five five one two three four five six seven",
		"and the email address for the receipt",
		"my email is john at example dot com",
		"thank you i can see two payments of forty nine ninety nine",
		"i have refunded one of them it takes three to five days",
	}
	var segs []callscribe.Segment
	at := 0.0
	for len(segs) < 15 {
		text := lines[len(segs)%len(lines)]
		var words []callscribe.Word
		for _, w := range strings.Fields(text) {
			words = append(words, callscribe.Word{Text: w, Start: at, End: at + 0.4})
			at += 0.4
		}
		segs = append(segs, callscribe.Segment{Text: text, TimeStart: words[0].Start, TimeEnd: at, Words: words, SpeakerID: len(segs) % 2})
	}
	b.SetBytes(int64(len(audio)))
	b.ReportAllocs()
	buf := make([]byte, len(audio))
	for b.Loop() {
		copy(buf, audio)
		res := &callscribe.TranscriptionResult{Transcript: segs}
		if err := e.w.redact(context.Background(), job, buf, res); err != nil {
			b.Fatal(err)
		}
		if res.Redaction.Audio != callscribe.RedactionAudioToned || res.Redaction.Categories["card"] != 2 {
			b.Fatalf("redaction = %+v", res.Redaction)
		}
	}
}
