package callscribe

import (
	"encoding/json"
	"strings"
	"time"
)

// JobType tells which endpoint produced a job; all types are read through the same endpoints.
type JobType string

const (
	TypeTranscription JobType = "transcription"
	TypeSummary       JobType = "summary"
	TypeTags          JobType = "tags"
)

// ParseJobType accepts exactly the three spec values.
func ParseJobType(s string) (JobType, bool) {
	switch t := JobType(s); t {
	case TypeTranscription, TypeSummary, TypeTags:
		return t, true
	}
	return "", false
}

// OrDefault maps the missing type of rows written before the field existed to
// transcription, as the spec's versioning rule says.
func (t JobType) OrDefault() JobType {
	if t == "" {
		return TypeTranscription
	}
	return t
}

// Derived reports whether jobs of this type derive from a transcript.
func (t JobType) Derived() bool { return t == TypeSummary || t == TypeTags }

// JobStatus is the lifecycle state of a job.
type JobStatus string

const (
	StatusQueued     JobStatus = "queued"
	StatusProcessing JobStatus = "processing"
	StatusSucceeded  JobStatus = "succeeded"
	StatusFailed     JobStatus = "failed"
)

// ParseJobStatus accepts exactly the four spec values.
func ParseJobStatus(s string) (JobStatus, bool) {
	switch st := JobStatus(s); st {
	case StatusQueued, StatusProcessing, StatusSucceeded, StatusFailed:
		return st, true
	}
	return "", false
}

// Job error codes (lower_snake_case, like the spec's `bad_audio`), reported in a
// failed job's `error.code`.
const (
	JobErrBadAudio            = "bad_audio"
	JobErrUnsupportedLanguage = "unsupported_language"
	JobErrProviderError       = "provider_error"
	JobErrSubmitFailed        = "submit_failed"
	JobErrInternal            = "internal_error"
	// JobErrResultTooLarge: the result is larger than the store can hold (the
	// AWS stack's job items are capped at 400 KB; see package dynamodb).
	JobErrResultTooLarge = "result_too_large"
)

// JobError is the `error` block of a failed job. It is also an error value: an
// engine returns one to fail a job permanently with that code; any other error is
// treated as transient and retried.
type JobError struct {
	Code          string         `json:"code"`
	Message       string         `json:"message"`
	ProviderError *ProviderError `json:"provider_error,omitempty"`
}

func (e *JobError) Error() string { return e.Code + ": " + e.Message }

// ProviderError is the nested error reported by an underlying provider.
type ProviderError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ProviderFailure fails a job with provider_error, carrying the provider's own
// code and message (e.g. ThrottlingException, malformed_content) so a failed
// job says why; the top-level message stays generic.
func ProviderFailure(code, message string) *JobError {
	return &JobError{
		Code:          JobErrProviderError,
		Message:       "The provider could not process the request.",
		ProviderError: &ProviderError{Code: code, Message: message},
	}
}

// AudioFormat is decided from the file's content, never its name.
type AudioFormat string

const (
	FormatWAV AudioFormat = "wav"
	FormatMP3 AudioFormat = "mp3"
)

// StoredAudio is where a job's recording is in the AudioStore, and its
// format: Job.AudioKey and Job.AudioFormat, moved together when PII
// redaction replaces an MP3 upload with a toned WAV rendition.
type StoredAudio struct {
	Key    string
	Format AudioFormat
}

// Job is one unit of asynchronous work of any type.
type Job struct {
	ID        string
	AccountID string
	Type      JobType
	Status    JobStatus
	// SourceJobID is the transcription a derived job was made from; "" when the job
	// is a transcription or was made from plain text.
	SourceJobID string
	// OriginalFilename is nil until an upload is attached.
	OriginalFilename *string
	// Language is the requested or detected language; "" when unknown.
	Language     string
	AudioSeconds float64
	AudioKey     string
	AudioFormat  AudioFormat
	// Metadata is the caller's JSON object from the upload, echoed back on reads.
	Metadata json.RawMessage
	// Keyterms is the transcription's per-job vocabulary (the upload's
	// keyterms field, validated and de-duplicated); nil for none.
	Keyterms []string
	// RedactPII is the transcription's redact_pii: personal data is replaced
	// in its transcript and toned out of its audio before it succeeds
	// (package redact).
	RedactPII bool
	// Input is what a derived job works on, copied at creation so that deleting the
	// source transcription later cannot break it.
	Input *Transcript
	// Callback is where a tags job's result is delivered; nil for none.
	Callback *Callback
	Result   json.RawMessage
	Error    *JobError
	// QuotaMonth is the UTC month ("2006-01") whose quota holds AudioSeconds; "" when
	// the job holds no quota (derived jobs).
	QuotaMonth string
	// Attempts counts how often a worker started this job.
	Attempts  int
	CreatedAt time.Time
	UpdatedAt time.Time
	// Matches are where a job listed by a search matched (SearchQuery.Confirm);
	// nil outside a search listing.
	Matches []SearchMatch
}

