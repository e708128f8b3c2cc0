package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Job types, as plain strings (the values of the document's JobType enum) so
// a type from a newer service still reads.
const (
	TypeTranscription = string(JobTypeTranscription)
	TypeSummary       = string(JobTypeSummary)
	TypeTags          = string(JobTypeTags)
)

// Job statuses, as plain strings (the values of the document's JobStatus
// enum). Succeeded and failed are terminal.
const (
	StatusQueued     = string(JobStatusQueued)
	StatusProcessing = string(JobStatusProcessing)
	StatusSucceeded  = string(JobStatusSucceeded)
	StatusFailed     = string(JobStatusFailed)
)

// Job is a job of any type as GET /v1/transcriptions/{job_id} returns it: the
// document's Job, a oneOf of TranscriptionJob, SummaryJob and TagsJob
// discriminated on type (wire.gen.go), read into one value. Result is present
// only when Status is succeeded and Error only when it is failed; read Result
// through Transcription, Summary or Tags. SourceJobID is set only on summary
// and tags jobs. Metadata is the metadata object given at creation, when there
// was one; Keyterms the transcription's keyterms as stored (trimmed,
// duplicates folded), when it had some. A job without a type (created before
// the field existed) has Type transcription, as the spec says. The JSON tags
// are the wire names, so a Job encodes as the service sent it.
type Job struct {
	ID          string          `json:"job_id"`
	Type        string          `json:"type"`
	Status      string          `json:"status"`
	SourceJobID string          `json:"source_job_id,omitempty"`
	CreatedAt   time.Time       `json:"created_at,omitzero"`
	UpdatedAt   time.Time       `json:"updated_at,omitzero"`
	Result      json.RawMessage `json:"result,omitempty"`
	Error       *JobError       `json:"error,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
	Keyterms    []string        `json:"keyterms,omitempty"`
	RequestID   string          `json:"requestId,omitempty"`
}

// UnmarshalJSON decodes the generated variant that type names: TranscriptionJob
// for transcription (or no type), SummaryJob for summary and for a type this
// client does not know, TagsJob for tags. The result stays raw JSON, decoded
// by the accessors, so a result this client cannot read does not hide the job.
func (j *Job) UnmarshalJSON(b []byte) error {
	var head struct {
		Type   string          `json:"type"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	// Each variant's own result field is shadowed by the shallower raw one.
	switch head.Type {
	case "", TypeTranscription:
		var v struct {
			TranscriptionJob
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*j = Job{ID: v.ID, Status: string(v.Status), CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, Error: v.Error, Metadata: v.Metadata, Keyterms: v.Keyterms, RequestID: v.RequestID}
	case TypeTags:
		var v struct {
			TagsJob
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*j = Job{ID: v.ID, Status: string(v.Status), SourceJobID: v.SourceJobID, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, Error: v.Error, RequestID: v.RequestID}
	default:
		var v struct {
			SummaryJob
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*j = Job{ID: v.ID, Status: string(v.Status), SourceJobID: v.SourceJobID, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, Error: v.Error, RequestID: v.RequestID}
	}
	j.Type = head.Type
	if len(head.Result) > 0 && string(head.Result) != "null" {
		j.Result = head.Result
	}
	return nil
}

// Done reports whether the job reached a terminal status (succeeded or failed).
func (j *Job) Done() bool { return j.Status == StatusSucceeded || j.Status == StatusFailed }

// ErrNoResult is returned (wrapped) by the result accessors of a Job that has
// no result of the asked type: not succeeded, or of another type.
var ErrNoResult = errors.New("callscribe: job has no such result")

func (j *Job) result(want string, out any) error {
	typ := j.Type
	if typ == "" {
		typ = TypeTranscription
	}
	if typ != want {
		return fmt.Errorf("%w: job %s is a %s job, not %s", ErrNoResult, j.ID, typ, want)
	}
	if j.Status != StatusSucceeded || len(j.Result) == 0 || string(j.Result) == "null" {
		return fmt.Errorf("%w: job %s is %s", ErrNoResult, j.ID, j.Status)
	}
	if err := json.Unmarshal(j.Result, out); err != nil {
		return fmt.Errorf("callscribe: decoding the result of job %s: %w", j.ID, err)
	}
	return nil
}

// Transcription decodes the result of a succeeded transcription job.
func (j *Job) Transcription() (*TranscriptionResult, error) {
	var r TranscriptionResult
	if err := j.result(TypeTranscription, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Summary decodes the result of a succeeded summary job.
func (j *Job) Summary() (*SummaryResult, error) {
	var r SummaryResult
	if err := j.result(TypeSummary, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Tags decodes the result of a succeeded tags job.
func (j *Job) Tags() (*TagsResult, error) {
	var r TagsResult
	if err := j.result(TypeTags, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Speaker is one speaker of a transcript.
type Speaker struct {
	ID    int
	Alias string
}

// Speakers returns the transcript's distinct speakers by speaker_id, each with
// the alias of its first segment.
func (r *TranscriptionResult) Speakers() []Speaker {
	var out []Speaker
	for _, s := range r.Transcript {
		if !slices.ContainsFunc(out, func(sp Speaker) bool { return sp.ID == s.SpeakerID }) {
			out = append(out, Speaker{ID: s.SpeakerID, Alias: s.SpeakerAlias})
		}
	}
	slices.SortFunc(out, func(a, b Speaker) int { return a.ID - b.ID })
	return out
}

// JobPage is one page of a listing. NextCursor is empty on the last page.
type JobPage struct {
	Jobs       []JobSummary
	NextCursor string
	RequestID  string
}

// Category returns the category with that name.
func (t *Taxonomy) Category(name string) (TaxonomyCategory, bool) {
	for _, c := range t.Categories {
		if c.Name == name {
			return c, true
		}
	}
	return TaxonomyCategory{}, false
}

// Identity kinds.
const (
	IdentityLocal   = "local"
	IdentityCognito = "cognito"
)

// Session is a dashboard sign-in session; pass Token to WithSessionToken.
type Session struct {
	Token     string
	ExpiresAt time.Time
	// Identity is the kind of identity that issued it (IdentityLocal, IdentityCognito).
	Identity string
}

// Upload is a two-step upload: CreateUpload signs it, SendUpload sends the
// file to URL (storage, not the API), CreateTranscriptionFromUpload turns it
// into a job. Filename and Size are what CreateUpload was given.
type Upload struct {
	PresignedUpload
	Filename string `json:"-"`
	Size     int64  `json:"-"`
}
