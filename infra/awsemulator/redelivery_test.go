package main

// The SQS side of the AWS stack under failure, in process: the emulator's
// local AWS servers and worker pollers, with queues whose visibility timeout
// is short, and a hook between the poller and the worker functions that can
// stop an invocation midway (a Lambda killed mid-job) and counts deliveries.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/callscribe/callscribe/shared/adapters/sqs"
	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/service/jobs"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/testkit/awstest"
	"github.com/callscribe/callscribe/shared/testkit/testengine"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
)

// Language hints the test uses to pick a job's fate: failingLanguage makes
// flakyEngine fail with a retryable error, every time; killLanguage makes the
// hook stop the job's first delivery.
const (
	failingLanguage = "zz"
	killLanguage    = "en-kill"
	panicLanguage   = "en-panic"
)

// flakyEngine is the deterministic test engine, slowed down, except that a
// job hinted failingLanguage always fails with a retryable error (an engine
// that breaks on one job).
type flakyEngine struct{ testengine.Engine }

func (e *flakyEngine) Transcribe(ctx context.Context, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	if req.Language == failingLanguage {
		return nil, errors.New("engine unavailable")
	}
	req.Language = ""
	return e.Engine.Transcribe(ctx, req)
}

// deliveryHook stands between the transcription function's poller and the
// function: it counts deliveries by job (or by body, for one that does not
// decode) and stops the first delivery of a job hinted killLanguage once it
// is processing, or panics in the first delivery of one hinted panicLanguage
// (inside the function, as the emulator's invokeWorker sees it).
type deliveryHook struct {
	backend *awsstack.AWS
	mu      sync.Mutex
	counts  map[string]int
}

var errKilled = errors.New("the function was killed mid-job")

