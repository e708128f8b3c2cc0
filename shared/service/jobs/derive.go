package jobs

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/callback"
)

// DeriveRequest asks for a summary or tags job. Exactly one of SourceJobID and
// Text must be given; blank text counts as not given. The callback fields are
// pointers so "absent" differs from "empty"; they apply to tags jobs only and
// are ignored for summaries.
type DeriveRequest struct {
	AccountID   string
	Type        callscribe.JobType // TypeSummary or TypeTags
	SourceJobID string
	Text        string

	CallbackURL    *string
	CallbackAPIKey *string
	CallUUID       *string
	// RedactPII is the raw redact_pii field as parseRedactPII reads it.
	// When on, the job's copy of the transcript (segments or text) is
	// redacted before it is stored; a transcription that was itself
	// redacted gives redacted segments either way.
	RedactPII string
}

// Derive creates and submits a summary or tags job. Checks run in the spec's
// order: exactly one source (MISSING_/MULTIPLE_TRANSCRIPT_SOURCES), redact_pii
// (INVALID_REDACT_PII), callback
// fields (INVALID_CALLBACK, tags only), then the source transcription: exists
// (404), owned (403), is a transcription (400), has succeeded (409), contains
// speech (422). The job keeps its own copy of the transcript, so deleting the
// source later cannot break it.
func (s *Service) Derive(ctx context.Context, req DeriveRequest) (*callscribe.Job, error) {
	if job := s.earlierAttempt(ctx, req.AccountID); job != nil {
		return job, nil
	}
	sourceID := strings.TrimSpace(req.SourceJobID)
	hasText := strings.TrimSpace(req.Text) != ""
	switch {
	case sourceID != "" && hasText:
		return nil, callscribe.Errorf(callscribe.CodeMultipleTranscriptSources, "Send exactly one of transcription_job_id and transcript_text, not both.")
	case sourceID == "" && !hasText:
		return nil, callscribe.Errorf(callscribe.CodeMissingTranscriptSource, "Send transcription_job_id or a non-empty transcript_text.")
	}
	redactPII, err := s.parseRedactPII(req.RedactPII)
	if err != nil {
		return nil, err
	}
	now := s.now()
	job := &callscribe.Job{
		ID: s.newJobID(ctx, req.AccountID), AccountID: req.AccountID, Type: req.Type, Status: callscribe.StatusQueued,
		CreatedAt: now, UpdatedAt: now,
	}
	if req.Type == callscribe.TypeTags {
		cb, err := s.callbackOf(req, sourceID, job.ID)
		if err != nil {
			return nil, err
		}
		job.Callback = cb
	}
	if sourceID != "" {
		source, result, err := s.usableSource(ctx, sourceID, req.AccountID)
		if err != nil {
			return nil, err
		}
		job.SourceJobID = source.ID
		job.Language = source.Language
		if job.Language == "" && result.Language != nil {
			job.Language = *result.Language
		}
		job.Input = &callscribe.Transcript{Segments: result.Transcript}
	} else {
		job.Input = &callscribe.Transcript{Text: req.Text}
	}
	if redactPII {
		job.Input = redactInput(job.Input)
		job.RedactPII = true
	}
	if err := s.deps.Jobs.CreateJob(ctx, job, nil); err != nil {
		if earlier := s.earlierAttempt(ctx, req.AccountID); earlier != nil && callscribe.IsCode(err, callscribe.CodeConflict) {
			return earlier, nil
		}
		return nil, err
	}
	s.logger(ctx).InfoContext(ctx, "derived job accepted", "jobId", job.ID, "type", job.Type,
		"sourceJobId", job.SourceJobID, "callback", job.Callback != nil)
	if err := s.submit(ctx, job); err != nil {
		return nil, err
	}
	return job, nil
}

// usableSource loads a transcription a derived job may be made from.
func (s *Service) usableSource(ctx context.Context, id, accountID string) (*callscribe.Job, *callscribe.TranscriptionResult, error) {
	job, err := s.Get(ctx, accountID, id)
	if err != nil {
		return nil, nil, err
	}
	if job.Type.OrDefault() != callscribe.TypeTranscription {
		return nil, nil, callscribe.Errorf(callscribe.CodeNotATranscription, "Job %s is a %s job; summaries and tags derive from transcriptions.", id, job.Type)
	}
	if job.Status != callscribe.StatusSucceeded {
		return nil, nil, callscribe.Errorf(callscribe.CodeTranscriptionNotReady, "Transcription %s is %s; retry once it has succeeded.", id, job.Status)
	}
	var result callscribe.TranscriptionResult
	if err := json.Unmarshal(job.Result, &result); err != nil {
		return nil, nil, err
	}
	if !result.HasSpeech() {
		return nil, nil, callscribe.Errorf(callscribe.CodeTranscriptEmpty, "Transcription %s succeeded but contains no speech.", id)
	}
	return job, &result, nil
}

// callbackOf validates the optional tagDelivered fields. call_uuid defaults to
// the source transcription's id, else the tags job's own id.
func (s *Service) callbackOf(req DeriveRequest, sourceID, jobID string) (*callscribe.Callback, error) {
	url := strings.TrimSpace(deref(req.CallbackURL))
	if url == "" {
		if req.CallbackAPIKey != nil || req.CallUUID != nil {
			return nil, callscribe.Errorf(callscribe.CodeInvalidCallback, "callback_apikey and call_uuid need a callback_url.")
		}
		return nil, nil
	}
	cb := callscribe.Callback{URL: url, APIKey: deref(req.CallbackAPIKey), CallUUID: deref(req.CallUUID)}
	// Like transcript_text, an empty or blank call_uuid counts as not supplied.
	if strings.TrimSpace(cb.CallUUID) == "" {
		cb.CallUUID = jobID
		if sourceID != "" {
			cb.CallUUID = sourceID
		}
	}
	if err := callback.ValidateCallback(cb, s.cfg.CallbackAllowHosts); err != nil {
		return nil, err
	}
	return &cb, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
