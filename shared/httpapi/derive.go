package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/callback"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// deriveRequest is the body of POST /v1/summarize and POST /v1/tag. Pointers tell
// "absent or null" from "empty".
type deriveRequest struct {
	TranscriptionJobID *string `json:"transcription_job_id"`
	TranscriptText     *string `json:"transcript_text"`
	// tagDelivered fields (POST /v1/tag only; ignored by summarize).
	CallbackURL    *string `json:"callback_url"`
	CallbackAPIKey *string `json:"callback_apikey"`
	CallUUID       *string `json:"call_uuid"`
}

func (s *Server) derive(jobType callscribe.JobType) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, accountID string) {
		var req deriveRequest
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		sourceID := strings.TrimSpace(deref(req.TranscriptionJobID))
		text := deref(req.TranscriptText)
		hasText := strings.TrimSpace(text) != ""
		switch {
		case sourceID != "" && hasText:
			writeError(w, r, callscribe.Errorf(callscribe.CodeMultipleTranscriptSources, "Send exactly one of transcription_job_id and transcript_text, not both."))
			return
		case sourceID == "" && !hasText:
			writeError(w, r, callscribe.Errorf(callscribe.CodeMissingTranscriptSource, "Send transcription_job_id or a non-empty transcript_text."))
			return
		}
		now := s.now()
		job := &callscribe.Job{
			ID: s.deps.NewID(), AccountID: accountID, Type: jobType, Status: callscribe.StatusQueued,
			CreatedAt: now, UpdatedAt: now,
		}
		if jobType == callscribe.TypeTags {
			cb, err := s.callbackOf(req, sourceID, job.ID)
			if err != nil {
				writeError(w, r, err)
				return
			}
			job.Callback = cb
		}
		if sourceID != "" {
			source, err := s.usableSource(r.Context(), sourceID, accountID)
			if err != nil {
				writeError(w, r, err)
				return
			}
			job.SourceJobID = source.ID
			job.Language = source.Language
			job.Input = &callscribe.Transcript{Segments: source.result.Transcript}
			if job.Language == "" && source.result.Language != nil {
				job.Language = *source.result.Language
			}
		} else {
			job.Input = &callscribe.Transcript{Text: text}
		}
		if err := s.deps.Jobs.CreateJob(r.Context(), job, nil); err != nil {
			writeError(w, r, err)
			return
		}
		logger(r.Context()).Info("derived job accepted", "jobId", job.ID, "type", jobType, "sourceJobId", job.SourceJobID, "callback", job.Callback != nil)
		if !s.submit(w, r, job, callscribe.KindDerive) {
			return
		}
		writeJSON(w, r, http.StatusAccepted, map[string]any{
			"job_id": job.ID, "type": jobType, "status": job.Status, "received_at": formatTime(now),
		})
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// sourceJob is a transcription usable as a derived job's source.
type sourceJob struct {
	*callscribe.Job
	result callscribe.TranscriptionResult
}

// usableSource applies the spec's checks in order: exists (404), owned (403),
// is a transcription (400), has succeeded (409), contains speech (422).
func (s *Server) usableSource(ctx context.Context, id, accountID string) (*sourceJob, error) {
	job, err := s.ownedJob(ctx, id, accountID)
	if err != nil {
		return nil, err
	}
	if job.Type.OrDefault() != callscribe.TypeTranscription {
		return nil, callscribe.Errorf(callscribe.CodeNotATranscription, "Job %s is a %s job; summaries and tags derive from transcriptions.", id, job.Type)
	}
	if job.Status != callscribe.StatusSucceeded {
		return nil, callscribe.Errorf(callscribe.CodeTranscriptionNotReady, "Transcription %s is %s; retry once it has succeeded.", id, job.Status)
	}
	src := &sourceJob{Job: job}
	if err := json.Unmarshal(job.Result, &src.result); err != nil {
		return nil, err
	}
	if !src.result.HasSpeech() {
		return nil, callscribe.Errorf(callscribe.CodeTranscriptEmpty, "Transcription %s succeeded but contains no speech.", id)
	}
	return src, nil
}

// callbackOf validates the optional tagDelivered fields. call_uuid defaults to
// the source transcription's id, else the tags job's own id.
func (s *Server) callbackOf(req deriveRequest, sourceID, jobID string) (*callscribe.Callback, error) {
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

func (s *Server) taxonomy(w http.ResponseWriter, r *http.Request, _ string) {
	writeJSON(w, r, http.StatusOK, map[string]any{"categories": callscribe.Taxonomy()})
}

// Two-step uploads for files larger than a Lambda request carries: the client
// gets a presigned POST, uploads the file straight to storage, then creates the
// transcription with upload_id in place of file.
const uploadExpiry = 15 * time.Minute

// UploadsPrefix is the staging area of two-step uploads in the AudioStore;
// objects left there were abandoned (the bucket expires them after a day).
const UploadsPrefix = "uploads"

func uploadKey(accountID, uploadID string) string {
	return UploadsPrefix + "/" + accountID + "/" + uploadID
}

func (s *Server) createUpload(w http.ResponseWriter, r *http.Request, accountID string) {
	if s.deps.Uploads == nil {
		writeError(w, r, callscribe.Errorf(callscribe.CodeNotFound, "Two-step uploads are not available in this deployment."))
		return
	}
	uploadID := s.deps.NewID()
	url, fields, err := s.deps.Uploads.SignUpload(r.Context(), uploadKey(accountID, uploadID), MaxAudioBytes, uploadExpiry)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusCreated, map[string]any{
		"upload_id": uploadID, "url": url, "fields": fields, "max_bytes": MaxAudioBytes,
		"expires_at": formatTime(s.now().Add(uploadExpiry)),
	})
}

// takeUpload reads a finished two-step upload (bounded) and removes the staging
// object; the audio is stored again under the job's own key.
func (s *Server) takeUpload(ctx context.Context, accountID, uploadID string) ([]byte, error) {
	if len(uploadID) > 64 || strings.ContainsAny(uploadID, "/\\.") {
		return nil, callscribe.Errorf(callscribe.CodeUploadNotFound, "No finished upload with id %q.", truncate(uploadID, 64))
	}
	rc, err := s.deps.Audio.OpenAudio(ctx, uploadKey(accountID, uploadID))
	if callscribe.IsCode(err, callscribe.CodeNotFound) {
		return nil, callscribe.Errorf(callscribe.CodeUploadNotFound, "No finished upload with id %q.", uploadID)
	}
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(rc, MaxAudioBytes+1))
	rc.Close()
	if err != nil {
		return nil, err
	}
	// The staged object is consumed either way: an oversized one is useless.
	if err := s.deps.Audio.DeleteAudio(ctx, uploadKey(accountID, uploadID)); err != nil {
		logger(ctx).Warn("removing staged upload failed", "uploadId", uploadID, "err", err)
	}
	if len(data) > MaxAudioBytes {
		return nil, callscribe.Errorf(callscribe.CodeFileTooLarge, "The file is larger than the 10 MB (%d bytes) limit.", MaxAudioBytes)
	}
	return data, nil
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