func (h *deliveryHook) wrap(f inventory.Function, invoke workerInvoke) workerInvoke {
	if f.Queue != inventory.QueueTranscription {
		return invoke
	}
	return func(ctx context.Context, m types.Message) error {
		key := aws.ToString(m.Body)
		if msg, err := sqs.DecodeMessage(key); err == nil {
			key = msg.JobID
		}
		h.mu.Lock()
		h.counts[key]++
		first := h.counts[key] == 1
		h.mu.Unlock()
		job, err := h.backend.Jobs.GetJob(ctx, key)
		if first && err == nil && job.Language == panicLanguage {
			return invoke(&panickingContext{ctx}, m)
		}
		if !first || err != nil || job.Language != killLanguage {
			return invoke(ctx, m)
		}
		// Cut the invocation off once the job is processing, as a Lambda
		// timeout or crash does, and report nothing: the message stays
		// invisible until its visibility timeout, then SQS redelivers it.
		ctx, cancel := context.WithCancel(ctx)
		go func() {
			defer cancel()
			for ctx.Err() == nil {
				if job, err := h.backend.Jobs.GetJob(context.Background(), key); err == nil && job.Status == callscribe.StatusProcessing {
					time.Sleep(100 * time.Millisecond) // into the engine's work
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		_ = invoke(ctx, m)
		return errKilled
	}
}

// panickingContext makes the function panic the first time it reads a value
// from its context (the Lambda handler and the stores do, early on).
type panickingContext struct{ context.Context }

func (c *panickingContext) Value(key any) any { panic("worker function crashed") }

func (h *deliveryHook) deliveries(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.counts[key]
}

func TestWorkerRedeliveryAndDeadLetters(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the local AWS servers")
	}
	// Beside the black-box tests, which start services of their own: its
	// settings go into the configuration read from the environment, not into
	// the environment those services inherit.
	t.Parallel()
	shared := localServers(t)
	servers := awstest.StartT(t, awstest.Options{S3: true, DynamoDBAt: shared.DynamoDBEndpoint, SQSAt: shared.SQSEndpoint})
	cfg, err := config.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Transcriber = "flaky"
	cfg.QuotaMinutes = 100
	cfg.SessionSecret = "redelivery-test-secret-0123456789abcdef"
	cfg.Workers = 4 // a worker for each subtest's job: none waits for another's
	const visibility = 2 * time.Second
	ctx := context.Background()
	if err := provision(ctx, servers, testResourcePrefix(), &cfg, sqs.QueueOptions{VisibilityTimeout: visibility}); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	backend, err := awsstack.Open(ctx, cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	table := providers()
	table.Transcribers = map[string]engines.Factory[*awsstack.AWS, callscribe.Transcriber]{
		"flaky": func(*awsstack.AWS) (callscribe.Transcriber, func(), error) {
			// Slow enough for the kill hook to stop a job mid-work (it
			// waits 100 ms into processing), and far enough inside the
			// visibility timeout that a redelivered job finishes before SQS
			// would rightly hand its message out a third time: 1.5 s of
			// 2 s sometimes took longer on a loaded machine.
			return &flakyEngine{testengine.Engine{Delay: 400 * time.Millisecond}}, nil, nil
		},
	}
	hook := &deliveryHook{backend: backend, counts: map[string]int{}}
	// Each subtest signs up its own account, so its quota is its own.
	signup := func(t *testing.T, email string) string {
		t.Helper()
		acct, err := backend.Service.Signup(ctx, email, "long-enough-password")
		if err != nil {
			t.Fatal(err)
		}
		return acct.ID
	}
	workCtx, stopWork := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if err := startWorkers(workCtx, &wg, backend, servers, cfg, logger, table, hook.wrap); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopWork(); wg.Wait() })

	samples := make([]int16, 8000)
	for i := range samples {
		samples[i] = int16((i % 40) * 300)
	}
	audio := decode.EncodeWAV(8000, samples) // one second
	submit := func(t *testing.T, acct, language string) *callscribe.Job {
		t.Helper()
		job, err := backend.Service.SubmitTranscription(ctx, jobs.TranscriptionRequest{
			AccountID: acct, Audio: bytes.NewReader(audio), AudioSize: int64(len(audio)), Filename: "call.wav", Language: language,
		})
		if err != nil {
			t.Fatal(err)
		}
		return job
	}
	waitTerminal := func(t *testing.T, acct, id string, within time.Duration) *callscribe.Job {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			job, err := backend.Service.Get(ctx, acct, id)
			if err != nil {
				t.Fatal(err)
			}
			if job.Status == callscribe.StatusSucceeded || job.Status == callscribe.StatusFailed {
				return job
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s still %s after %v (%d deliveries)", id, job.Status, within, hook.deliveries(id))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	client := awssqs.NewFromConfig(servers.SQSConfig())
	queueURL, dlqURL := cfg.TranscriptionQueueURL, cfg.TranscriptionQueueURL+sqs.DLQSuffix
	usedSeconds := func(t *testing.T, acct string) float64 {
		t.Helper()
		u, err := backend.Service.Usage(ctx, acct)
		if err != nil {
			t.Fatal(err)
		}
		return u.UsedSeconds
	}

	// A worker killed mid-job: SQS redelivers the message after the
	// visibility timeout and the job ends once, succeeded, metered once.
	// The subtests run in parallel, each with its own account and job (the
	// hook counts deliveries by job), so their waits on the visibility
	// timeout overlap.
	t.Run("KilledMidJobIsRedelivered", func(t *testing.T) {
		t.Parallel()
		acct := signup(t, "killed@example.com")
		before := usedSeconds(t, acct)
		start := time.Now()
		job := submit(t, acct, killLanguage)
		done := waitTerminal(t, acct, job.ID, 30*time.Second)
		if done.Status != callscribe.StatusSucceeded {
			t.Fatalf("job %s, error %+v; want succeeded after the redelivery", done.Status, done.Error)
		}
		if n := hook.deliveries(job.ID); n != 2 {
			t.Errorf("%d deliveries, want 2 (the killed one and the redelivery)", n)
		}
		if took := time.Since(start); took < visibility {
			t.Errorf("the job finished %v after submission, before the %v visibility timeout let the message back", took, visibility)
		}
		if used := usedSeconds(t, acct) - before; used != job.AudioSeconds {
			t.Errorf("the job used %v seconds of quota, want %v once", used, job.AudioSeconds)
		}
		// Nothing stays queued, and the message is not dead-lettered.
		time.Sleep(visibility + 500*time.Millisecond)
		if n := hook.deliveries(job.ID); n != 2 {
			t.Errorf("%d deliveries after the job ended, want 2", n)
		}
		requireNoMessage(t, client, dlqURL)
	})

	// A function that panics mid-invocation fails that invocation only: the
	// message comes back after the visibility timeout and the job succeeds.
	t.Run("PanickingInvocationIsRedelivered", func(t *testing.T) {
		t.Parallel()
		acct := signup(t, "panicked@example.com")
		job := submit(t, acct, panicLanguage)
		done := waitTerminal(t, acct, job.ID, 30*time.Second)
		if done.Status != callscribe.StatusSucceeded {
			t.Fatalf("job %s, error %+v; want succeeded after the redelivery", done.Status, done.Error)
		}
		if n := hook.deliveries(job.ID); n != 2 {
			t.Errorf("%d deliveries, want 2 (the panicking one and the redelivery)", n)
		}
	})

	// A body no worker can decode is received QueueMaxReceives times, then
	// SQS moves it to the dead-letter queue.
	t.Run("UndecodableMessageEndsInDLQ", func(t *testing.T) {
		t.Parallel()
		const body = `{"kind":"transcribe","jobId":` // cut short
		if _, err := client.SendMessage(ctx, &awssqs.SendMessageInput{QueueUrl: aws.String(queueURL), MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
		dead := receiveWithin(t, client, dlqURL, time.Duration(callscribe.QueueMaxReceives+3)*(visibility+time.Second))
		if dead != body {
			t.Fatalf("dead-letter queue holds %q, want the undecodable body", dead)
		}
		if n := hook.deliveries(body); n != callscribe.QueueMaxReceives {
			t.Errorf("%d deliveries before the DLQ, want QueueMaxReceives = %d", n, callscribe.QueueMaxReceives)
		}
	})

	// A job whose engine always errors is not left processing: it fails with
	// a reason within QueueMaxReceives deliveries, releasing its minutes.
	// (MaxJobAttempts < QueueMaxReceives: the delivery after the last attempt
	// fails the job and is acknowledged, so the message does not reach the DLQ.)
	t.Run("AlwaysFailingJobEndsFailed", func(t *testing.T) {
		t.Parallel()
		acct := signup(t, "failing@example.com")
		before := usedSeconds(t, acct)
		job := submit(t, acct, failingLanguage)
		done := waitTerminal(t, acct, job.ID, time.Duration(callscribe.QueueMaxReceives+2)*(visibility+2*time.Second))
		if done.Status != callscribe.StatusFailed || done.Error == nil {
			t.Fatalf("job %s, error %+v; want failed with a reason", done.Status, done.Error)
		}
		n := hook.deliveries(job.ID)
		if n < callscribe.MaxJobAttempts || n > callscribe.QueueMaxReceives {
			t.Errorf("%d deliveries, want between MaxJobAttempts (%d) and QueueMaxReceives (%d)", n, callscribe.MaxJobAttempts, callscribe.QueueMaxReceives)
		}
		if used := usedSeconds(t, acct) - before; used != 0 {
			t.Errorf("a failed job holds %v seconds of quota", used)
		}
		// Acknowledged once failed: no further deliveries.
		time.Sleep(visibility + time.Second)
		if again := hook.deliveries(job.ID); again != n {
			t.Errorf("delivered %d times after failing", again-n)
		}
		t.Logf("failed after %d deliveries: %+v", n, done.Error)
	})
}

// receiveWithin waits up to within for a message on queue and returns its body.
func receiveWithin(t *testing.T, client *awssqs.Client, queue string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		out, err := client.ReceiveMessage(context.Background(), &awssqs.ReceiveMessageInput{QueueUrl: aws.String(queue), MaxNumberOfMessages: 1, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) > 0 {
			return aws.ToString(out.Messages[0].Body)
		}
	}
	t.Fatalf("no message on %s within %v", queue, within)
	return ""
}

func requireNoMessage(t *testing.T, client *awssqs.Client, queue string) {
	t.Helper()
	out, err := client.ReceiveMessage(context.Background(), &awssqs.ReceiveMessageInput{QueueUrl: aws.String(queue), MaxNumberOfMessages: 1, WaitTimeSeconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) > 0 {
		t.Fatalf("%s holds %q, want nothing", queue, aws.ToString(out.Messages[0].Body))
	}
}
