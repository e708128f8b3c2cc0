package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/adapters/diskaudio"
	"github.com/callscribe/callscribe/shared/adapters/sqlite"
	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/insights"
	"github.com/callscribe/callscribe/shared/service/callback"
	"github.com/callscribe/callscribe/shared/service/jobs"
	"github.com/callscribe/callscribe/shared/testkit/testengine"
)

type env struct {
	db    *sqlite.DB
	path  string
	audio *diskaudio.Store
	queue *captureQueue
	w     *Worker
}

// captureQueue records messages instead of delivering them, so a test can step
// the pipeline one message at a time.
type captureQueue struct {
	mu   sync.Mutex
	msgs []callscribe.Message
}

func (q *captureQueue) Enqueue(_ context.Context, m callscribe.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgs = append(q.msgs, m)
	return nil
}

func (q *captureQueue) take() []callscribe.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.msgs
	q.msgs = nil
	return out
}

func newEnv(t testing.TB, engine callscribe.Transcriber) *env {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "db.sqlite")
	db, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	audio, _ := diskaudio.New(filepath.Join(dir, "audio"))
	q := &captureQueue{}
	w := &Worker{
		Jobs:  jobs.New(jobs.Deps{Jobs: db.Jobs(), Accounts: db.Accounts(), Audio: audio, Queue: q}, jobs.Config{QuotaMinutes: 60}),
		Audio: audio, Queue: q, Transcriber: engine,
		Summarizer: insights.NewSummarizer(), Tagger: insights.NewTagger(),
		Notifier:            callback.NewNotifier(callback.NotifierConfig{AllowHosts: []string{"127.0.0.1"}, Timeout: 2 * time.Second}),
		CallbackBackoffBase: 20 * time.Millisecond,
	}
	return &env{db: db, path: path, audio: audio, queue: q, w: w}
}

func tone(seconds float64) []byte {
	samples := make([]int16, int(seconds*8000))
	for i := range samples {
		samples[i] = int16((i%40)*500 - 10000)
	}
	return decode.EncodeWAV(8000, samples)
}

const month = "2026-11"

func (e *env) transcription(t *testing.T, id string, seconds float64, language string) *callscribe.Job {
	t.Helper()
	ctx := context.Background()
	audio := tone(seconds)
	job := &callscribe.Job{
		ID: id, AccountID: "acct", Type: callscribe.TypeTranscription, Status: callscribe.StatusQueued,
		AudioKey: "audio/acct/" + id + ".wav", AudioFormat: callscribe.FormatWAV, AudioSeconds: seconds,
		Language: language, QuotaMonth: month, CreatedAt: time.Now(), UpdatedAt: time.Now(),
	}
	if err := e.audio.PutAudio(ctx, job.AudioKey, bytes.NewReader(audio), int64(len(audio))); err != nil {
		t.Fatal(err)
	}
	if err := e.db.Jobs().CreateJob(ctx, job, &callscribe.QuotaReservation{Month: month, LimitSeconds: 3600}); err != nil {
		t.Fatal(err)
	}
	return job
}

