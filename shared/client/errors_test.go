package client_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/client"
	"github.com/callscribe/callscribe/shared/testkit/apitest"
)

const unknownJob = "0b7e4f4e-3c55-4d7a-9b1e-5a3f7f0e9c21"

func TestErrorFields(t *testing.T) {
	c := account(t)
	ctx := t.Context()

	t.Run("JobNotFound", func(t *testing.T) {
		_, err := c.GetJob(ctx, unknownJob)
		e, ok := client.AsError(err)
		if !ok {
			t.Fatalf("not an *Error: %v", err)
		}
		if e.Status != http.StatusNotFound || e.Code != client.CodeJobNotFound || e.Message == "" || e.RequestID == "" || e.Details != nil {
			t.Errorf("error %+v", e)
		}
		var target *client.Error
		if !errors.As(err, &target) || target != e {
			t.Error("errors.As does not find the *Error")
		}
		for _, part := range []string{e.Code, e.Message, e.RequestID, "404"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%q does not mention %q", err.Error(), part)
			}
		}
		if !client.IsNotFound(err) || client.IsUnauthorized(err) || client.ErrorCode(err) != client.CodeJobNotFound || client.ErrorStatus(err) != 404 {
			t.Error("helpers disagree with the error")
		}
	})

	t.Run("RouteNotFound", func(t *testing.T) {
		// A base URL with a path prefix is kept: here the service has no such route.
		prefixed, err := client.New(baseURL+"/stage/", client.WithAPIKey("k"))
		if err != nil {
			t.Fatal(err)
		}
		if prefixed.BaseURL() != baseURL+"/stage" {
			t.Errorf("BaseURL %q", prefixed.BaseURL())
		}
		_, err = prefixed.Taxonomy(ctx)
		if !client.IsCode(err, client.CodeNotFound) || !client.IsNotFound(err) {
			t.Errorf("prefixed route: %v", err)
		}
	})

	t.Run("Unauthorized", func(t *testing.T) {
		for name, anon := range map[string]*client.Client{
			"no key":    c.With(client.WithAPIKey("")),
			"wrong key": c.With(client.WithAPIKey("cs_live_wrong")),
		} {
			_, err := anon.GetJob(ctx, unknownJob)
			if !client.IsUnauthorized(err) || !client.IsCode(err, client.CodeUnauthorized) || client.ErrorStatus(err) != 401 {
				t.Errorf("%s: %v", name, err)
			}
		}
	})

	t.Run("Forbidden", func(t *testing.T) {
		created, err := c.CreateTranscriptionFromFile(ctx, "call.wav", client.TranscriptionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		other := account(t)
		_, err = other.GetJob(ctx, created.ID)
		if !client.IsForbidden(err) || !client.IsCode(err, client.CodeForbidden) {
			t.Errorf("other account's job: %v", err)
		}
		if err := other.DeleteJob(ctx, created.ID); !client.IsForbidden(err) {
			t.Errorf("deleting another account's job: %v", err)
		}
	})

	t.Run("Validation", func(t *testing.T) {
		cases := []struct {
			name   string
			err    error
			status int
			code   string
		}{}
		add := func(name string, err error, status int, code string) {
			cases = append(cases, struct {
				name   string
				err    error
				status int
				code   string
			}{name, err, status, code})
		}
		_, err := c.Summarize(ctx, client.SummarizeRequest{})
		add("no source", err, 400, client.CodeMissingTranscriptSource)
		_, err = c.Tag(ctx, client.TagRequest{TranscriptionJobID: unknownJob, TranscriptText: "hi"})
		add("two sources", err, 400, client.CodeMultipleTranscriptSources)
		_, err = c.Summarize(ctx, client.SummarizeRequest{TranscriptionJobID: unknownJob})
		add("unknown source", err, 404, client.CodeJobNotFound)
		_, err = c.CreateTranscriptionFromReader(ctx, "a.wav", bytes.NewReader(apitest.MakeWAV(1, 1, false)), client.TranscriptionOptions{Metadata: json.RawMessage(`[1,2]`)})
		add("metadata not an object", err, 400, client.CodeInvalidMetadataJSON)
		_, err = c.CreateTranscriptionFromReader(ctx, "notes.txt", strings.NewReader("plain text, not audio"), client.TranscriptionOptions{})
		add("not audio", err, 415, client.CodeUnsupportedAudioFormat)
		_, err = c.CreateTranscriptionFromReader(ctx, "empty.wav", bytes.NewReader(apitest.WAVHeaderOnly()), client.TranscriptionOptions{})
		add("no duration", err, 400, client.CodeAudioDurationUnknown)
		_, err = c.CreateTranscriptionFromUpload(ctx, unknownJob, client.TranscriptionOptions{})
		add("unknown upload", err, 400, client.CodeUploadNotFound)
		_, err = c.GetJob(ctx, "")
		add("empty id", err, 400, client.CodeMissingJobID)
		for _, tc := range cases {
			e, ok := client.AsError(tc.err)
			if !ok || e.Status != tc.status || e.Code != tc.code || e.RequestID == "" {
				t.Errorf("%s: %v, want %d %s", tc.name, tc.err, tc.status, tc.code)
			}
		}
	})

	t.Run("DerivedFromWrongSource", func(t *testing.T) {
		silent, err := c.CreateTranscriptionFromReader(ctx, "silent.wav", bytes.NewReader(apitest.MakeWAV(1, 1, true)), client.TranscriptionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.WaitForJob(ctx, silent.ID, fast); err != nil {
			t.Fatal(err)
		}
		_, err = c.Summarize(ctx, client.SummarizeRequest{TranscriptionJobID: silent.ID})
		if !client.IsCode(err, client.CodeTranscriptEmpty) || client.ErrorStatus(err) != 422 {
			t.Errorf("empty transcript: %v", err)
		}
		s, err := c.Summarize(ctx, client.SummarizeRequest{TranscriptText: "hello there"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Tag(ctx, client.TagRequest{TranscriptionJobID: s.ID})
		if !client.IsCode(err, client.CodeNotATranscription) {
			t.Errorf("tag of a summary: %v", err)
		}
	})

	t.Run("JobFailed", func(t *testing.T) {
		created, err := c.CreateTranscriptionFromFile(ctx, "call.wav", client.TranscriptionOptions{Language: "fr"})
		if err != nil {
			t.Fatal(err)
		}
		job, err := c.WaitForJob(ctx, created.ID, fast)
		var failed *client.JobFailedError
		if !errors.As(err, &failed) {
			t.Fatalf("want a *JobFailedError, got %v", err)
		}
		if job == nil || failed.Job != job || job.Status != client.StatusFailed || job.Error == nil || job.Error.Code != "unsupported_language" {
			t.Errorf("failed job %+v", job)
		}
		if failed.Err.Code != "unsupported_language" || failed.Err.Status != 0 || failed.Err.RequestID == "" || !client.IsCode(err, "unsupported_language") {
			t.Errorf("job error %+v", failed.Err)
		}
		if !strings.Contains(err.Error(), created.ID) || !strings.Contains(err.Error(), "unsupported_language") {
			t.Errorf("message %q", err)
		}
		if _, err := job.Transcription(); !errors.Is(err, client.ErrNoResult) {
			t.Errorf("Transcription() of a failed job: %v", err)
		}
	})

	t.Run("TooLargeNotSent", func(t *testing.T) {
		rec := &recorder{}
		big := make([]byte, client.MaxFileBytes+1)
		_, err := c.With(client.WithHTTPClient(rec.client())).CreateTranscriptionFromReader(ctx, "big.wav", bytes.NewReader(big), client.TranscriptionOptions{})
		if e, ok := client.AsError(err); !ok || e.Code != client.CodeFileTooLarge || e.Status != 0 {
			t.Errorf("oversized file: %v", err)
		}
		if p := rec.paths(); len(p) != 0 {
			t.Errorf("sent %v", p)
		}
	})
}

// Quota: a file that would take the account over its minutes is refused with
// the figures in details.
func TestQuotaExceeded(t *testing.T) {
	c := account(t)
	// A 6-minute silent WAV at a low rate (the quota counts minutes, not bytes).
	const rate, seconds = 1000, 6 * 60
	audio := append(decode.WAVHeader(rate, 1, rate*2*seconds), make([]byte, rate*2*seconds)...)
	_, err := c.CreateTranscriptionFromReader(t.Context(), "long.wav", bytes.NewReader(audio), client.TranscriptionOptions{})
	if !client.IsQuotaExceeded(err) || client.IsRateLimited(err) || client.ErrorStatus(err) != http.StatusTooManyRequests {
		t.Fatalf("want QUOTA_EXCEEDED, got %v", err)
	}
	e, _ := client.AsError(err)
	q, ok := e.Quota()
	if !ok || q.LimitMinutes != quotaMinutes || q.UsedMinutes != 0 || q.FileMinutes != 6 {
		t.Errorf("quota details %+v (%v) from %s", q, ok, e.Details)
	}
	if _, ok := (&client.Error{Code: client.CodeJobNotFound}).Quota(); ok {
		t.Error("Quota() on another code")
	}
}
