package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func (s *Server) createTranscription(w http.ResponseWriter, r *http.Request, accountID string) {
	up, err := readUpload(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if up.audio == nil && up.uploadID != "" {
		if up.audio, err = s.takeUpload(r.Context(), accountID, up.uploadID); err != nil {
			writeError(w, r, err)
			return
		}
	}
	if len(up.audio) == 0 {
		writeError(w, r, callscribe.Errorf(callscribe.CodeAudioFileMissing, "No audio file was provided in the `file` field."))
		return
	}
	if up.badMeta {
		writeError(w, r, callscribe.Errorf(callscribe.CodeInvalidMetadataJSON, "metadata must be a JSON-encoded object (at most %d bytes).", maxMetadataBytes))
		return
	}
	if up.language != "" && !languageTag.MatchString(up.language) {
		writeError(w, r, callscribe.Errorf(callscribe.CodeInvalidRequest, "language must be a BCP-47 / ISO 639 tag such as \"en\" or \"en-US\"."))
		return
	}
	info, err := probeAudio(up.audio)
	if err != nil {
		writeError(w, r, err)
		return
	}
	now := s.now()
	job := &callscribe.Job{
		ID:           s.deps.NewID(),
		AccountID:    accountID,
		Type:         callscribe.TypeTranscription,
		Status:       callscribe.StatusQueued,
		Language:     up.language,
		AudioSeconds: info.DurationSeconds,
		AudioFormat:  info.Format,
		Metadata:     up.metadata,
		QuotaMonth:   callscribe.QuotaMonth(now),
		CreatedAt:    now,
		UpdatedAt:    now,
	}
	if up.filename != "" {
		job.OriginalFilename = &up.filename
	}
	job.AudioKey = "audio/" + accountID + "/" + job.ID + "." + string(info.Format)
	// Audio is stored before the job so a stored job always has its audio.
	if err := s.deps.Audio.PutAudio(r.Context(), job.AudioKey, bytesReader(up.audio), int64(len(up.audio))); err != nil {
		writeError(w, r, err)
		return
	}
	quota := &callscribe.QuotaReservation{Month: job.QuotaMonth, LimitSeconds: s.cfg.QuotaMinutes * 60}
	if err := s.deps.Jobs.CreateJob(r.Context(), job, quota); err != nil {
		s.discardAudio(r.Context(), job.AudioKey)
		writeError(w, r, err)
		return
	}
	logger(r.Context()).Info("transcription accepted", "jobId", job.ID, "accountId", accountID, "audioSeconds", job.AudioSeconds, "format", info.Format, "channels", info.Channels)
	if !s.submit(w, r, job, callscribe.KindTranscribe) {
		return
	}
	writeJSON(w, r, http.StatusAccepted, map[string]any{
		"job_id": job.ID, "status": job.Status, "received_at": formatTime(now),
	})
}

// submit enqueues the job's work. When the queue refuses, the stored job is
// marked failed (releasing its minutes) and the caller gets 502.
func (s *Server) submit(w http.ResponseWriter, r *http.Request, job *callscribe.Job, kind callscribe.MessageKind) bool {
	err := s.deps.Queue.Enqueue(r.Context(), callscribe.Message{Kind: kind, JobID: job.ID, RequestID: RequestID(r.Context())})
	if err == nil {
		return true
	}
	log := logger(r.Context())
	log.Error("submitting job to the pipeline failed", "jobId", job.ID, "err", err)
	// The request context may be the reason submission failed; the job must still be marked.
	ctx := context.WithoutCancel(r.Context())
	_, ferr := s.deps.Jobs.TransitionJob(ctx, callscribe.Transition{
		JobID: job.ID, From: []callscribe.JobStatus{callscribe.StatusQueued, callscribe.StatusProcessing}, To: callscribe.StatusFailed,
		Error: &callscribe.JobError{Code: callscribe.JobErrSubmitFailed, Message: "The job could not be submitted to the processing pipeline."},
		At:    s.now(),
	})
	if ferr != nil {
		log.Error("marking unsubmitted job failed", "jobId", job.ID, "err", ferr)
	}
	writeError(w, r, &callscribe.Error{Code: callscribe.CodeProviderSubmitFailed, Message: "The job was stored but could not be submitted for processing; it has been marked failed.", Details: map[string]any{"job_id": job.ID}})
	return false
}

func (s *Server) discardAudio(ctx context.Context, key string) {
	if err := s.deps.Audio.DeleteAudio(context.WithoutCancel(ctx), key); err != nil {
		logger(ctx).Warn("removing audio of a refused upload failed", "key", key, "err", err)
	}
}

// ownedJob loads a job the caller may act on: 404 when absent, 403 when another account's.
func (s *Server) ownedJob(ctx context.Context, id, accountID string) (*callscribe.Job, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, callscribe.Errorf(callscribe.CodeJobNotFound, "No job with id %q.", truncate(id, 64))
	}
	job, err := s.deps.Jobs.GetJob(ctx, id)
	if err != nil {
		if callscribe.IsCode(err, callscribe.CodeJobNotFound) {
			return nil, callscribe.Errorf(callscribe.CodeJobNotFound, "No job with id %s.", id)
		}
		return nil, err
	}
	if job.AccountID != accountID {
		return nil, callscribe.Errorf(callscribe.CodeForbidden, "Job %s belongs to another account.", id)
	}
	return job, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request, accountID string) {
	job, err := s.ownedJob(r.Context(), r.PathValue("job_id"), accountID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, jobBody(job))
}

