package jobs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/adapters/diskaudio"
	"github.com/callscribe/callscribe/shared/adapters/sqlite"
	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

// The service is tested over the embedded adapters (SQLite, disk audio), the
// stores it runs on in `make run`; the queue is a recorder so each test sees
// exactly what was submitted, or a refusing one for the 502 path.

type recordingQueue struct {
	mu     sync.Mutex
	msgs   []callscribe.Message
	refuse bool
}

func (q *recordingQueue) Enqueue(_ context.Context, m callscribe.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.refuse {
		return errors.New("queue unavailable")
	}
	q.msgs = append(q.msgs, m)
	return nil
}

func (q *recordingQueue) messages() []callscribe.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]callscribe.Message(nil), q.msgs...)
}

// fixedSigner stands in for a presigned-upload signer: the test stages files
// itself under the key it was asked to sign.
type fixedSigner struct{ keys []string }

func (f *fixedSigner) SignUpload(_ context.Context, key string, maxBytes int64, expiry time.Duration) (string, map[string]string, error) {
	f.keys = append(f.keys, key)
	return "http://uploads.test/", map[string]string{"key": key}, nil
}

type env struct {
	svc       *jobs.Service
	db        *sqlite.DB
	audio     *diskaudio.Store
	audioRoot string
	queue     *recordingQueue
	signer    *fixedSigner
	now       time.Time
}