func (e *env) get(t *testing.T, id string) *callscribe.Job {
	t.Helper()
	j, err := e.db.Jobs().GetJob(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestTranscriptionSucceeds(t *testing.T) {
	e := newEnv(t, &testengine.Engine{})
	e.transcription(t, "job-1", 2, "en-US")
	if err := e.w.HandleMessage(context.Background(), callscribe.Message{Kind: callscribe.KindTranscribe, JobID: "job-1"}); err != nil {
		t.Fatal(err)
	}
	j := e.get(t, "job-1")
	if j.Status != callscribe.StatusSucceeded || j.Attempts != 1 {
		t.Fatalf("status %s attempts %d", j.Status, j.Attempts)
	}
	var res callscribe.TranscriptionResult
	if err := json.Unmarshal(j.Result, &res); err != nil || len(res.Transcript) != 1 || res.DurationSeconds != 2 {
		t.Fatalf("result %s (%v)", j.Result, err)
	}
	// The test engine's mono line (10 words over the whole 2 s) gives the
	// stored result its metrics.
	if m := res.Metrics; m == nil || len(m.Speakers) != 1 || m.Speakers[0].TalkSeconds != 2 || m.Speakers[0].WordsPerMinute != 300 ||
		m.NonTalkSeconds != 0 || m.AgentMedianResponseSeconds != nil {
		t.Fatalf("metrics of %s", j.Result)
	}
	// A duplicate delivery of a finished job changes nothing.
	if err := e.w.HandleMessage(context.Background(), callscribe.Message{Kind: callscribe.KindTranscribe, JobID: "job-1"}); err != nil {
		t.Fatal(err)
	}
	if again := e.get(t, "job-1"); again.Attempts != 1 || !again.UpdatedAt.Equal(j.UpdatedAt) {
		t.Fatalf("duplicate delivery re-ran the job: attempts %d", again.Attempts)
	}
}

func TestJobErrorFailsTheJobAndReleasesItsMinutes(t *testing.T) {
	e := newEnv(t, &testengine.Engine{})
	e.transcription(t, "job-de", 60, "de")
	if used, _ := e.db.Jobs().UsedSeconds(context.Background(), "acct", month); used != 60 {
		t.Fatalf("used %v before the run", used)
	}
	if err := e.w.HandleMessage(context.Background(), callscribe.Message{Kind: callscribe.KindTranscribe, JobID: "job-de"}); err != nil {
		t.Fatal(err)
	}
	j := e.get(t, "job-de")
	if j.Status != callscribe.StatusFailed || j.Error.Code != callscribe.JobErrUnsupportedLanguage {
		t.Fatalf("status %s error %+v", j.Status, j.Error)
	}
	if used, _ := e.db.Jobs().UsedSeconds(context.Background(), "acct", month); used != 0 {
		t.Fatalf("failed job still holds %v seconds", used)
	}
}

// flakyEngine fails transiently, as an unreachable provider would.
type flakyEngine struct{ calls atomic.Int32 }

func (f *flakyEngine) Transcribe(context.Context, callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	f.calls.Add(1)
	return nil, errors.New("connection reset")
}

func TestTransientErrorsRetryThenFailTheJob(t *testing.T) {
	engine := &flakyEngine{}
	e := newEnv(t, engine)
	e.transcription(t, "job-flaky", 5, "")
	m := callscribe.Message{Kind: callscribe.KindTranscribe, JobID: "job-flaky"}
	for i := 1; i <= callscribe.MaxJobAttempts; i++ {
		if err := e.w.HandleMessage(context.Background(), m); err == nil {
			t.Fatalf("attempt %d: transient error acknowledged", i)
		}
		if st := e.get(t, "job-flaky").Status; st != callscribe.StatusProcessing {
			t.Fatalf("attempt %d: status %s, want processing", i, st)
		}
	}
	if err := e.w.HandleMessage(context.Background(), m); err != nil {
		t.Fatalf("the attempt past the limit should settle the job: %v", err)
	}
	j := e.get(t, "job-flaky")
	if j.Status != callscribe.StatusFailed || j.Error.Code != callscribe.JobErrInternal {
		t.Fatalf("status %s error %+v", j.Status, j.Error)
	}
	if int(engine.calls.Load()) != callscribe.MaxJobAttempts {
		t.Fatalf("engine called %d times, want %d", engine.calls.Load(), callscribe.MaxJobAttempts)
	}
}

// deletingEngine deletes the job while "recognising", as a DELETE racing a worker would.
type deletingEngine struct{ jobs callscribe.JobStore }

func (d deletingEngine) Transcribe(ctx context.Context, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	if err := d.jobs.DeleteJob(ctx, req.JobID, time.Now()); err != nil {
		return nil, err
	}
	return (&testengine.Engine{}).Transcribe(ctx, req)
}

func TestWorkerDoesNotResurrectADeletedJob(t *testing.T) {
	e := newEnv(t, nil)
	e.w.Transcriber = deletingEngine{jobs: e.db.Jobs()}
	e.transcription(t, "job-del", 3, "")
	if err := e.w.HandleMessage(context.Background(), callscribe.Message{Kind: callscribe.KindTranscribe, JobID: "job-del"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Jobs().GetJob(context.Background(), "job-del"); !callscribe.IsCode(err, callscribe.CodeJobNotFound) {
		t.Fatalf("deleted job came back: %v", err)
	}
}

// receiver is a real HTTP callback endpoint on 127.0.0.1.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []callscribe.TagDeliveredPayload
	times  []time.Time
	keys   []string
}

func newReceiver(t *testing.T, status func(n int) int) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var p callscribe.TagDeliveredPayload
		json.Unmarshal(body, &p)
		r.mu.Lock()
		r.bodies = append(r.bodies, p)
		r.times = append(r.times, time.Now())
		r.keys = append(r.keys, req.Header.Get("apikey"))
		n := len(r.bodies)
		r.mu.Unlock()
		w.WriteHeader(status(n))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.bodies)
}

func (e *env) tagsJob(t *testing.T, id, url string) {
	t.Helper()
	job := &callscribe.Job{
		ID: id, AccountID: "acct", Type: callscribe.TypeTags, Status: callscribe.StatusQueued,
		Input:     &callscribe.Transcript{Text: "Agent: thanks for calling\nUser: I was double charged on my bill and I am really upset\nAgent: I am sorry, I have refunded the charge\nUser: great, thank you"},
		Callback:  &callscribe.Callback{URL: url, APIKey: "gw-key", CallUUID: "call-42"},
		CreatedAt: time.Now(), UpdatedAt: time.Now(),
	}
	if err := e.db.Jobs().CreateJob(context.Background(), job, nil); err != nil {
		t.Fatal(err)
	}
}

// step delivers captured messages (ignoring their delays) until none are left.
func (e *env) drain(t *testing.T) {
	for range 10 {
		msgs := e.queue.take()
		if len(msgs) == 0 {
			return
		}
		for _, m := range msgs {
			if err := e.w.HandleMessage(context.Background(), m); err != nil {
				t.Fatalf("message %+v: %v", m, err)
			}
		}
	}
	t.Fatal("pipeline did not settle")
}

func TestTagsCallbackRetriesUntilAccepted(t *testing.T) {
	e := newEnv(t, nil)
	rcv := newReceiver(t, func(n int) int {
		if n < 3 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	e.tagsJob(t, "tags-1", rcv.srv.URL+"/hook")
	e.queue.Enqueue(context.Background(), callscribe.Message{Kind: callscribe.KindDerive, JobID: "tags-1"})
	e.drain(t)
	if rcv.count() != 3 {
		t.Fatalf("receiver saw %d attempts, want 3", rcv.count())
	}
	first := rcv.bodies[0]
	for i, b := range rcv.bodies {
		if b.Data.MsgID != first.Data.MsgID || b.Data.MsgID == "" {
			t.Fatalf("attempt %d msg_id %q differs from %q", i+1, b.Data.MsgID, first.Data.MsgID)
		}
		if rcv.keys[i] != "gw-key" {
			t.Fatalf("attempt %d apikey header %q", i+1, rcv.keys[i])
		}
	}
	if first.Status != "succeeded" || first.CallUUID != "call-42" || first.Data.RequestID != "tags-1" || len(first.Data.Tags) != 1 {
		t.Fatalf("payload %+v", first)
	}
	tags := first.Data.Tags[0]
	if len(tags.CustomerSentiment) != 1 || len(tags.CallOutcome) != 1 || len(tags.AgentApproach) == 0 {
		t.Fatalf("tags %+v", tags)
	}
}

func TestTagsCallbackAbandonedAfterThreeAttempts(t *testing.T) {
	e := newEnv(t, nil)
	rcv := newReceiver(t, func(int) int { return http.StatusBadGateway })
	e.tagsJob(t, "tags-2", rcv.srv.URL)
	e.queue.Enqueue(context.Background(), callscribe.Message{Kind: callscribe.KindDerive, JobID: "tags-2"})
	e.drain(t)
	if rcv.count() != callscribe.CallbackMaxAttempts {
		t.Fatalf("receiver saw %d attempts, want %d", rcv.count(), callscribe.CallbackMaxAttempts)
	}
}

// TestCallbackRetriesSurviveARestart runs the real durable queue: the first
// attempt fails, the process "dies" (consumer stopped, database closed) before
// the retry, and a new process picks the retry up.
func TestCallbackRetriesSurviveARestart(t *testing.T) {
	e := newEnv(t, nil)
	rcv := newReceiver(t, func(n int) int {
		if n == 1 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	e.tagsJob(t, "tags-3", rcv.srv.URL)
	e.w.CallbackBackoffBase = 400 * time.Millisecond // long enough to stop between attempts

	run := func(db *sqlite.DB, until func() bool) {
		w := *e.w
		w.Jobs = jobs.New(jobs.Deps{Jobs: db.Jobs(), Accounts: db.Accounts(), Audio: e.audio, Queue: db.Queue()}, jobs.Config{QuotaMinutes: 60})
		w.Queue = db.Queue()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			db.Queue().Consume(ctx, 1, &w, sqlite.ConsumeOptions{PollInterval: 20 * time.Millisecond})
		}()
		deadline := time.Now().Add(10 * time.Second)
		for !until() && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		<-done
	}
	if err := e.db.Queue().Enqueue(context.Background(), callscribe.Message{Kind: callscribe.KindDerive, JobID: "tags-3"}); err != nil {
		t.Fatal(err)
	}
	run(e.db, func() bool { return rcv.count() >= 1 })
	if rcv.count() != 1 {
		t.Fatalf("first run made %d attempts, want exactly 1 before the restart", rcv.count())
	}
	e.db.Close()

	db, err := sqlite.Open(e.path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Queue().RecoverInFlight(context.Background()); err != nil {
		t.Fatal(err)
	}
	run(db, func() bool { return rcv.count() >= 2 })
	if rcv.count() != 2 {
		t.Fatalf("after restart the receiver saw %d attempts in all, want 2", rcv.count())
	}
	if rcv.bodies[0].Data.MsgID != rcv.bodies[1].Data.MsgID {
		t.Fatal("msg_id changed across the restart")
	}
	if gap := rcv.times[1].Sub(rcv.times[0]); gap < 100*time.Millisecond {
		t.Fatalf("retry came %v after the failure; backoff not honoured", gap)
	}
}

// slowProvider reports running work twice, then a result, as Amazon Transcribe would.
type slowProvider struct{ checks atomic.Int32 }

func (s *slowProvider) Transcribe(ctx context.Context, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	if s.checks.Add(1) <= 2 {
		return nil, &callscribe.Pending{CheckAfter: 30 * time.Second}
	}
	return (&testengine.Engine{}).Transcribe(ctx, req)
}

func TestPendingProviderIsRecheckedByDelayedMessagesWithoutUsingAttempts(t *testing.T) {
	e := newEnv(t, &slowProvider{})
	e.transcription(t, "job-async", 4, "")
	m := callscribe.Message{Kind: callscribe.KindTranscribe, JobID: "job-async"}
	for i := 1; i <= 2; i++ {
		if err := e.w.HandleMessage(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		msgs := e.queue.take()
		if len(msgs) != 1 || msgs[0].Recheck != i || msgs[0].Delay != 30*time.Second {
			t.Fatalf("check %d queued %+v", i, msgs)
		}
		m = msgs[0]
	}
	if err := e.w.HandleMessage(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	j := e.get(t, "job-async")
	if j.Status != callscribe.StatusSucceeded || j.Attempts != 1 {
		t.Fatalf("status %s attempts %d, want succeeded after one attempt", j.Status, j.Attempts)
	}
}

// countingNotifier counts delivery attempts.
type countingNotifier struct {
	inner callscribe.Notifier
	mu    sync.Mutex
	n     int
}

func (c *countingNotifier) Deliver(ctx context.Context, d callscribe.CallbackDelivery) error {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.inner.Deliver(ctx, d)
}

// A callback address refused at dial time (here a private address) is not
// retried: the refusal would only repeat.
func TestTagsCallbackToARefusedAddressIsAbandonedAtOnce(t *testing.T) {
	e := newEnv(t, nil)
	counter := &countingNotifier{inner: e.w.Notifier}
	e.w.Notifier = counter
	e.tagsJob(t, "tags-refused", "https://10.255.255.1/hook")
	e.queue.Enqueue(context.Background(), callscribe.Message{Kind: callscribe.KindDerive, JobID: "tags-refused"})
	e.drain(t)
	if counter.n != 1 {
		t.Fatalf("%d delivery attempts to a refused address, want 1", counter.n)
	}
}

// A redelivered derive message queues the callback again, but as the same
// message: the msg_id is the job's, not a new one.
func TestRedeliveredDeriveSendsTheSameMsgID(t *testing.T) {
	e := newEnv(t, nil)
	rcv := newReceiver(t, func(int) int { return http.StatusNoContent })
	e.tagsJob(t, "tags-redelivered", rcv.srv.URL)
	for range 2 {
		e.queue.Enqueue(context.Background(), callscribe.Message{Kind: callscribe.KindDerive, JobID: "tags-redelivered"})
		e.drain(t)
	}
	if rcv.count() != 2 || rcv.bodies[0].Data.MsgID != rcv.bodies[1].Data.MsgID || rcv.bodies[0].Data.MsgID == "" {
		t.Fatalf("got %d callbacks, msg_ids %v", rcv.count(), rcv.bodies)
	}
}

// A transcription uploaded without a language hint is listed with the language
// the engine detected (the spec's "requested or detected language").
func TestTranscriptionRecordsTheDetectedLanguage(t *testing.T) {
	e := newEnv(t, &testengine.Engine{})
	e.transcription(t, "job-nolang", 2, "")
	if err := e.w.HandleMessage(context.Background(), callscribe.Message{Kind: callscribe.KindTranscribe, JobID: "job-nolang"}); err != nil {
		t.Fatal(err)
	}
	j := e.get(t, "job-nolang")
	var res callscribe.TranscriptionResult
	if err := json.Unmarshal(j.Result, &res); err != nil || res.Language == nil || *res.Language == "" {
		t.Fatalf("result %s (%v): the test engine should report a language", j.Result, err)
	}
	if j.Language != *res.Language {
		t.Fatalf("job language %q, detected %q", j.Language, *res.Language)
	}
}

// fixedTranscriber returns the same segments for any audio.
type fixedTranscriber struct{ segs []callscribe.Segment }

func (f fixedTranscriber) Transcribe(context.Context, callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	return &callscribe.TranscriptionResult{DurationSeconds: 8, Transcript: f.segs}, nil
}

// wordScorer scores a segment by its words: "great" +0.9, "awful" -0.9.
type wordScorer struct{}

func (wordScorer) ScoreSentiment(text string) *callscribe.SegmentSentiment {
	switch text {
	case "":
		return nil
	case "this is awful":
		return &callscribe.SegmentSentiment{Label: callscribe.SentimentNegative, Score: -0.9}
	case "great thank you":
		return &callscribe.SegmentSentiment{Label: callscribe.SentimentPositive, Score: 0.9}
	}
	return &callscribe.SegmentSentiment{Label: callscribe.SentimentNeutral, Score: 0}
}

func TestTranscriptionCarriesSentiment(t *testing.T) {
	segs := []callscribe.Segment{
		{Text: "how can i help", TimeStart: 0, TimeEnd: 2, SpeakerID: 0, SpeakerAlias: callscribe.AliasAgent},
		{Text: "this is awful", TimeStart: 2, TimeEnd: 4, SpeakerID: 1, SpeakerAlias: callscribe.AliasUser},
		{Text: "", TimeStart: 4, TimeEnd: 5, SpeakerID: 0, SpeakerAlias: callscribe.AliasAgent},
		{Text: "great thank you", TimeStart: 6, TimeEnd: 8, SpeakerID: 1, SpeakerAlias: callscribe.AliasUser},
	}
	e := newEnv(t, fixedTranscriber{segs})
	e.w.Sentiment = wordScorer{}
	e.transcription(t, "job-s", 8, "en-US")
	if err := e.w.HandleMessage(context.Background(), callscribe.Message{Kind: callscribe.KindTranscribe, JobID: "job-s"}); err != nil {
		t.Fatal(err)
	}
	var res callscribe.TranscriptionResult
	if err := json.Unmarshal(e.get(t, "job-s").Result, &res); err != nil {
		t.Fatal(err)
	}
	want := []string{callscribe.SentimentNeutral, callscribe.SentimentNegative, "", callscribe.SentimentPositive}
	for i, s := range res.Transcript {
		got := ""
		if s.Sentiment != nil {
			got = s.Sentiment.Label
		}
		if got != want[i] {
			t.Errorf("segment %d sentiment %q, want %q", i, got, want[i])
		}
	}
	cs := res.Sentiment
	if cs == nil || len(cs.Speakers) != 2 {
		t.Fatalf("sentiment %+v", cs)
	}
	user := cs.Speakers[1]
	// An awful turn early and a warm one at the end, both strong and neither
	// far outweighing the other once the ending is weighted: mixed, and
	// getting better.
	if user.SpeakerAlias != callscribe.AliasUser || user.Trend != callscribe.TrendImproving || len(user.Quarters) != 4 ||
		user.Quarters[2].Score != nil || user.Quarters[1].Label == nil || *user.Quarters[1].Label != callscribe.SentimentNegative {
		t.Fatalf("user sentiment %+v", user)
	}
	if user.Label != callscribe.SentimentMixed {
		t.Fatalf("user label %q", user.Label)
	}
}

func TestTranscriptionWithoutScorerHasNoSentiment(t *testing.T) {
	e := newEnv(t, &testengine.Engine{})
	e.transcription(t, "job-n", 2, "en-US")
	if err := e.w.HandleMessage(context.Background(), callscribe.Message{Kind: callscribe.KindTranscribe, JobID: "job-n"}); err != nil {
		t.Fatal(err)
	}
	var res callscribe.TranscriptionResult
	if err := json.Unmarshal(e.get(t, "job-n").Result, &res); err != nil || res.Sentiment != nil || res.Transcript[0].Sentiment != nil {
		t.Fatalf("result %+v (%v)", res, err)
	}
}
