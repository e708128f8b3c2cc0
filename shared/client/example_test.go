package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/callscribe/callscribe/shared/client"
)

// The examples run against the local stack the tests start: its address and an
// API key are in CALLSCRIBE_BASE_URL and CALLSCRIBE_API_KEY, and call.wav (a
// 4-second stereo call) is in the working directory.

// Transcribe a call and print it, one line per turn.
func Example() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("CALLSCRIBE_BASE_URL"), client.WithAPIKey(os.Getenv("CALLSCRIBE_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	job, err := c.Transcribe(ctx, "call.wav", client.TranscribeOptions{
		TranscriptionOptions: client.TranscriptionOptions{Language: "en"},
	})
	if err != nil {
		log.Fatal(err) // an *client.Error, a *client.JobFailedError, client.ErrWaitExhausted...
	}
	tr, err := job.Transcription()
	if err != nil {
		log.Fatal(err)
	}
	for _, seg := range tr.Transcript {
		m, s := int(seg.TimeStart)/60, seg.TimeStart-float64(int(seg.TimeStart)/60*60)
		fmt.Printf("[%02d:%04.1f] %s: %s\n", m, s, seg.SpeakerAlias, seg.Text)
	}
	// Output:
	// [00:00.0] Agent: thank you for calling how can i help you today
	// [00:02.0] User: i was charged twice on my bill and i want a refund
}