// TranscriptionResult is the `result` of a transcription job.
type TranscriptionResult struct {
	Language        *string   `json:"language"`
	DurationSeconds float64   `json:"duration_seconds"`
	WordsCount      *int      `json:"words_count"`
	Transcript      []Segment `json:"transcript"`
	// MetaData says what the engine did with the job's extras; omitted when
	// there were none (a job without keyterms).
	MetaData *TranscriptionMetaData `json:"meta_data,omitempty"`
	// Metrics are the conversation figures computed from Transcript when the
	// job succeeds (package callmetrics); nil on results stored before them.
	Metrics *CallMetrics `json:"metrics,omitempty"`
	// Sentiment is each speaker's sentiment over the call, from the
	// segments' sentiments; nil on results stored before it.
	Sentiment *CallSentiment `json:"sentiment,omitempty"`
	// Redaction counts what PII redaction replaced; nil when the job did
	// not ask for it.
	Redaction *Redaction `json:"redaction,omitempty"`
}

// Redaction is the `redaction` object of a result: how many items of each
// category (card, phone, email, number) were replaced, never their values.
type Redaction struct {
	Categories map[string]int `json:"categories"`
	// Audio says what became of the recording: "toned" (the redacted spans
	// are a tone), "deleted" (a recording that cannot be rewritten in place,
	// MP3, was removed) or "unchanged" (nothing was redacted, or the job has
	// no audio).
	Audio string `json:"audio,omitempty"`
}

// Redaction.Audio values.
const (
	RedactionAudioToned     = "toned"
	RedactionAudioDeleted   = "deleted"
	RedactionAudioUnchanged = "unchanged"
)

// Sentiment labels. A segment is positive, neutral or negative; a speaker's
// whole call may also be mixed (strong turns of both signs).
const (
	SentimentPositive = "positive"
	SentimentNeutral  = "neutral"
	SentimentNegative = "negative"
	SentimentMixed    = "mixed"
)

// Sentiment trends over a call (SpeakerSentiment.Trend).
const (
	TrendImproving = "improving"
	TrendSteady    = "steady"
	TrendWorsening = "worsening"
)

// SegmentSentiment is one segment's sentiment.
type SegmentSentiment struct {
	// Label is positive, neutral or negative.
	Label string `json:"label"`
	// Score is the signed polarity in [-1, 1]: negative below 0, positive above.
	Score float64 `json:"score"`
}

// CallSentiment is the `sentiment` object of a transcription result.
type CallSentiment struct {
	// Speakers holds one entry per speaker who talked, by speaker_id.
	Speakers []SpeakerSentiment `json:"speakers"`
}

// SpeakerSentiment is one speaker's sentiment over the call.
type SpeakerSentiment struct {
	SpeakerID    int    `json:"speaker_id"`
	SpeakerAlias string `json:"speaker_alias"`
	// Label is the call-level label the documented rule gives this speaker's
	// turns (for the User it is the customer_sentiment tag's value).
	Label string `json:"label"`
	// Score is the speaker's call-level polarity in [-1, 1].
	Score float64 `json:"score"`
	// Quarters are the call's four equal quarters of time, in order.
	Quarters []QuarterSentiment `json:"quarters"`
	// Trend compares the speaker's late turns with the early ones.
	Trend string `json:"trend"`
}

// QuarterSentiment is a speaker's sentiment in one quarter of the call.
type QuarterSentiment struct {
	Quarter   int     `json:"quarter"`
	TimeStart float64 `json:"time_start"`
	TimeEnd   float64 `json:"time_end"`
	// Score and Label are nil when the speaker said nothing in the quarter.
	Score *float64 `json:"score"`
	Label *string  `json:"label"`
}