// jobBody renders the Job resource. source_job_id, result, error and metadata are
// omitted (not null) when they do not apply.
func jobBody(job *callscribe.Job) map[string]any {
	body := map[string]any{
		"job_id":     job.ID,
		"type":       job.Type.OrDefault(),
		"status":     job.Status,
		"created_at": formatTime(job.CreatedAt),
		"updated_at": formatTime(job.UpdatedAt),
	}
	if job.SourceJobID != "" {
		body["source_job_id"] = job.SourceJobID
	}
	if job.Status == callscribe.StatusSucceeded && len(job.Result) > 0 {
		body["result"] = json.RawMessage(job.Result)
	}
	if job.Status == callscribe.StatusFailed {
		jerr := job.Error
		if jerr == nil {
			jerr = &callscribe.JobError{Code: callscribe.JobErrInternal, Message: "The job failed."}
		}
		body["error"] = jerr
	}
	if len(job.Metadata) > 0 {
		body["metadata"] = json.RawMessage(job.Metadata)
	}
	return body
}

func (s *Server) deleteJob(w http.ResponseWriter, r *http.Request, accountID string) {
	job, err := s.ownedJob(r.Context(), r.PathValue("job_id"), accountID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	// Audio goes first and at once; if removing the record then fails, a retry
	// of the DELETE finishes the job (deleting absent audio is not an error).
	if job.AudioKey != "" {
		if err := s.deps.Audio.DeleteAudio(r.Context(), job.AudioKey); err != nil {
			writeError(w, r, err)
			return
		}
	}
	if err := s.deps.Jobs.DeleteJob(r.Context(), job.ID, s.now()); err != nil {
		writeError(w, r, err)
		return
	}
	logger(r.Context()).Info("job deleted", "jobId", job.ID, "accountId", accountID, "type", job.Type.OrDefault())
	writeJSON(w, r, http.StatusAccepted, map[string]any{})
}

const (
	defaultPageSize = 10
	maxPageSize     = 100
)

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request, accountID string) {
	q := r.URL.Query()
	req := callscribe.ListRequest{AccountID: accountID, Limit: defaultPageSize}
	if v, ok := singleParam(q, "limit"); ok {
		n, valid := parseLimit(v)
		if !valid {
			writeError(w, r, callscribe.Errorf(callscribe.CodeInvalidPagination, "limit must be a positive integer (at most %d is used).", maxPageSize))
			return
		}
		req.Limit = n
	}
	if v, ok := singleParam(q, "cursor"); ok {
		pos, err := decodeCursor(s.cfg.CursorKey, accountID, v)
		if err != nil {
			writeError(w, r, callscribe.Errorf(callscribe.CodeInvalidPagination, "cursor is malformed or was not issued for this listing; pass next_cursor unchanged or omit it."))
			return
		}
		req.After = pos
	}
	filter, err := parseFilter(q)
	if err != nil {
		writeError(w, r, err)
		return
	}
	req.Filter = filter
	page, err := s.deps.Jobs.ListJobs(r.Context(), req)
	if err != nil {
		writeError(w, r, err)
		return
	}
	items := make([]map[string]any, 0, len(page.Jobs))
	for _, j := range page.Jobs {
		items = append(items, jobSummary(j))
	}
	var next any
	if page.Next != nil {
		next = encodeCursor(s.cfg.CursorKey, accountID, *page.Next)
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"transcriptions": items, "next_cursor": next})
}