const quotaMinutes = 10

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	db, err := sqlite.Open(filepath.Join(dir, "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	audio, err := diskaudio.New(filepath.Join(dir, "audio"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{db: db, audio: audio, audioRoot: filepath.Join(dir, "audio"), queue: &recordingQueue{}, signer: &fixedSigner{}, now: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
	e.svc = jobs.New(jobs.Deps{
		Jobs: db.Jobs(), Accounts: db.Accounts(), Audio: audio, Queue: e.queue, Uploads: e.signer,
		Idempotency: db.Idempotency(),
		Now:         func() time.Time { return e.now },
	}, jobs.Config{QuotaMinutes: quotaMinutes, CallbackAllowHosts: []string{"127.0.0.1"}})
	return e
}

// wav is seconds of 8 kHz mono 16-bit PCM.
func wav(t *testing.T, seconds float64) []byte {
	t.Helper()
	samples := make([]int16, int(seconds*8000))
	for i := range samples {
		samples[i] = int16((i % 40) * 300)
	}
	return decode.EncodeWAV(8000, samples)
}

func upload(account string, data []byte) jobs.TranscriptionRequest {
	return jobs.TranscriptionRequest{AccountID: account, Audio: bytes.NewReader(data), AudioSize: int64(len(data)), Filename: "call.wav"}
}

func requireCode(t *testing.T, err error, code string) {
	t.Helper()
	if !callscribe.IsCode(err, code) {
		t.Fatalf("error %v, want code %s", err, code)
	}
}

func (e *env) audioExists(t *testing.T, key string) bool {
	t.Helper()
	rc, err := e.audio.OpenAudio(context.Background(), key)
	if callscribe.IsCode(err, callscribe.CodeNotFound) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	return true
}

func (e *env) usedSeconds(t *testing.T, account string) float64 {
	t.Helper()
	u, err := e.svc.Usage(context.Background(), account)
	if err != nil {
		t.Fatal(err)
	}
	return u.UsedSeconds
}

func TestSubmitTranscriptionStoresAudioJobAndMessage(t *testing.T) {
	e := newEnv(t)
	ctx := callscribe.WithRequestID(context.Background(), "req-1")
	req := upload("acct", wav(t, 3))
	req.Language, req.Metadata = " en-US ", " {\"crm\": \"42\",\n \"tag\" : [1, 2]} "
	job, err := e.svc.SubmitTranscription(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := e.svc.Get(ctx, "acct", job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status != callscribe.StatusQueued || stored.Type != callscribe.TypeTranscription || stored.AudioSeconds != 3 ||
		stored.Language != "en-US" || string(stored.Metadata) != `{"crm":"42","tag":[1,2]}` || // stored compact: reads send it as it is *stored.OriginalFilename != "call.wav" ||
		stored.QuotaMonth != "2026-11" || !stored.CreatedAt.Equal(e.now) {
		t.Fatalf("stored job %+v", stored)
	}
	if !e.audioExists(t, stored.AudioKey) || !strings.HasPrefix(stored.AudioKey, "audio/acct/") {
		t.Fatalf("audio key %q not stored under the account", stored.AudioKey)
	}
	msgs := e.queue.messages()
	if len(msgs) != 1 || msgs[0] != (callscribe.Message{Kind: callscribe.KindTranscribe, JobID: job.ID, RequestID: "req-1"}) {
		t.Fatalf("messages %+v", msgs)
	}
	if used := e.usedSeconds(t, "acct"); used != 3 {
		t.Fatalf("used %v seconds, want 3 reserved", used)
	}
}

func TestSubmitTranscriptionChecksInOrder(t *testing.T) {
	e := newEnv(t)
	good := wav(t, 1)
	cases := []struct {
		name string
		req  jobs.TranscriptionRequest
		code string
	}{
		{"no file", jobs.TranscriptionRequest{AccountID: "acct"}, callscribe.CodeAudioFileMissing},
		{"empty file", upload("acct", nil), callscribe.CodeAudioFileMissing},
		// File presence is checked before metadata: a request with neither says the file is missing.
		{"no file and bad metadata", jobs.TranscriptionRequest{AccountID: "acct", Metadata: "nope"}, callscribe.CodeAudioFileMissing},
		{"metadata not JSON", func() jobs.TranscriptionRequest { r := upload("acct", good); r.Metadata = "{nope"; return r }(), callscribe.CodeInvalidMetadataJSON},
		{"metadata an array", func() jobs.TranscriptionRequest { r := upload("acct", good); r.Metadata = "[1]"; return r }(), callscribe.CodeInvalidMetadataJSON},
		{"metadata too large", func() jobs.TranscriptionRequest {
			r := upload("acct", good)
			r.Metadata = `{"a":"` + strings.Repeat("x", jobs.MaxMetadataBytes) + `"}`
			return r
		}(), callscribe.CodeInvalidMetadataJSON},
		// Metadata is checked before the language and the audio's format.
		{"bad metadata and bad audio", jobs.TranscriptionRequest{AccountID: "acct", Audio: strings.NewReader("not audio"), AudioSize: 9, Metadata: "1"}, callscribe.CodeInvalidMetadataJSON},
		{"language not a tag", func() jobs.TranscriptionRequest { r := upload("acct", good); r.Language = "english please"; return r }(), callscribe.CodeInvalidRequest},
		{"not audio", jobs.TranscriptionRequest{AccountID: "acct", Audio: strings.NewReader("plain text, no audio"), AudioSize: 20}, callscribe.CodeUnsupportedAudioFormat},
		{"WAV without readable duration", upload("acct", good[:30]), callscribe.CodeAudioDurationUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.svc.SubmitTranscription(context.Background(), c.req)
			requireCode(t, err, c.code)
		})
	}
	if msgs := e.queue.messages(); len(msgs) != 0 {
		t.Fatalf("refused uploads queued %d messages", len(msgs))
	}
	page, err := e.svc.List(context.Background(), callscribe.ListRequest{AccountID: "acct"})
	if err != nil || len(page.Jobs) != 0 {
		t.Fatalf("refused uploads stored jobs: %v %v", page, err)
	}
}

func TestSubmitTranscriptionOverQuotaStoresNothing(t *testing.T) {
	e := newEnv(t)
	if _, err := e.svc.SubmitTranscription(context.Background(), upload("acct", wav(t, 9*60))); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.SubmitTranscription(context.Background(), upload("acct", wav(t, 2*60)))
	requireCode(t, err, callscribe.CodeQuotaExceeded)
	var ce *callscribe.Error
	errors.As(err, &ce)
	if ce.Details["limit_minutes"] != float64(quotaMinutes) || ce.Details["used_minutes"] != 9.0 || ce.Details["file_minutes"] != 2.0 {
		t.Fatalf("details %v", ce.Details)
	}
	// The refused upload's audio was removed again: only the first job's file is left.
	page, _ := e.svc.List(context.Background(), callscribe.ListRequest{AccountID: "acct"})
	if len(page.Jobs) != 1 {
		t.Fatalf("%d jobs; want the first only", len(page.Jobs))
	}
	// A listed job carries the listing fields only; its audio key is on the job itself.
	first, err := e.svc.Get(context.Background(), "acct", page.Jobs[0].ID)
	if err != nil || !e.audioExists(t, first.AudioKey) {
		t.Fatalf("the first job %+v, %v: want it with its audio", first, err)
	}
	if files := countFiles(t, e, "audio/acct/"); files != 1 {
		t.Fatalf("%d audio files under the account, want 1", files)
	}
}

// countFiles counts the files the disk store holds under prefix.
func countFiles(t *testing.T, e *env, prefix string) int {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(e.audioRoot, filepath.FromSlash(prefix), "*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(matches)
}

func TestSubmitFailureMarksJobFailedAndReleasesMinutes(t *testing.T) {
	e := newEnv(t)
	e.queue.refuse = true
	_, err := e.svc.SubmitTranscription(context.Background(), upload("acct", wav(t, 4)))
	requireCode(t, err, callscribe.CodeProviderSubmitFailed)
	var ce *callscribe.Error
	errors.As(err, &ce)
	id, _ := ce.Details["job_id"].(string)
	job, err := e.svc.Get(context.Background(), "acct", id)
	if err != nil {
		t.Fatal(err)
	}
	if job.Status != callscribe.StatusFailed || job.Error == nil || job.Error.Code != callscribe.JobErrSubmitFailed {
		t.Fatalf("job %+v", job)
	}
	if used := e.usedSeconds(t, "acct"); used != 0 {
		t.Fatalf("a failed submission still holds %v seconds", used)
	}
}

func TestTwoStepUploadIsConsumedOnce(t *testing.T) {
	spool := t.TempDir() // the staged upload is spooled here, then removed
	t.Setenv("TMPDIR", spool)
	e := newEnv(t)
	ctx := context.Background()
	up, err := e.svc.CreateUpload(ctx, "acct")
	if err != nil {
		t.Fatal(err)
	}
	if up.MaxBytes != jobs.MaxAudioBytes || !up.ExpiresAt.Equal(e.now.Add(jobs.UploadExpiry)) || len(e.signer.keys) != 1 ||
		e.signer.keys[0] != jobs.UploadsPrefix+"/acct/"+up.ID {
		t.Fatalf("upload %+v signed %v", up, e.signer.keys)
	}
	data := wav(t, 2)
	if err := e.audio.PutAudio(ctx, e.signer.keys[0], bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	// Another account cannot use it: its staging prefix differs.
	_, err = e.svc.SubmitTranscription(ctx, jobs.TranscriptionRequest{AccountID: "other", UploadID: up.ID})
	requireCode(t, err, callscribe.CodeUploadNotFound)
	job, err := e.svc.SubmitTranscription(ctx, jobs.TranscriptionRequest{AccountID: "acct", UploadID: up.ID})
	if err != nil {
		t.Fatal(err)
	}
	if job.AudioSeconds != 2 || !e.audioExists(t, job.AudioKey) || e.audioExists(t, e.signer.keys[0]) {
		t.Fatalf("job %+v; staged object should have moved under the job's key", job)
	}
	_, err = e.svc.SubmitTranscription(ctx, jobs.TranscriptionRequest{AccountID: "acct", UploadID: up.ID})
	requireCode(t, err, callscribe.CodeUploadNotFound)
	// Staged again under the same key (the signed form posted twice): still consumed.
	if err := e.audio.PutAudio(ctx, e.signer.keys[0], bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.SubmitTranscription(ctx, jobs.TranscriptionRequest{AccountID: "acct", UploadID: up.ID})
	requireCode(t, err, callscribe.CodeUploadNotFound)
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Fatalf("spooled files left behind: %v", left)
	}
	for _, bad := range []string{"../etc/passwd", "a/b", strings.Repeat("x", 65)} {
		_, err = e.svc.SubmitTranscription(ctx, jobs.TranscriptionRequest{AccountID: "acct", UploadID: bad})
		requireCode(t, err, callscribe.CodeUploadNotFound)
	}
}

// Requests racing with one upload id make one job between them.
func TestTwoStepUploadConcurrentUseMakesOneJob(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	up, err := e.svc.CreateUpload(ctx, "acct")
	if err != nil {
		t.Fatal(err)
	}
	data := wav(t, 1)
	if err := e.audio.PutAudio(ctx, e.signer.keys[0], bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	const callers = 6
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.svc.SubmitTranscription(ctx, jobs.TranscriptionRequest{AccountID: "acct", UploadID: up.ID})
		}()
	}
	wg.Wait()
	accepted := 0
	for _, err := range errs {
		if err == nil {
			accepted++
		} else if !callscribe.IsCode(err, callscribe.CodeUploadNotFound) {
			t.Errorf("error %v, want UPLOAD_NOT_FOUND", err)
		}
	}
	if accepted != 1 || len(e.queue.messages()) != 1 {
		t.Fatalf("%d requests accepted, %d jobs queued; want 1 and 1", accepted, len(e.queue.messages()))
	}
}

func TestOversizedStagedUploadIsRefusedAndRemoved(t *testing.T) {
	spool := t.TempDir()
	t.Setenv("TMPDIR", spool)
	e := newEnv(t)
	ctx := context.Background()
	up, _ := e.svc.CreateUpload(ctx, "acct")
	big := make([]byte, jobs.MaxAudioBytes+1)
	if err := e.audio.PutAudio(ctx, e.signer.keys[0], bytes.NewReader(big), int64(len(big))); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.SubmitTranscription(ctx, jobs.TranscriptionRequest{AccountID: "acct", UploadID: up.ID})
	requireCode(t, err, callscribe.CodeFileTooLarge)
	if e.audioExists(t, e.signer.keys[0]) {
		t.Fatal("the oversized staged object was kept")
	}
	if left, _ := os.ReadDir(spool); len(left) != 0 {
		t.Fatalf("spooled files left behind: %v", left)
	}
}

func TestCreateUploadWithoutSigner(t *testing.T) {
	e := newEnv(t)
	svc := jobs.New(jobs.Deps{Jobs: e.db.Jobs(), Accounts: e.db.Accounts(), Audio: e.audio, Queue: e.queue}, jobs.Config{})
	_, err := svc.CreateUpload(context.Background(), "acct")
	requireCode(t, err, callscribe.CodeNotFound)
}

func TestGetAndDeleteEnforceOwnership(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	job, err := e.svc.SubmitTranscription(ctx, upload("acct", wav(t, 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Get(ctx, "other", job.ID)
	requireCode(t, err, callscribe.CodeForbidden)
	_, err = e.svc.Delete(ctx, "other", job.ID)
	requireCode(t, err, callscribe.CodeForbidden)
	_, err = e.svc.Get(ctx, "acct", "not-a-uuid")
	requireCode(t, err, callscribe.CodeJobNotFound)
	_, err = e.svc.Get(ctx, "acct", "6f1c7a4e-0000-4000-8000-000000000000")
	requireCode(t, err, callscribe.CodeJobNotFound)

	if _, err := e.svc.Delete(ctx, "acct", job.ID); err != nil {
		t.Fatal(err)
	}
	if e.audioExists(t, job.AudioKey) {
		t.Fatal("audio kept after delete")
	}
	_, err = e.svc.Get(ctx, "acct", job.ID)
	requireCode(t, err, callscribe.CodeJobNotFound)
	_, err = e.svc.Delete(ctx, "acct", job.ID)
	requireCode(t, err, callscribe.CodeJobNotFound)
	if used := e.usedSeconds(t, "acct"); used != 1 {
		t.Fatalf("deleting gave minutes back: used %v", used)
	}
}

// finished runs a submitted transcription through the pipeline's state changes
// with the given segments as its result.
func (e *env) finished(t *testing.T, account string, segments []callscribe.Segment, language *string) *callscribe.Job {
	t.Helper()
	ctx := context.Background()
	job, err := e.svc.SubmitTranscription(ctx, upload(account, wav(t, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Claim(ctx, job.ID, true); err != nil {
		t.Fatal(err)
	}
	result, _ := json.Marshal(callscribe.TranscriptionResult{Language: language, DurationSeconds: 1, Transcript: segments})
	done, err := e.svc.Succeed(ctx, job, result, nil)
	if err != nil {
		t.Fatal(err)
	}
	return done
}

func ptr[T any](v T) *T { return &v }

func TestDeriveChecksSourceInSpecOrder(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	speech := []callscribe.Segment{{Text: "my bill is wrong", SpeakerAlias: "User", SpeakerID: 1}}
	done := e.finished(t, "acct", speech, ptr("en"))
	silent := e.finished(t, "acct", nil, ptr("en"))
	queued, err := e.svc.SubmitTranscription(ctx, upload("acct", wav(t, 1)))
	if err != nil {
		t.Fatal(err)
	}
	summary, err := e.svc.Derive(ctx, jobs.DeriveRequest{AccountID: "acct", Type: callscribe.TypeSummary, Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		req  jobs.DeriveRequest
		code string
	}{
		{"both sources", jobs.DeriveRequest{SourceJobID: done.ID, Text: "x"}, callscribe.CodeMultipleTranscriptSources},
		{"neither", jobs.DeriveRequest{}, callscribe.CodeMissingTranscriptSource},
		{"blank text", jobs.DeriveRequest{Text: " \n\t "}, callscribe.CodeMissingTranscriptSource},
		{"callback fields without url", jobs.DeriveRequest{Type: callscribe.TypeTags, Text: "x", CallUUID: ptr("c1")}, callscribe.CodeInvalidCallback},
		{"callback to a refused address", jobs.DeriveRequest{Type: callscribe.TypeTags, Text: "x", CallbackURL: ptr("http://10.0.0.1/hook")}, callscribe.CodeInvalidCallback},
		// Callback fields are checked before the source is loaded.
		{"bad callback and absent source", jobs.DeriveRequest{Type: callscribe.TypeTags, SourceJobID: "6f1c7a4e-0000-4000-8000-000000000000", CallUUID: ptr("c")}, callscribe.CodeInvalidCallback},
		{"absent source", jobs.DeriveRequest{SourceJobID: "6f1c7a4e-0000-4000-8000-000000000000"}, callscribe.CodeJobNotFound},
		{"another account's source", jobs.DeriveRequest{AccountID: "other", SourceJobID: done.ID}, callscribe.CodeForbidden},
		{"derived source", jobs.DeriveRequest{SourceJobID: summary.ID}, callscribe.CodeNotATranscription},
		{"unfinished source", jobs.DeriveRequest{SourceJobID: queued.ID}, callscribe.CodeTranscriptionNotReady},
		{"silent source", jobs.DeriveRequest{SourceJobID: silent.ID}, callscribe.CodeTranscriptEmpty},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.req.AccountID == "" {
				c.req.AccountID = "acct"
			}
			if c.req.Type == "" {
				c.req.Type = callscribe.TypeSummary
			}
			_, err := e.svc.Derive(ctx, c.req)
			requireCode(t, err, c.code)
		})
	}
}

func TestDeriveFromTranscriptionCopiesItsTranscript(t *testing.T) {
	e := newEnv(t)
	ctx := callscribe.WithRequestID(context.Background(), "req-derive")
	speech := []callscribe.Segment{{Text: "I want a refund", SpeakerAlias: "User", SpeakerID: 1, TimeEnd: 2}}
	source := e.finished(t, "acct", speech, ptr("en"))
	tags, err := e.svc.Derive(ctx, jobs.DeriveRequest{
		AccountID: "acct", Type: callscribe.TypeTags, SourceJobID: " " + source.ID + " ",
		CallbackURL: ptr("http://127.0.0.1:9/hook"), CallUUID: ptr("  "),
	})
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := e.svc.Get(ctx, "acct", tags.ID)
	if stored.SourceJobID != source.ID || stored.Language != "en" || stored.Input == nil || len(stored.Input.Segments) != 1 ||
		stored.Input.Segments[0].Text != "I want a refund" || stored.AudioSeconds != 0 || stored.QuotaMonth != "" {
		t.Fatalf("tags job %+v", stored)
	}
	// A blank call_uuid defaults to the source transcription's id.
	if stored.Callback == nil || stored.Callback.CallUUID != source.ID || stored.Callback.URL != "http://127.0.0.1:9/hook" {
		t.Fatalf("callback %+v", stored.Callback)
	}
	last := e.queue.messages()[len(e.queue.messages())-1]
	if last != (callscribe.Message{Kind: callscribe.KindDerive, JobID: tags.ID, RequestID: "req-derive"}) {
		t.Fatalf("message %+v", last)
	}
	// Deleting the source does not break the derived job: it keeps its own copy.
	if _, err := e.svc.Delete(ctx, "acct", source.ID); err != nil {
		t.Fatal(err)
	}
	if again, err := e.svc.Get(ctx, "acct", tags.ID); err != nil || len(again.Input.Segments) != 1 {
		t.Fatalf("derived job after deleting its source: %+v %v", again, err)
	}
	// Derived jobs hold no quota: only the source's second is used.
	if used := e.usedSeconds(t, "acct"); used != 1 {
		t.Fatalf("used %v", used)
	}
}

func TestDeriveSummaryIgnoresCallbackAndDefaultsCallUUIDToOwnID(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	sum, err := e.svc.Derive(ctx, jobs.DeriveRequest{AccountID: "acct", Type: callscribe.TypeSummary, Text: "Agent: hi", CallbackURL: ptr("not a url")})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := e.svc.Get(ctx, "acct", sum.ID); got.Callback != nil || got.Input.Text != "Agent: hi" {
		t.Fatalf("summary %+v", got)
	}
	tags, err := e.svc.Derive(ctx, jobs.DeriveRequest{AccountID: "acct", Type: callscribe.TypeTags, Text: "Agent: hi", CallbackURL: ptr("http://127.0.0.1:9/h")})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := e.svc.Get(ctx, "acct", tags.ID); got.Callback.CallUUID != tags.ID {
		t.Fatalf("call_uuid %q, want the tags job's own id", got.Callback.CallUUID)
	}
}

func TestListPageSizes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for i := range 105 {
		e.now = e.now.Add(time.Second)
		if _, err := e.svc.Derive(ctx, jobs.DeriveRequest{AccountID: "acct", Type: callscribe.TypeSummary, Text: fmt.Sprint("call ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ limit, want int }{{0, jobs.DefaultPageSize}, {-3, jobs.DefaultPageSize}, {7, 7}, {100, 100}, {5000, jobs.MaxPageSize}} {
		page, err := e.svc.List(ctx, callscribe.ListRequest{AccountID: "acct", Limit: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Jobs) != c.want || page.Next == nil {
			t.Fatalf("limit %d: %d jobs (next %v), want %d", c.limit, len(page.Jobs), page.Next, c.want)
		}
	}
	page, _ := e.svc.List(ctx, callscribe.ListRequest{AccountID: "other"})
	if len(page.Jobs) != 0 {
		t.Fatal("another account's listing shows jobs")
	}
}

func TestPipelineStateChanges(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	job, err := e.svc.SubmitTranscription(ctx, upload("acct", wav(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	claimed, err := e.svc.Claim(ctx, job.ID, true)
	if err != nil || claimed.Status != callscribe.StatusProcessing || claimed.Attempts != 1 {
		t.Fatalf("claim: %+v %v", claimed, err)
	}
	// A re-check resumes the attempt; a redelivery after a crash claims again.
	if again, _ := e.svc.Claim(ctx, job.ID, false); again.Attempts != 1 {
		t.Fatalf("re-check counted an attempt: %d", again.Attempts)
	}
	failed, err := e.svc.Fail(ctx, claimed, &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "undecodable"})
	if err != nil || failed.Status != callscribe.StatusFailed {
		t.Fatalf("fail: %+v %v", failed, err)
	}
	if used := e.usedSeconds(t, "acct"); used != 0 {
		t.Fatalf("failed job still holds %v seconds", used)
	}
	// A finished job cannot be claimed or finished again.
	_, err = e.svc.Claim(ctx, job.ID, true)
	requireCode(t, err, callscribe.CodeConflict)
	_, err = e.svc.Succeed(ctx, claimed, json.RawMessage(`{}`), nil)
	requireCode(t, err, callscribe.CodeConflict)
}

func TestSucceedRecordsDetectedLanguageOnlyWithoutAHint(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	withoutHint := e.finished(t, "acct", []callscribe.Segment{{Text: "hi"}}, ptr("en"))
	if withoutHint.Language != "en" {
		t.Fatalf("detected language not recorded: %q", withoutHint.Language)
	}
	req := upload("acct", wav(t, 1))
	req.Language = "en-GB"
	hinted, _ := e.svc.SubmitTranscription(ctx, req)
	e.svc.Claim(ctx, hinted.ID, true)
	done, err := e.svc.Succeed(ctx, hinted, json.RawMessage(`{"language":"en","duration_seconds":1,"transcript":[]}`), nil)
	if err != nil || done.Language != "en-GB" {
		t.Fatalf("the hint was replaced: %+v %v", done, err)
	}
}

func TestRequeueUnfinishedQueuesOnlyOrphans(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	withMessage, _ := e.svc.SubmitTranscription(ctx, upload("acct", wav(t, 1)))
	orphanTranscription, _ := e.svc.SubmitTranscription(ctx, upload("acct", wav(t, 1)))
	orphanTags, _ := e.svc.Derive(ctx, jobs.DeriveRequest{AccountID: "acct", Type: callscribe.TypeTags, Text: "x"})
	finished := e.finished(t, "acct", []callscribe.Segment{{Text: "hi"}}, nil)
	deleted, _ := e.svc.SubmitTranscription(ctx, upload("acct", wav(t, 1)))
	e.svc.Delete(ctx, "acct", deleted.ID)
	before := len(e.queue.messages())

	n, err := e.svc.RequeueUnfinished(ctx, func(id string) bool { return id == withMessage.ID })
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]callscribe.MessageKind{}
	for _, m := range e.queue.messages()[before:] {
		got[m.JobID] = m.Kind
	}
	want := map[string]callscribe.MessageKind{orphanTranscription.ID: callscribe.KindTranscribe, orphanTags.ID: callscribe.KindDerive}
	if n != 2 || len(got) != 2 || got[orphanTranscription.ID] != want[orphanTranscription.ID] || got[orphanTags.ID] != want[orphanTags.ID] {
		t.Fatalf("requeued %d: %v, want %v (finished %s, deleted %s untouched)", n, got, want, finished.ID, deleted.ID)
	}
}

func TestSignupLoginAndAPIKeys(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, bad := range []struct{ email, password string }{
		{"not-an-email", "long-enough-password"},
		{"Name <a@example.com>", "long-enough-password"},
		{"a@localhost", "long-enough-password"},
		{"a@example.com", "short"},
		{"a@example.com", strings.Repeat("p", jobs.MaxPasswordLength+1)},
	} {
		_, err := e.svc.Signup(ctx, bad.email, bad.password)
		requireCode(t, err, callscribe.CodeInvalidSignup)
	}
	acct, err := e.svc.Signup(ctx, " Ann@Example.com ", "long-enough-password")
	if err != nil || acct.Email != "ann@example.com" {
		t.Fatalf("signup: %+v %v", acct, err)
	}
	_, err = e.svc.Signup(ctx, "ANN@example.com", "another-password")
	requireCode(t, err, callscribe.CodeEmailTaken)

	if got, err := e.svc.Login(ctx, "ann@EXAMPLE.com", "long-enough-password", "192.0.2.1"); err != nil || got.ID != acct.ID {
		t.Fatalf("login: %+v %v", got, err)
	}
	_, wrongPassword := e.svc.Login(ctx, "ann@example.com", "wrong-password!", "192.0.2.1")
	_, unknownEmail := e.svc.Login(ctx, "bob@example.com", "long-enough-password", "192.0.2.1")
	requireCode(t, wrongPassword, callscribe.CodeUnauthorized)
	requireCode(t, unknownEmail, callscribe.CodeUnauthorized)
	if wrongPassword.Error() != unknownEmail.Error() {
		t.Fatalf("login answers tell accounts apart: %q vs %q", wrongPassword, unknownEmail)
	}

	created, err := e.svc.CreateAPIKey(ctx, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.now = e.now.Add(time.Minute)
	key, err := e.svc.AuthenticateAPIKey(ctx, created.Secret)
	if err != nil || key.AccountID != acct.ID {
		t.Fatalf("authenticate: %+v %v", key, err)
	}
	keys, _ := e.svc.ListAPIKeys(ctx, acct.ID)
	if len(keys) != 1 || keys[0].LastUsedAt == nil || !keys[0].LastUsedAt.Equal(e.now) || !strings.HasPrefix(created.Secret, keys[0].Prefix) {
		t.Fatalf("keys %+v", keys)
	}
	requireCode(t, e.svc.RevokeAPIKey(ctx, "other", created.Key.ID), callscribe.CodeNotFound)
	if err := e.svc.RevokeAPIKey(ctx, acct.ID, created.Key.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.AuthenticateAPIKey(ctx, created.Secret)
	requireCode(t, err, callscribe.CodeUnauthorized)
}

// Usage reports the same month and limit the upload enforces.
func TestUsageMatchesWhatUploadEnforces(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.svc.SubmitTranscription(ctx, upload("acct", wav(t, 90)))
	u, err := e.svc.Usage(ctx, "acct")
	if err != nil || u.LimitSeconds != quotaMinutes*60 || u.UsedSeconds != 90 || u.RemainingSeconds() != quotaMinutes*60-90 {
		t.Fatalf("usage %+v %v", u, err)
	}
	// Next month starts empty.
	e.now = e.now.AddDate(0, 1, 0)
	if u, _ := e.svc.Usage(ctx, "acct"); u.UsedSeconds != 0 {
		t.Fatalf("next month used %v", u.UsedSeconds)
	}
	over := jobs.Usage{LimitSeconds: 60, UsedSeconds: 90}
	if over.RemainingSeconds() != 0 {
		t.Fatal("remaining went negative")
	}
}

func TestTranscriptForExport(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	done := e.finished(t, "acct", []callscribe.Segment{{Text: "hello", SpeakerAlias: "Agent"}}, ptr("en"))
	res, err := e.svc.Transcript(ctx, "acct", done.ID)
	if err != nil || len(res.Transcript) != 1 || res.Transcript[0].Text != "hello" {
		t.Fatalf("transcript %+v %v", res, err)
	}
	silent := e.finished(t, "acct", nil, nil)
	if res, err := e.svc.Transcript(ctx, "acct", silent.ID); err != nil || res.Transcript == nil {
		t.Fatalf("a silent call exports an empty transcript, not null: %+v %v", res, err)
	}
	queued, _ := e.svc.SubmitTranscription(ctx, upload("acct", wav(t, 1)))
	_, err = e.svc.Transcript(ctx, "acct", queued.ID)
	requireCode(t, err, callscribe.CodeTranscriptionNotReady)
	failing, _ := e.svc.SubmitTranscription(ctx, upload("acct", wav(t, 1)))
	claimed, _ := e.svc.Claim(ctx, failing.ID, true)
	e.svc.Fail(ctx, claimed, &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "x"})
	_, err = e.svc.Transcript(ctx, "acct", failing.ID)
	requireCode(t, err, callscribe.CodeTranscriptionNotReady)
	if !strings.Contains(err.Error(), "failed") {
		t.Fatalf("a failed transcription's message should say it failed: %v", err)
	}
	sum, _ := e.svc.Derive(ctx, jobs.DeriveRequest{AccountID: "acct", Type: callscribe.TypeSummary, Text: "x"})
	_, err = e.svc.Transcript(ctx, "acct", sum.ID)
	requireCode(t, err, callscribe.CodeNotATranscription)
	_, err = e.svc.Transcript(ctx, "other", done.ID)
	requireCode(t, err, callscribe.CodeForbidden)
}

// nestedMetadata is an object nesting depth levels in all: {"a":{"a":...1}}.
func nestedMetadata(depth int) string {
	return strings.Repeat(`{"a":`, depth-1) + `{"a":1}` + strings.Repeat("}", depth-1)
}

// flatMetadata is an object of n keys.
func flatMetadata(n int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	b.WriteByte('}')
	return b.String()
}

func TestSubmitTranscriptionBoundsMetadata(t *testing.T) {
	e := newEnv(t)
	good := wav(t, 1)
	// Keys spread over nested objects count together; colons and brackets
	// inside strings count for nothing.
	spread := `{"a":` + strings.TrimSuffix(flatMetadata(jobs.MaxMetadataKeys-2), "}") + `,"b":{}}` + `}`
	cases := []struct {
		name     string
		metadata string
		refused  string // a part of the message; "" when accepted
	}{
		{"at the depth limit", nestedMetadata(jobs.MaxMetadataDepth), ""},
		{"past the depth limit", nestedMetadata(jobs.MaxMetadataDepth + 1), fmt.Sprintf("more than %d levels", jobs.MaxMetadataDepth)},
		{"arrays nest too", `{"a":` + strings.Repeat("[", jobs.MaxMetadataDepth) + strings.Repeat("]", jobs.MaxMetadataDepth) + `}`, fmt.Sprintf("more than %d levels", jobs.MaxMetadataDepth)},
		{"the probe's deep object", nestedMetadata(10000), fmt.Sprintf("more than %d levels", jobs.MaxMetadataDepth)},
		{"at the key limit", flatMetadata(jobs.MaxMetadataKeys), ""},
		{"keys spread over nested objects", spread, ""},
		{"past the key limit", flatMetadata(jobs.MaxMetadataKeys + 1), fmt.Sprintf("more than %d keys", jobs.MaxMetadataKeys)},
		{"brackets and colons in strings", `{"s":"` + strings.Repeat(`[{\":`, 2000) + `"}`, ""},
		{"past the size limit", `{"a":"` + strings.Repeat("x", jobs.MaxMetadataBytes) + `"}`, fmt.Sprintf("larger than %d bytes", jobs.MaxMetadataBytes)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := upload("acct", good)
			r.Metadata = c.metadata
			_, err := e.svc.SubmitTranscription(context.Background(), r)
			if c.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			requireCode(t, err, callscribe.CodeInvalidMetadataJSON)
			if !strings.Contains(callscribe.ErrorMessage(err), c.refused) {
				t.Fatalf("message %q does not name the bound (%q)", callscribe.ErrorMessage(err), c.refused)
			}
		})
	}
}
