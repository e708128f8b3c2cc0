package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Job types.
const (
	TypeTranscription = "transcription"
	TypeSummary       = "summary"
	TypeTags          = "tags"
)

// Job statuses. Succeeded and failed are terminal.
const (
	StatusQueued     = "queued"
	StatusProcessing = "processing"
	StatusSucceeded  = "succeeded"
	StatusFailed     = "failed"
)

// CreatedJob is the 202 answer of a create (transcription, summary, tags).
// Status is the initial status (queued or processing); ReceivedAt is when the
// service stored the job. The transcription create's answer carries no type:
// the client fills in TypeTranscription.
type CreatedJob struct {
	ID         string    `json:"job_id"`
	Type       string    `json:"type,omitempty"`
	Status     string    `json:"status"`
	ReceivedAt time.Time `json:"received_at"`
	RequestID  string    `json:"requestId"`
}

// Job is a job of any type as GET /v1/transcriptions/{job_id} returns it.
// Result is present only when Status is succeeded and Error only when it is
// failed; read Result through Transcription, Summary or Tags. SourceJobID is
// set only on summary and tags jobs. Metadata is the metadata object given at
// creation, when there was one; Keyterms the transcription's keyterms as
// stored (trimmed, duplicates folded), when it had some. A job without a type (created before the field
// existed) has Type transcription, as the spec says.
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

// Done reports whether the job reached a terminal status (succeeded or failed).
func (j *Job) Done() bool { return j.Status == StatusSucceeded || j.Status == StatusFailed }

// JobError is the error block of a failed job.
type JobError struct {
	Code          string         `json:"code"`
	Message       string         `json:"message"`
	ProviderError *ProviderError `json:"provider_error,omitempty"`
}

// ProviderError is the underlying provider's code and message, when known.
type ProviderError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

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

// TranscriptionResult is the result of a transcription job. Language and
// WordsCount are nil when unavailable.
type TranscriptionResult struct {
	Language        *string   `json:"language"`
	DurationSeconds float64   `json:"duration_seconds"`
	WordsCount      *int      `json:"words_count"`
	Transcript      []Segment `json:"transcript"`
	// MetaData is set when the job had keyterms: what the engine did with them.
	MetaData *TranscriptionMetaData `json:"meta_data,omitempty"`
}

// TranscriptionMetaData is a transcription result's meta_data.
type TranscriptionMetaData struct {
	Keyterms *KeytermsReport `json:"keyterms,omitempty"`
}

// KeytermsReport says what the engine did with a job's keyterms. Method is
// language_model (boosted by the embedded engine for this job), prompt (sent
// to a Whisper model), echo (the test engine) or not_supported (Note says
// why). Applied are the terms used, wholly or in part; UnknownWords the
// terms' words the engine's dictionary lacks (lower case), never boosted.
type KeytermsReport struct {
	Method       string   `json:"method"`
	Applied      []string `json:"applied"`
	UnknownWords []string `json:"unknown_words"`
	Note         string   `json:"note,omitempty"`
}

// Segment is one speaker-attributed stretch of the transcript (times in seconds).
type Segment struct {
	Text         string  `json:"text"`
	TimeStart    float64 `json:"time_start"`
	TimeEnd      float64 `json:"time_end"`
	SpeakerID    int     `json:"speaker_id"`
	SpeakerAlias string  `json:"speaker_alias"`
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

// SummaryResult is the result of a summary job. MetaData is the free-form
// object passed through from the pipeline (nil when null).
type SummaryResult struct {
	Topic    *string         `json:"topic"`
	Summary  string          `json:"summary"`
	MetaData json.RawMessage `json:"meta_data"`
}

// TagsResult is the result of a tags job: category name to selected values.
type TagsResult struct {
	Tags     map[string][]string `json:"tags"`
	MetaData json.RawMessage     `json:"meta_data"`
}

// JobSummary is one entry of a job listing. OriginalFilename and Language are
// nil when unknown; AudioSeconds is 0 for summary and tags jobs.
type JobSummary struct {
	ID               string    `json:"job_id"`
	Type             string    `json:"type"`
	Status           string    `json:"status"`
	OriginalFilename *string   `json:"original_filename"`
	Language         *string   `json:"language"`
	AudioSeconds     float64   `json:"audio_seconds"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
}

// JobPage is one page of a listing. NextCursor is empty on the last page.
type JobPage struct {
	Jobs       []JobSummary
	NextCursor string
	RequestID  string
}

// Taxonomy is the fixed tag taxonomy (GET /v1/tags/taxonomy).
type Taxonomy struct {
	Categories []TaxonomyCategory `json:"categories"`
	RequestID  string             `json:"requestId,omitempty"`
}

// TaxonomyCategory is one category: how many values a result carries and the
// allowed values.
type TaxonomyCategory struct {
	Name      string          `json:"name"`
	MinValues int             `json:"min_values"`
	MaxValues int             `json:"max_values"`
	Values    []TaxonomyValue `json:"values"`
}

// TaxonomyValue is one allowed value of a category.
type TaxonomyValue struct {
	Value       string `json:"value"`
	Description string `json:"description"`
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

// Usage is the account's transcription minute quota state.
type Usage struct {
	LimitMinutes     float64 `json:"limit_minutes"`
	UsedMinutes      float64 `json:"used_minutes"`
	RemainingMinutes float64 `json:"remaining_minutes"`
	RequestID        string  `json:"requestId,omitempty"`
}

// IdentityConfig says where dashboard users sign in (GET /dashboard/config):
// Kind "local" (the service's own /dashboard/login) or "cognito" (a Cognito
// user pool's InitiateAuth at Endpoint with the app client ClientID).
type IdentityConfig struct {
	Kind     string `json:"kind"`
	Region   string `json:"region,omitempty"`
	ClientID string `json:"client_id,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
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

// CreatedAPIKey is a new API key. Secret is shown only in this answer.
type CreatedAPIKey struct {
	ID        string    `json:"key_id"`
	Secret    string    `json:"api_key"`
	CreatedAt time.Time `json:"created_at"`
	RequestID string    `json:"requestId,omitempty"`
}

// APIKey is a key of the account as listed (without its secret).
type APIKey struct {
	ID         string     `json:"key_id"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
}

// Upload is a two-step upload: CreateUpload signs it, SendUpload sends the
// file to URL (storage, not the API), CreateTranscriptionFromUpload turns it
// into a job. Filename and Size are what CreateUpload was given.
type Upload struct {
	ID        string            `json:"upload_id"`
	URL       string            `json:"url"`
	Fields    map[string]string `json:"fields"`
	MaxBytes  int64             `json:"max_bytes"`
	ExpiresAt time.Time         `json:"expires_at"`
	RequestID string            `json:"requestId,omitempty"`
	Filename  string            `json:"-"`
	Size      int64             `json:"-"`
}

// Limits are the service's upload and listing limits (GET /dashboard/limits).
// DirectUploadMaxBytes is the largest file one create request carries in this
// deployment: a good WithDirectUploadMaxBytes.
type Limits struct {
	MaxAudioBytes        int64    `json:"max_audio_bytes"`
	DirectUploadMaxBytes int64    `json:"direct_upload_max_bytes"`
	AudioFormats         []string `json:"audio_formats"`
	MaxMetadataBytes     int64    `json:"max_metadata_bytes"`
	DefaultPageSize      int      `json:"default_page_size"`
	MaxPageSize          int      `json:"max_page_size"`
	RequestID            string   `json:"requestId,omitempty"`
}