// singleParam returns a query parameter's value; an empty value counts as absent.
func singleParam(q map[string][]string, name string) (string, bool) {
	vs := q[name]
	if len(vs) == 0 || vs[0] == "" {
		return "", false
	}
	return vs[0], true
}

// parseLimit accepts decimal digits only; values above the maximum (even ones
// too large for an int) are capped, as the spec says.
func parseLimit(v string) (int, bool) {
	if v == "" || strings.TrimLeft(v, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil { // only overflow is left: a huge positive number
		return maxPageSize, true
	}
	if n <= 0 {
		return 0, false
	}
	return min(n, maxPageSize), true
}

func parseFilter(q map[string][]string) (callscribe.JobFilter, error) {
	var f callscribe.JobFilter
	if v, ok := singleParam(q, "status"); ok {
		st, valid := callscribe.ParseJobStatus(v)
		if !valid {
			return f, callscribe.Errorf(callscribe.CodeInvalidFilter, "status must be one of queued, processing, succeeded, failed.")
		}
		f.Status = st
	}
	if v, ok := singleParam(q, "type"); ok {
		t, valid := callscribe.ParseJobType(v)
		if !valid {
			return f, callscribe.Errorf(callscribe.CodeInvalidFilter, "type must be one of transcription, summary, tags.")
		}
		f.Type = t
	}
	if v, ok := singleParam(q, "language"); ok {
		f.Language = v
	}
	if v, ok := singleParam(q, "created_after"); ok {
		t, err := parseTimestamp(v)
		if err != nil {
			return f, callscribe.Errorf(callscribe.CodeInvalidFilter, "created_after must be an ISO 8601 timestamp such as 2026-11-01T00:00:00Z.")
		}
		f.CreatedAfter = &t
	}
	if v, ok := singleParam(q, "job_id"); ok {
		id, err := uuid.Parse(v)
		if err != nil || len(v) != 36 {
			return f, callscribe.Errorf(callscribe.CodeInvalidFilter, "job_id must be a UUID.")
		}
		f.JobID = id.String()
	}
	return f, nil
}

// parseTimestamp accepts RFC 3339 (with any fraction and offset), a local time
// without offset (read as UTC) and a plain date (midnight UTC).
func parseTimestamp(v string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, callscribe.Errorf(callscribe.CodeInvalidFilter, "bad timestamp")
}

// jobSummary renders a list entry.
func jobSummary(j *callscribe.Job) map[string]any {
	var filename, language any
	if j.OriginalFilename != nil {
		filename = *j.OriginalFilename
	}
	if j.Language != "" {
		language = j.Language
	}
	seconds := j.AudioSeconds
	if j.Type.Derived() {
		seconds = 0 // metered on the source transcription
	}
	return map[string]any{
		"job_id":            j.ID,
		"type":              j.Type.OrDefault(),
		"status":            j.Status,
		"original_filename": filename,
		"language":          language,
		"audio_seconds":     seconds,
		"created_at":        formatTime(j.CreatedAt),
		"updated_at":        formatTime(j.UpdatedAt),
	}
}