// CallMetrics is the `metrics` object of a transcription result: how the call's
// talk was shared and timed. The definitions are callmetrics' package doc.
type CallMetrics struct {
	// Speakers holds one entry per speaker who talked, by speaker_id.
	Speakers              []SpeakerMetrics `json:"speakers"`
	NonTalkSeconds        float64          `json:"non_talk_seconds"`
	LongestSilenceSeconds float64          `json:"longest_silence_seconds"`
	OvertalkSeconds       float64          `json:"overtalk_seconds"`
	OvertalkCount         int              `json:"overtalk_count"`
	// AgentMedianResponseSeconds is nil when no User turn got an Agent answer
	// within the cap (mono audio, one-sided calls).
	AgentMedianResponseSeconds *float64 `json:"agent_median_response_seconds"`
}

// SpeakerMetrics are one speaker's figures in CallMetrics.
type SpeakerMetrics struct {
	SpeakerID               int     `json:"speaker_id"`
	SpeakerAlias            string  `json:"speaker_alias"`
	TalkSeconds             float64 `json:"talk_seconds"`
	TalkShare               float64 `json:"talk_share"`
	WordsPerMinute          float64 `json:"words_per_minute"`
	Turns                   int     `json:"turns"`
	LongestMonologueSeconds float64 `json:"longest_monologue_seconds"`
	// Interruptions counts the times this speaker cut in on the other.
	Interruptions int `json:"interruptions"`
}

// TranscriptionMetaData is the `meta_data` object of a transcription result.
type TranscriptionMetaData struct {
	Keyterms *KeytermsReport `json:"keyterms,omitempty"`
}

// How an engine used a job's keyterms (KeytermsReport.Method).
const (
	// KeytermsLanguageModel: the terms were boosted in the engine's language
	// model for this job only (the embedded engine).
	KeytermsLanguageModel = "language_model"
	// KeytermsPrompt: the terms were sent as the model's prompt (Whisper).
	KeytermsPrompt = "prompt"
	// KeytermsEcho: the deterministic test engine, which only reports them.
	KeytermsEcho = "echo"
	// KeytermsNotSupported: the engine cannot use them; nothing was applied.
	KeytermsNotSupported = "not_supported"
)

// KeytermsReport tells the caller what became of a job's keyterms, so no
// term is dropped silently.
type KeytermsReport struct {
	Method string `json:"method"`
	// Applied are the terms (as sent) the engine used, in whole or in part.
	Applied []string `json:"applied"`
	// UnknownWords are the terms' words the engine's pronouncing dictionary
	// lacks (lower case); they could not be boosted.
	UnknownWords []string `json:"unknown_words"`
	// Note explains a method in a sentence (e.g. why nothing was applied).
	Note string `json:"note,omitempty"`
}

// NewKeytermsReport returns a report with empty (not null) lists.
func NewKeytermsReport(method string) *KeytermsReport {
	return &KeytermsReport{Method: method, Applied: []string{}, UnknownWords: []string{}}
}

// KeytermsNotApplied is the meta_data of an engine that cannot use keyterms;
// nil when the job had none.
func KeytermsNotApplied(keyterms []string, note string) *TranscriptionMetaData {
	if len(keyterms) == 0 {
		return nil
	}
	r := NewKeytermsReport(KeytermsNotSupported)
	r.Note = note
	return &TranscriptionMetaData{Keyterms: r}
}

// Segment is one speaker-attributed utterance.
type Segment struct {
	Text         string  `json:"text"`
	TimeStart    float64 `json:"time_start"`
	TimeEnd      float64 `json:"time_end"`
	SpeakerID    int     `json:"speaker_id"`
	SpeakerAlias string  `json:"speaker_alias"`
	// Confidence is the mean of Words' confidences; nil when the engine gives
	// none.
	Confidence *float64 `json:"confidence,omitempty"`
	// Words are the segment's words in order, exactly the words of Text; empty
	// when the engine gives no word timings.
	Words []Word `json:"words,omitempty"`
	// Sentiment is the segment's sentiment; nil when none was computed (no
	// words, or a result stored before sentiment existed).
	Sentiment *SegmentSentiment `json:"sentiment,omitempty"`
}

