package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// TranscriptionOptions are the optional fields of a transcription create.
// Language is a BCP-47 / ISO language hint; Metadata, when set, must be a JSON
// object (the service answers INVALID_METADATA_JSON otherwise) and is echoed
// back on the job. Filename names the job's file when it is created from a
// two-step upload (a direct upload sends the file's own name); the automatic
// two-step path fills it in. Keyterms is the job's vocabulary: up to 100
// words or phrases (each 1 to 50 characters, at most 6 words) the engine
// should favour, sent as the keyterms field (INVALID_KEYTERMS otherwise); the
// result's MetaData says what became of them. RedactPII, when set, is
// sent as the redact_pii field (nil leaves the deployment's default): true
// replaces card numbers, phone numbers, e-mail addresses and long digit
// runs in the transcript and tones them out of the audio.
type TranscriptionOptions struct {
	Language  string
	Metadata  json.RawMessage
	Filename  string
	Keyterms  []string
	RedactPII *bool
}

// GetJob returns one job of any type. A missing type is reported as transcription.
func (c *Client) GetJob(ctx context.Context, id string) (*Job, error) {
	return c.getJob(ctx, id, 0)
}

func (c *Client) getJob(ctx context.Context, id string, timeout time.Duration) (*Job, error) {
	var job Job
	req := &request{method: http.MethodGet, path: "/v1/transcriptions/" + escape(id), auth: authAPIKey, idempotent: true, timeout: timeout}
	if err := c.call(ctx, req, &job); err != nil {
		return nil, err
	}
	if job.Type == "" {
		job.Type = TypeTranscription
	}
	return &job, nil
}

// DeleteJob deletes a job of any type (its audio at once, its record after
// the retention period). Deleting a transcription leaves its summaries and tags.
func (c *Client) DeleteJob(ctx context.Context, id string) error {
	req := &request{method: http.MethodDelete, path: "/v1/transcriptions/" + escape(id), auth: authAPIKey, idempotent: true}
	return c.call(ctx, req, nil)
}

// ListOptions are the listing's page size, cursor and filters; zero values
// are left out. Limit is capped at 100 by the service (default 10). Cursor is
// the NextCursor of the previous page, to be used with the same filters.
type ListOptions struct {
	Limit        int
	Cursor       string
	Status       string
	Type         string
	Language     string
	CreatedAfter time.Time
	JobID        string
	// SourceJobID lists the summary and tags jobs made from that transcription.
	SourceJobID string
	// Query lists the jobs whose text holds every word of it ("quoted
	// phrases" in order); each listed job then carries Matches.
	Query string
	// Speaker, with Query, searches one speaker's segments: Agent or User.
	Speaker string
}

func (o ListOptions) query() url.Values {
	q := url.Values{}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	if o.Status != "" {
		q.Set("status", o.Status)
	}
	if o.Type != "" {
		q.Set("type", o.Type)
	}
	if o.Language != "" {
		q.Set("language", o.Language)
	}
	if !o.CreatedAfter.IsZero() {
		q.Set("created_after", o.CreatedAfter.UTC().Format(time.RFC3339Nano))
	}
	if o.JobID != "" {
		q.Set("job_id", o.JobID)
	}
	if o.SourceJobID != "" {
		q.Set("source_job_id", o.SourceJobID)
	}
	if o.Query != "" {
		q.Set("q", o.Query)
	}
	if o.Speaker != "" {
		q.Set("speaker", o.Speaker)
	}
	return q
}

// ListJobs returns one page of the account's jobs of every type, newest first.
func (c *Client) ListJobs(ctx context.Context, opts ListOptions) (*JobPage, error) {
	var body JobList
	req := &request{method: http.MethodGet, path: "/v1/transcriptions", query: opts.query(), auth: authAPIKey, idempotent: true}
	if err := c.call(ctx, req, &body); err != nil {
		return nil, err
	}
	page := &JobPage{Jobs: body.Transcriptions, RequestID: body.RequestID}
	if page.Jobs == nil {
		page.Jobs = []JobSummary{}
	}
	if body.NextCursor != nil {
		page.NextCursor = *body.NextCursor
	}
	return page, nil
}

// AllJobs iterates over every job the listing returns, page after page, with
// the same filters on every page (as the spec requires: the cursor carries only
// a position). opts.Cursor, when set, is where it starts. An error is yielded
// once, with a zero JobSummary, and ends the iteration.
func (c *Client) AllJobs(ctx context.Context, opts ListOptions) iter.Seq2[JobSummary, error] {
	return func(yield func(JobSummary, error) bool) {
		for {
			page, err := c.ListJobs(ctx, opts)
			if err != nil {
				yield(JobSummary{}, err)
				return
			}
			for _, j := range page.Jobs {
				if !yield(j, nil) {
					return
				}
			}
			if page.NextCursor == "" {
				return
			}
			opts.Cursor = page.NextCursor
		}
	}
}

// Summarize creates a summary job; poll it with WaitForJob or GetJob. r names
// the transcript: exactly one of a succeeded transcription of the account
// (TranscriptionJobID) or plain transcript text.
func (c *Client) Summarize(ctx context.Context, r SummarizeRequest) (*CreatedJob, error) {
	return c.derive(ctx, "/v1/summarize", r)
}

// Tag creates a tags job; poll it with WaitForJob or GetJob. r names the
// transcript to tag (exactly one of TranscriptionJobID and TranscriptText)
// and, optionally, where to POST the result when the job ends: CallbackURL,
// with CallbackAPIKey sent as its `apikey` header and CallUUID as the
// callback's call_uuid.
func (c *Client) Tag(ctx context.Context, r TagRequest) (*CreatedJob, error) {
	return c.derive(ctx, "/v1/tag", r)
}

