package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/audio/decode"
	audiotone "github.com/callscribe/callscribe/shared/audio/tone"
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

// spokenNumber is six digits read out, words 4 to 9 of scriptedEngine's
// timing: seconds 4 to 10.
const spokenNumber = "my number is four two four two four two thanks"

// redactedMP3 stores a queued MP3 transcription with redact_pii, its audio
// testdata/noise-16k-mono-mpeg2-12s.mp3 (12 s of pink noise, which decodes
// with and without cgo).
func (e *env) redactedMP3(t *testing.T) *callscribe.Job {
	t.Helper()
	data, err := os.ReadFile("testdata/noise-16k-mono-mpeg2-12s.mp3")
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	job := &callscribe.Job{
		ID: id, AccountID: "acct", Type: callscribe.TypeTranscription, Status: callscribe.StatusQueued,
		AudioKey: "audio/acct/" + id + ".mp3", AudioFormat: callscribe.FormatMP3, AudioSeconds: 12, RedactPII: true,
	}
	if err := e.audio.PutAudio(context.Background(), job.AudioKey, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if err := e.db.Jobs().CreateJob(context.Background(), job, nil); err != nil {
		t.Fatal(err)
	}
	return job
}

// requireToned checks that a stored 16 kHz WAV is the tone over the spoken
// number's padded span (seconds 4 to 10) and noise elsewhere.
func requireToned(t *testing.T, wav []byte) {
	t.Helper()
	a, err := decode.DecodeWAV(wav)
	if err != nil {
		t.Fatal(err)
	}
	const rate = 16000
	if a.SampleRate != rate || len(a.Channels) != 1 {
		t.Fatalf("rendition is %d Hz, %d channels; want the MP3's 16000 Hz mono", a.SampleRate, len(a.Channels))
	}
	if d := a.Duration(); d < 11.9 || d > 12.2 {
		t.Errorf("rendition lasts %.2f s, want the MP3's 12", d)
	}
	at := func(from, to float64) []int16 { return a.Channels[0][int(from*rate):int(to*rate)] }
	if share := audiotone.Share(at(4-SpanPadding+0.01, 10+SpanPadding-0.01), rate); share < 0.99 {
		t.Errorf("tone share %.3f over the redacted span, want the tone", share)
	}
	for _, out := range [][2]float64{{0.5, 3.8}, {10.2, 11.5}} {
		if share := audiotone.Share(at(out[0], out[1]), rate); share > 0.05 {
			t.Errorf("tone share %.3f over %v s, outside the span; want the noise", share, out)
		}
	}
}

func TestRedactedTranscriptionTonesAnMP3(t *testing.T) {
	e := newEnv(t, scriptedEngine{spokenNumber})
	job := e.redactedMP3(t)
	done, res := e.run(t, job.ID)
	if res.Redaction == nil || res.Redaction.Categories["number"] != 1 || res.Redaction.Audio != "toned" {
		t.Fatalf("redaction = %+v, want one number and the audio toned", res.Redaction)
	}
	rendition := jobs.RenditionKey(job.AudioKey)
	if want := "audio/acct/" + job.ID + ".redacted.wav"; rendition != want || done.AudioKey != want || done.AudioFormat != callscribe.FormatWAV {
		t.Fatalf("job's audio %q (%s), want the rendition %q (wav)", done.AudioKey, done.AudioFormat, want)
	}
	if _, err := e.audio.OpenAudio(context.Background(), job.AudioKey); !callscribe.IsCode(err, callscribe.CodeNotFound) {
		t.Errorf("the MP3 is still stored (err %v)", err)
	}
	requireToned(t, e.storedAudio(t, rendition))

	// Deleting the job deletes the rendition.
	if _, err := e.w.Jobs.Delete(context.Background(), "acct", job.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.audio.OpenAudio(context.Background(), rendition); !callscribe.IsCode(err, callscribe.CodeNotFound) {
		t.Errorf("the rendition outlived the job's delete (err %v)", err)
	}
}

// recordingEngine is scriptedEngine that keeps the requests it was given.
type recordingEngine struct {
	scriptedEngine
	reqs []callscribe.TranscriptionRequest
}

func (e *recordingEngine) Transcribe(ctx context.Context, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	e.reqs = append(e.reqs, req)
	return e.scriptedEngine.Transcribe(ctx, req)
}

// An attempt that stored the rendition and deleted the MP3 but stopped before
// the job succeeded leaves the rendition: the next attempt transcribes it and
// points the job at it.
func TestRedactedMP3RetryReadsTheRendition(t *testing.T) {
	engine := &recordingEngine{scriptedEngine: scriptedEngine{spokenNumber}}
	e := newEnv(t, engine)
	job := e.redactedMP3(t)
	e.firstAttemptRedaction(t, engine, job)
	rendition := jobs.RenditionKey(job.AudioKey)
	if _, err := e.audio.OpenAudio(context.Background(), job.AudioKey); !callscribe.IsCode(err, callscribe.CodeNotFound) {
		t.Fatalf("the first attempt left the MP3 (err %v)", err)
	}
	if e.get(t, job.ID).AudioKey != job.AudioKey {
		t.Fatal("the job moved to the rendition before it succeeded")
	}
	// A delete now would find the job naming the deleted MP3 (see
	// TestDeleteBeforeSucceedDeletesTheRendition); the retry runs instead.

	engine.reqs = nil
	done, res := e.run(t, job.ID)
	if len(engine.reqs) != 1 || engine.reqs[0].AudioKey != rendition || engine.reqs[0].Format != callscribe.FormatWAV ||
		!bytes.HasPrefix(engine.reqs[0].Audio, []byte("RIFF")) {
		t.Fatalf("the retry transcribed %d requests, want one of the rendition", len(engine.reqs))
	}
	if done.AudioKey != rendition || done.AudioFormat != callscribe.FormatWAV {
		t.Errorf("job's audio %q (%s), want the rendition", done.AudioKey, done.AudioFormat)
	}
	if res.Redaction == nil || res.Redaction.Audio != "toned" {
		t.Errorf("redaction = %+v, want the audio toned", res.Redaction)
	}
	requireToned(t, e.storedAudio(t, rendition))
}

// A job deleted after its attempt stored the rendition and before it
// succeeded still names the MP3: its delete removes the rendition too.
func TestDeleteBeforeSucceedDeletesTheRendition(t *testing.T) {
	engine := scriptedEngine{spokenNumber}
	e := newEnv(t, engine)
	job := e.redactedMP3(t)
	moved := e.firstAttemptRedaction(t, engine, job)
	e.storedAudio(t, moved.Key) // stored
	if _, err := e.w.Jobs.Delete(context.Background(), "acct", job.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.audio.OpenAudio(context.Background(), moved.Key); !callscribe.IsCode(err, callscribe.CodeNotFound) {
		t.Errorf("the rendition outlived the job's delete (err %v)", err)
	}
}

// firstAttemptRedaction runs a first attempt's redaction of the job's stored
// MP3 with the engine's transcript and returns where the toned rendition went.
func (e *env) firstAttemptRedaction(t *testing.T, engine callscribe.Transcriber, job *callscribe.Job) *callscribe.StoredAudio {
	t.Helper()
	tr, err := engine.Transcribe(context.Background(), callscribe.TranscriptionRequest{JobID: job.ID})
	if err != nil {
		t.Fatal(err)
	}
	res := &callscribe.TranscriptionResult{Transcript: tr.Transcript}
	moved, err := e.w.redact(context.Background(), job, e.storedAudio(t, job.AudioKey), res)
	if err != nil || moved == nil {
		t.Fatalf("redact: %v, %+v", err, moved)
	}
	return moved
}

// Both builds' decoders make the same rendition: libmpg123's (cgo) and the
// pure-Go one the Lambdas use.
func TestTonedRenditionWithEitherDecoder(t *testing.T) {
	data, err := os.ReadFile("testdata/noise-16k-mono-mpeg2-12s.mp3")
	if err != nil {
		t.Fatal(err)
	}
	spans := []audiotone.Span{{Start: 4 - SpanPadding, End: 10 + SpanPadding}}
	decoders := map[string]func([]byte) (*decode.Audio, error){"go-mp3": decode.DecodeMP3Go}
	if decode.MP3Supported() {
		decoders["libmpg123"] = decode.DecodeMP3
	}
	for name, dec := range decoders {
		t.Run(name, func(t *testing.T) {
			wav, err := tonedRendition(data, spans, dec)
			if err != nil {
				t.Fatal(err)
			}
			requireToned(t, wav)
		})
	}
}

// A job deleted while its attempt was storing the rendition (its delete found
// only the MP3) loses the rendition when the attempt's succeed is refused.
func TestRenditionOfADeletedJobIsDeleted(t *testing.T) {
	engine := scriptedEngine{spokenNumber}
	e := newEnv(t, engine)
	job := e.redactedMP3(t)
	moved := e.firstAttemptRedaction(t, engine, job)
	if err := e.db.Jobs().DeleteJob(context.Background(), job.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := e.w.finish(context.Background(), callscribe.Message{JobID: job.ID}, job, json.RawMessage(`{}`), moved, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.audio.OpenAudio(context.Background(), moved.Key); !callscribe.IsCode(err, callscribe.CodeNotFound) {
		t.Errorf("the deleted job's rendition is stored (err %v)", err)
	}
}

// An MP3 whose rendition would be over the bound is deleted, as one that
// cannot be decoded is.
func TestRedactedMP3OverTheBoundIsDeleted(t *testing.T) {
	renditionLimit = 12 * 16000 * 2 // just under 12 s of 16 kHz mono and its header
	t.Cleanup(func() { renditionLimit = MaxRenditionBytes })
	e := newEnv(t, scriptedEngine{spokenNumber})
	job := e.redactedMP3(t)
	done, res := e.run(t, job.ID)
	if res.Redaction == nil || res.Redaction.Audio != "deleted" {
		t.Fatalf("redaction = %+v, want the audio deleted", res.Redaction)
	}
	if done.AudioKey != job.AudioKey {
		t.Errorf("job's audio %q, want the MP3's key kept", done.AudioKey)
	}
	for _, key := range []string{job.AudioKey, jobs.RenditionKey(job.AudioKey)} {
		if _, err := e.audio.OpenAudio(context.Background(), key); !callscribe.IsCode(err, callscribe.CodeNotFound) {
			t.Errorf("%s is stored (err %v)", key, err)
		}
	}
}

// An MP3 that cannot be decoded is deleted.
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
// number, a phone number and an e-mail address read out) redacted, and the
// recording toned and stored in the disk store (infra/bench/README.md):
//
//   - wav: an 8 kHz stereo WAV toned in place and written back;
//   - mp3: a minute of 16 kHz mono MP3 (the same samples a second as 8 kHz
//     stereo; five copies of the 12 s fixture) decoded by the build's decoder
//     (libmpg123 with cgo), toned as a WAV rendition, the rendition written and
//     the MP3 deleted (put back untimed for the next op);
//   - mp3-go: that MP3's rendition made with the pure-Go decoder the Lambdas
//     use (decode and tone only, nothing stored).
func BenchmarkRedactMinute(b *testing.B) {
	e := newEnv(b, scriptedEngine{})
	const rate = 8000
	left, right := make([]int16, 60*rate), make([]int16, 60*rate)
	for i := range left {
		left[i], right[i] = int16(i%200*50), int16(i%120*80)
	}
	audio := decode.EncodeWAV(rate, left, right)
	fixture, err := os.ReadFile("testdata/noise-16k-mono-mpeg2-12s.mp3")
	if err != nil {
		b.Fatal(err)
	}
	mp3 := bytes.Repeat(fixture, 5)
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
	check := func(b *testing.B, res *callscribe.TranscriptionResult) {
		if res.Redaction.Audio != callscribe.RedactionAudioToned || res.Redaction.Categories["card"] != 2 {
			b.Fatalf("redaction = %+v", res.Redaction)
		}
	}
	b.Run("wav", func(b *testing.B) {
		job := &callscribe.Job{ID: "bench", AudioKey: "audio/acct/bench.wav", AudioFormat: callscribe.FormatWAV, RedactPII: true}
		b.SetBytes(int64(len(audio)))
		b.ReportAllocs()
		buf := make([]byte, len(audio))
		for b.Loop() {
			copy(buf, audio)
			res := &callscribe.TranscriptionResult{Transcript: segs}
			if _, err := e.w.redact(context.Background(), job, buf, res); err != nil {
				b.Fatal(err)
			}
			check(b, res)
		}
	})
	b.Run("mp3", func(b *testing.B) {
		job := &callscribe.Job{ID: "bench-mp3", AudioKey: "audio/acct/bench.mp3", AudioFormat: callscribe.FormatMP3, RedactPII: true}
		b.SetBytes(int64(len(mp3)))
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			if err := e.audio.PutAudio(context.Background(), job.AudioKey, bytes.NewReader(mp3), int64(len(mp3))); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			res := &callscribe.TranscriptionResult{Transcript: segs}
			moved, err := e.w.redact(context.Background(), job, mp3, res)
			if err != nil || moved == nil {
				b.Fatalf("redact: %v, %+v", err, moved)
			}
			check(b, res)
		}
	})
	b.Run("mp3-go", func(b *testing.B) {
		spans := []audiotone.Span{{Start: 10, End: 23}}
		b.SetBytes(int64(len(mp3)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tonedRendition(mp3, spans, decode.DecodeMP3Go); err != nil {
				b.Fatal(err)
			}
		}
	})
}