// Word is one recognised word of a segment, timed in seconds on the call's
// timeline (within the segment's TimeStart..TimeEnd).
type Word struct {
	Text  string  `json:"text"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	// Confidence is in [0, 1]; nil when the engine gives none. Engines' scales
	// are not calibrated against each other.
	Confidence *float64 `json:"confidence"`
}

// MeanConfidence is the mean of the words' confidences, over the words that
// have one; nil when none has.
func MeanConfidence(words []Word) *float64 {
	var sum float64
	n := 0
	for _, w := range words {
		if w.Confidence != nil {
			sum += *w.Confidence
			n++
		}
	}
	if n == 0 {
		return nil
	}
	mean := sum / float64(n)
	return &mean
}

// Speaker aliases in use.
const (
	AliasAgent = "Agent"
	AliasUser  = "User"
)

// HasSpeech reports whether any segment carries words.
func (r *TranscriptionResult) HasSpeech() bool {
	for _, s := range r.Transcript {
		if strings.TrimSpace(s.Text) != "" {
			return true
		}
	}
	return false
}

// SummaryResult is the `result` of a summary job.
type SummaryResult struct {
	Topic    *string        `json:"topic"`
	Summary  string         `json:"summary"`
	MetaData map[string]any `json:"meta_data"`
	// Redaction counts what was redacted from the job's input; nil when
	// the job did not ask for redaction.
	Redaction *Redaction `json:"redaction,omitempty"`
}

// TagsResult is the `result` of a tags job: category -> selected values.
type TagsResult struct {
	Tags     map[string][]string `json:"tags"`
	MetaData map[string]any      `json:"meta_data"`
	// Redaction is as SummaryResult's.
	Redaction *Redaction `json:"redaction,omitempty"`
}

// Transcript is the input of a derived job: the segments of a finished
// transcription, or plain text supplied by the caller (which may carry
// "Agent:"/"User:" line prefixes).
type Transcript struct {
	Segments []Segment `json:"segments,omitempty"`
	Text     string    `json:"text,omitempty"`
}

// Callback is where and how a tags job's result is delivered (tagDelivered).
type Callback struct {
	URL      string `json:"url"`
	APIKey   string `json:"apikey,omitempty"`
	CallUUID string `json:"call_uuid"`
}

// JobFilter narrows a listing; zero fields do not filter. Filters combine with AND.
type JobFilter struct {
	Status       JobStatus
	Type         JobType
	Language     string
	CreatedAfter *time.Time
	JobID        string
	// SourceJobID lists the derived jobs (summaries, tags) made from that
	// transcription.
	SourceJobID string
	// Search lists the jobs whose text matches a query (search.go); nil for
	// no search.
	Search *SearchQuery
}

// FilterField names one of the equality filters a store keeps an index for
// (status, type, language, source job); "" means none.
type FilterField string

const (
	FilterNone     FilterField = ""
	FilterStatus   FilterField = "status"
	FilterType     FilterField = "type"
	FilterLanguage FilterField = "language"
	FilterSource   FilterField = "source_job_id"
)

// Position is where a listing page ends: the (created_at, job_id) of its last job.
// Listings are ordered newest first by (created_at DESC, job_id DESC).
type Position struct {
	CreatedAt time.Time
	JobID     string
}

// ListRequest asks for one page of an account's jobs.
type ListRequest struct {
	AccountID string
	Filter    JobFilter
	After     *Position // nil for the first page
	Limit     int
}

// JobPage is one page of a listing; Next is nil on the last page.
type JobPage struct {
	Jobs []*Job
	Next *Position
}

// QuotaReservation asks CreateJob to reserve the job's AudioSeconds against the
// account's month atomically with storing the job.
type QuotaReservation struct {
	Month        string // "2006-01", UTC
	LimitSeconds float64
}

// QuotaMonth returns the UTC calendar month key of t.
func QuotaMonth(t time.Time) string { return t.UTC().Format("2006-01") }

// SpeakerAlias returns the display alias of an audio channel: the channel given by
// agentChannel (AGENT_CHANNEL, default 0) is the Agent, any other is the User.
// Mono audio has only channel 0.
func SpeakerAlias(channel, agentChannel int) string {
	if channel == agentChannel {
		return AliasAgent
	}
	return AliasUser
}

// Pending is returned by an asynchronous provider (Amazon Transcribe) whose work
// is still running: the pipeline re-checks after CheckAfter by a delayed queue
// message instead of holding a worker, and the check does not count as an attempt.
type Pending struct {
	CheckAfter time.Duration
}

func (p *Pending) Error() string {
	return "provider work still running; check again in " + p.CheckAfter.String()
}