func (c *Client) derive(ctx context.Context, path string, body any) (*CreatedJob, error) {
	req, err := jsonRequest(path, authAPIKey, body)
	if err != nil {
		return nil, err
	}
	req.idempotencyKey = idempotencyKey(ctx)
	var out CreatedJob
	if err := c.call(ctx, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Taxonomy returns the fixed tag taxonomy: every category and its allowed values.
func (c *Client) Taxonomy(ctx context.Context) (*Taxonomy, error) {
	var t Taxonomy
	req := &request{method: http.MethodGet, path: "/v1/tags/taxonomy", auth: authAPIKey, idempotent: true}
	if err := c.call(ctx, req, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// ExportFormat is a transcript export format.
type ExportFormat string

// The export formats of GET /v1/transcriptions/{job_id}/export.
const (
	ExportText ExportFormat = "txt"
	ExportJSON ExportFormat = "json"
	ExportSRT  ExportFormat = "srt"
	ExportVTT  ExportFormat = "vtt"
)

// Export returns a succeeded transcription as a file of the given format.
// Other job types are refused by the service, a job that has not succeeded gets
// 409 TRANSCRIPTION_NOT_READY, an unknown format 400 INVALID_FORMAT.
func (c *Client) Export(ctx context.Context, id string, format ExportFormat) ([]byte, error) {
	req := &request{
		method: http.MethodGet, path: "/v1/transcriptions/" + escape(id) + "/export",
		query: url.Values{"format": {string(format)}}, auth: authAPIKey, idempotent: true,
	}
	resp, err := c.do(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.body, nil
}

// WaitOptions tune WaitForJob; zero values take the spec's defaults:
// DefaultPollInterval, DefaultPollMaxAttempts and DefaultRequestTimeout (or
// the client's WithRequestTimeout). MaxAttempts NoAttemptLimit polls until the
// job ends (see NoAttemptLimit). OnPoll, when set, sees every job read.
type WaitOptions struct {
	Interval       time.Duration
	MaxAttempts    int
	RequestTimeout time.Duration
	OnPoll         func(*Job)
}

// ErrWaitExhausted is wrapped by WaitForJob's error when the job was still
// queued or processing after the last attempt.
var ErrWaitExhausted = errors.New("callscribe: job still in progress after the last poll")

// JobFailedError is WaitForJob's error for a job that ended failed: Job is the
// job as read and Err its error block as an *Error (Status 0, the job's error
// code and message, the provider error in Details, the read's requestId).
type JobFailedError struct {
	Job *Job
	Err *Error
}

func (e *JobFailedError) Error() string {
	return fmt.Sprintf("callscribe: %s job %s failed: %s: %s", e.Job.Type, e.Job.ID, e.Err.Code, e.Err.Message)
}

// Unwrap gives errors.As and the Is* helpers the job's *Error.
func (e *JobFailedError) Unwrap() error { return e.Err }

// WaitForJob polls a job until it succeeds or fails, first at once and then
// every opts.Interval, at most opts.MaxAttempts times. A succeeded job is
// returned with a nil error; a failed one with a *JobFailedError (and the job);
// one still in progress after the last attempt with an error wrapping
// ErrWaitExhausted (and the last job read). A read that fails (after the
// client's retries) ends the wait with that error.
func (c *Client) WaitForJob(ctx context.Context, id string, opts WaitOptions) (*Job, error) {
	interval := opts.Interval
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	attempts := opts.MaxAttempts
	if attempts == 0 {
		attempts = DefaultPollMaxAttempts
	}
	var last *Job
	for n := 1; attempts < 0 || n <= attempts; n++ {
		if n > 1 {
			if err := sleep(ctx, interval); err != nil {
				return last, err
			}
		}
		job, err := c.getJob(ctx, id, opts.RequestTimeout)
		if err != nil {
			return last, err
		}
		last = job
		if opts.OnPoll != nil {
			opts.OnPoll(job)
		}
		switch job.Status {
		case StatusSucceeded:
			return job, nil
		case StatusFailed:
			return job, jobFailed(job)
		}
	}
	status := ""
	if last != nil {
		status = last.Status
	}
	return last, fmt.Errorf("%w: job %s is %s after %d polls every %s", ErrWaitExhausted, id, status, attempts, interval)
}

func jobFailed(job *Job) *JobFailedError {
	e := &Error{Code: "job_failed", Message: "The job failed.", RequestID: job.RequestID}
	if job.Error != nil {
		e.Code, e.Message = job.Error.Code, job.Error.Message
		if job.Error.ProviderError != nil {
			e.Details, _ = json.Marshal(job.Error.ProviderError)
		}
	}
	return &JobFailedError{Job: job, Err: e}
}

// TranscribeOptions are the options of the create and of the wait.
type TranscribeOptions struct {
	TranscriptionOptions
	WaitOptions
}

// Transcribe uploads the audio file at path (directly or in two steps, by
// size) and waits for its transcription as WaitForJob does, except that with
// no MaxAttempts it waits until the job ends (NoAttemptLimit), bounded by ctx:
// a long call outlasts the spec's 60 polls, and a caller who asked for the
// transcript wants it, not a timeout. On a wait error the job read last, if
// any, is returned with it.
func (c *Client) Transcribe(ctx context.Context, path string, opts TranscribeOptions) (*Job, error) {
	created, err := c.CreateTranscriptionFromFile(ctx, path, opts.TranscriptionOptions)
	if err != nil {
		return nil, err
	}
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = NoAttemptLimit
	}
	return c.WaitForJob(ctx, created.ID, opts.WaitOptions)
}
