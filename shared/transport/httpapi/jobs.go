package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

func (s *Server) createTranscription(w http.ResponseWriter, r *http.Request, accountID string) {
	up, err := readUpload(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer up.close()
	s.idempotent(w, r, accountID, fingerprintUpload(up), func(w http.ResponseWriter, r *http.Request) {
		req := jobs.TranscriptionRequest{
			AccountID: accountID, UploadID: up.uploadID, Filename: up.filename,
			Language: up.language, Metadata: up.metadata, Keyterms: up.keyterms, RedactPII: up.redactPII,
		}
		if up.audio != nil {
			req.Audio, req.AudioSize = up.audio.Reader(), up.audio.Size
		}
		job, err := s.deps.Service.SubmitTranscription(r.Context(), req)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeJSON(w, r, http.StatusAccepted, map[string]any{
			"job_id": job.ID, "status": job.Status, "received_at": formatTime(job.CreatedAt),
		})
	})
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request, accountID string) {
	job, err := s.deps.Service.Get(r.Context(), accountID, r.PathValue("job_id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeBody(w, r, http.StatusOK, jobBody(job))
}

// jobResource is the Job resource. source_job_id, result, error, metadata and
// keyterms are omitted (not null) when they do not apply. The two hottest bodies (this
// and a list page) are structs rather than maps: encoding a map sorts its keys
// and reflects on every interface value, per request.
type jobResource struct {
	JobID       string               `json:"job_id"`
	Type        callscribe.JobType   `json:"type"`
	Status      callscribe.JobStatus `json:"status"`
	SourceJobID string               `json:"source_job_id,omitempty"`
	CreatedAt   apiTime              `json:"created_at"`
	UpdatedAt   apiTime              `json:"updated_at"`
	Result      json.RawMessage      `json:"result,omitempty"`
	Error       *callscribe.JobError `json:"error,omitempty"`
	Metadata    json.RawMessage      `json:"metadata,omitempty"`
	Keyterms    []string             `json:"keyterms,omitempty"`
	RequestID   string               `json:"requestId"`
}

func (b *jobResource) setRequestID(id string) { b.RequestID = id }

// jobBody renders a job as the Job resource.
func jobBody(job *callscribe.Job) *jobResource {
	body := &jobResource{
		JobID:       job.ID,
		Type:        job.Type.OrDefault(),
		Status:      job.Status,
		SourceJobID: job.SourceJobID,
		CreatedAt:   apiTime(job.CreatedAt),
		UpdatedAt:   apiTime(job.UpdatedAt),
		Metadata:    job.Metadata,
		Keyterms:    job.Keyterms,
	}
	if job.Status == callscribe.StatusSucceeded && len(job.Result) > 0 {
		body.Result = job.Result
	}
	if job.Status == callscribe.StatusFailed {
		body.Error = job.Error
		if body.Error == nil {
			body.Error = &callscribe.JobError{Code: callscribe.JobErrInternal, Message: "The job failed."}
		}
	}
	return body
}

func (s *Server) deleteJob(w http.ResponseWriter, r *http.Request, accountID string) {
	job, err := s.deps.Service.Delete(r.Context(), accountID, r.PathValue("job_id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	logger(r.Context()).Info("job deleted", "jobId", job.ID, "accountId", accountID, "type", job.Type.OrDefault())
	writeJSON(w, r, http.StatusAccepted, map[string]any{})
}

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request, accountID string) {
	q := r.URL.Query()
	req := callscribe.ListRequest{AccountID: accountID}
	if v, ok := singleParam(q, "limit"); ok {
		n, valid := parseLimit(v)
		if !valid {
			writeError(w, r, callscribe.Errorf(callscribe.CodeInvalidPagination, "limit must be a positive integer (at most %d is used).", jobs.MaxPageSize))
			return
		}
		req.Limit = n
	}
	if v, ok := singleParam(q, "cursor"); ok {
		if len(v) > maxCursorBytes {
			writeError(w, r, callscribe.Errorf(callscribe.CodeInvalidPagination, "cursor is longer than %d characters; pass next_cursor unchanged or omit it.", maxCursorBytes))
			return
		}
		pos, err := decodeCursor(s.cursors, accountID, v)
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
	page, err := s.deps.Service.List(r.Context(), req)
	if err != nil {
		writeError(w, r, err)
		return
	}
	body := &jobListPage{Transcriptions: make([]jobSummaryResource, 0, len(page.Jobs))}
	for _, j := range page.Jobs {
		body.Transcriptions = append(body.Transcriptions, jobSummary(j))
	}
	if page.Next != nil {
		next := encodeCursor(s.cursors, accountID, *page.Next)
		body.NextCursor = &next
	}
	writeBody(w, r, http.StatusOK, body)
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
		return jobs.MaxPageSize, true
	}
	if n <= 0 {
		return 0, false
	}
	return min(n, jobs.MaxPageSize), true
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
		id, valid := parseFilterUUID(v)
		if !valid {
			return f, callscribe.Errorf(callscribe.CodeInvalidFilter, "job_id must be a UUID.")
		}
		f.JobID = id
	}
	if v, ok := singleParam(q, "source_job_id"); ok {
		id, valid := parseFilterUUID(v)
		if !valid {
			return f, callscribe.Errorf(callscribe.CodeInvalidFilter, "source_job_id must be a UUID.")
		}
		f.SourceJobID = id
	}
	text, _ := singleParam(q, "q")
	speaker, _ := singleParam(q, "speaker")
	search, err := callscribe.ParseSearchQuery(text, speaker)
	if err != nil {
		return f, err
	}
	f.Search = search
	return f, nil
}

// parseFilterUUID accepts a job id filter's value: a UUID in its 36-character
// form, any case, returned as stored (lower case).
func parseFilterUUID(v string) (string, bool) {
	id, err := uuid.Parse(v)
	if err != nil || len(v) != 36 {
		return "", false
	}
	return id.String(), true
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
// jobListPage is a page of the list route.
type jobListPage struct {
	Transcriptions []jobSummaryResource `json:"transcriptions"`
	NextCursor     *string              `json:"next_cursor"`
	RequestID      string               `json:"requestId"`
}

func (b *jobListPage) setRequestID(id string) { b.RequestID = id }

// jobSummaryResource is one job of a list page.
type jobSummaryResource struct {
	JobID            string               `json:"job_id"`
	Type             callscribe.JobType   `json:"type"`
	Status           callscribe.JobStatus `json:"status"`
	SourceJobID      string               `json:"source_job_id,omitempty"`
	OriginalFilename *string              `json:"original_filename"`
	Language         *string              `json:"language"`
	AudioSeconds     float64              `json:"audio_seconds"`
	CreatedAt        apiTime              `json:"created_at"`
	UpdatedAt        apiTime              `json:"updated_at"`
	// Matches is set on the entries of a search (q) only.
	Matches []searchMatchResource `json:"matches,omitempty"`
}

// searchMatchResource is one entry of a listed job's matches.
type searchMatchResource struct {
	Field        string   `json:"field"`
	Segment      int      `json:"segment"`
	TimeStart    *float64 `json:"time_start,omitempty"`
	TimeEnd      *float64 `json:"time_end,omitempty"`
	SpeakerAlias string   `json:"speaker_alias,omitempty"`
	Text         string   `json:"text"`
}

func jobSummary(j *callscribe.Job) jobSummaryResource {
	item := jobSummaryResource{
		JobID:            j.ID,
		Type:             j.Type.OrDefault(),
		Status:           j.Status,
		SourceJobID:      j.SourceJobID,
		OriginalFilename: j.OriginalFilename,
		AudioSeconds:     j.AudioSeconds,
		CreatedAt:        apiTime(j.CreatedAt),
		UpdatedAt:        apiTime(j.UpdatedAt),
	}
	if j.Language != "" {
		item.Language = &j.Language
	}
	if j.Type.Derived() {
		item.AudioSeconds = 0 // metered on the source transcription
	}
	for _, m := range j.Matches {
		item.Matches = append(item.Matches, searchMatchResource{
			Field: m.Field, Segment: m.Index, TimeStart: m.TimeStart, TimeEnd: m.TimeEnd, SpeakerAlias: m.Speaker, Text: m.Text,
		})
	}
	return item
}