func exampleClient() *client.Client {
	c, err := client.New(os.Getenv("CALLSCRIBE_BASE_URL"), client.WithAPIKey(os.Getenv("CALLSCRIBE_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// Create a job, then poll it with a progress callback.
func ExampleClient_WaitForJob() {
	ctx := context.Background()
	c := exampleClient()
	created, err := c.CreateTranscriptionFromFile(ctx, "call.wav", client.TranscriptionOptions{
		Metadata: []byte(`{"agent":"A-7"}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	job, err := c.WaitForJob(ctx, created.ID, client.WaitOptions{
		Interval: 100 * time.Millisecond, // the default is the spec's 2 s
		OnPoll:   func(j *client.Job) { /* show j.Status */ },
	})
	var failed *client.JobFailedError
	switch {
	case errors.As(err, &failed):
		fmt.Println("failed:", failed.Err.Code, failed.Err.Message)
	case errors.Is(err, client.ErrWaitExhausted):
		fmt.Println("still running; poll again later")
	case err != nil:
		log.Fatal(err)
	default:
		tr, _ := job.Transcription()
		fmt.Println(job.Status, tr.DurationSeconds, "seconds", string(job.Metadata))
	}
	// Output:
	// succeeded 4 seconds {"agent":"A-7"}
}

// A job that fails is an error of its own type, with the job's error code.
func ExampleJobFailedError() {
	ctx := context.Background()
	c := exampleClient()
	// The local test engine transcribes English only.
	_, err := c.Transcribe(ctx, "call.wav", client.TranscribeOptions{
		TranscriptionOptions: client.TranscriptionOptions{Language: "fr"},
		WaitOptions:          client.WaitOptions{Interval: 100 * time.Millisecond},
	})
	var failed *client.JobFailedError
	if errors.As(err, &failed) {
		fmt.Println(failed.Job.Status, failed.Err.Code)
	}
	// Output:
	// failed unsupported_language
}

// Every error the service answers is an *Error with its status, code,
// message and requestId.
func ExampleError() {
	ctx := context.Background()
	c := exampleClient()
	_, err := c.GetJob(ctx, "6f1c8e2a-0000-4000-8000-000000000000")
	if e, ok := client.AsError(err); ok {
		fmt.Println(e.Status, e.Code, e.RequestID != "")
	}
	fmt.Println(client.IsNotFound(err))
	// Output:
	// 404 JOB_NOT_FOUND true
	// true
}

// QUOTA_EXCEEDED carries the account's figures.
func ExampleError_Quota() {
	ctx := context.Background()
	c := exampleClient()
	_, err := c.CreateTranscriptionFromFile(ctx, "long-call.wav", client.TranscriptionOptions{})
	if e, ok := client.AsError(err); ok && client.IsQuotaExceeded(err) {
		q, _ := e.Quota()
		fmt.Printf("%.2f of %.2f minutes used; this file needs %.2f\n", q.UsedMinutes, q.LimitMinutes, q.FileMinutes)
	}
}

// List every summary job, page after page: the iterator sends the same
// filters with every page, as the spec requires.
func ExampleClient_AllJobs() {
	ctx := context.Background()
	c := exampleClient()
	created, err := c.Summarize(ctx, client.SummarizeRequest{TranscriptText: "Agent: Hello. User: My router keeps dropping the connection."})
	if err != nil {
		log.Fatal(err)
	}
	for j, err := range c.AllJobs(ctx, client.ListOptions{Type: client.TypeSummary, JobID: created.ID, Limit: 50}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(j.Type, j.AudioSeconds, j.OriginalFilename == nil)
	}
	// Output:
	// summary 0 true
}

// Tag a transcription; the result maps each category to its values.
func ExampleClient_Tag() {
	ctx := context.Background()
	c := exampleClient()
	job, err := c.Transcribe(ctx, "call.wav", client.TranscribeOptions{WaitOptions: client.WaitOptions{Interval: 100 * time.Millisecond}})
	if err != nil {
		log.Fatal(err)
	}
	created, err := c.Tag(ctx, client.TagRequest{
		TranscriptionJobID: job.ID,
		// Optional: where the result is POSTed when ready.
		// CallbackURL: "https://example.com/hooks/tags", CallbackAPIKey: "...", CallUUID: "call-123",
	})
	if err != nil {
		log.Fatal(err)
	}
	tagsJob, err := c.WaitForJob(ctx, created.ID, client.WaitOptions{Interval: 100 * time.Millisecond})
	if err != nil {
		log.Fatal(err)
	}
	tags, err := tagsJob.Tags()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tagsJob.SourceJobID == job.ID, tags.Tags["call_reason"], tags.Tags["customer_sentiment"])
	// Output:
	// true [billing] [neutral]
}

// Export a finished transcription as subtitles.
func ExampleClient_Export() {
	ctx := context.Background()
	c := exampleClient()
	job, err := c.Transcribe(ctx, "call.wav", client.TranscribeOptions{WaitOptions: client.WaitOptions{Interval: 100 * time.Millisecond}})
	if err != nil {
		log.Fatal(err)
	}
	vtt, err := c.Export(ctx, job.ID, client.ExportVTT)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(vtt))
	// Output:
	// WEBVTT
	//
	// 00:00:00.000 --> 00:00:02.000
	// <v Agent>thank you for calling how can i help you
	// today
	//
	// 00:00:02.000 --> 00:00:04.000
	// <v User>i was charged twice on my bill and i want
	// a refund
}

// The two-step upload by hand (CreateTranscriptionFromFile does it on its
// own for files over the threshold).
func ExampleClient_CreateUpload() {
	ctx := context.Background()
	c := exampleClient()
	f, err := os.Open("call.wav")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	up, err := c.CreateUpload(ctx, "call.wav", st.Size())
	if err != nil {
		log.Fatal(err)
	}
	if err := c.SendUpload(ctx, up, f); err != nil {
		log.Fatal(err)
	}
	created, err := c.CreateTranscriptionFromUpload(ctx, up.ID, client.TranscriptionOptions{})
	if err != nil {
		log.Fatal(err)
	}
	job, err := c.WaitForJob(ctx, created.ID, client.WaitOptions{Interval: 100 * time.Millisecond})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.Status)
	// Output:
	// succeeded
}

// Sign in to the dashboard, then manage API keys and read the usage with the
// session. Login works with the local identity and with Cognito on AWS.
func ExampleClient_Login() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("CALLSCRIBE_BASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	email := fmt.Sprintf("example-%d@example.com", time.Now().UnixNano())
	if err := c.Signup(ctx, email, "a-long-password"); err != nil {
		log.Fatal(err)
	}
	session, err := c.Login(ctx, email, "a-long-password")
	if err != nil {
		log.Fatal(err)
	}
	dash := c.With(client.WithSessionToken(session.Token))
	key, err := dash.CreateAPIKey(ctx, "laptop")
	if err != nil {
		log.Fatal(err)
	}
	usage, err := dash.Usage(ctx)
	if err != nil {
		log.Fatal(err)
	}
	keys, err := dash.ListAPIKeys(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(keys), usage.UsedMinutes, usage.RemainingMinutes)

	api := c.With(client.WithAPIKey(key.Secret)) // for the /v1 routes
	_ = api
	// Output:
	// 1 0 5
}

// Options for a deployment behind an API gateway, with a custom HTTP client
// and a patient retry policy.
func ExampleNew() {
	c, err := client.New("https://api.example.com/prod",
		client.WithAPIKey("cs_live_..."),
		client.WithGatewayKey("gateway-key"),
		client.WithHTTPClient(&http.Client{Transport: http.DefaultTransport}),
		client.WithUserAgent("billing-sync/2.3 "+client.DefaultUserAgent),
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 30 * time.Second}),
		client.WithRequestTimeout(2*time.Minute), // large uploads over a slow link
		client.WithDirectUploadMaxBytes(2<<20),   // two-step above 2 MiB
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.BaseURL())
	// Output:
	// https://api.example.com/prod
}
