package callscribe

import (
	"context"
	"io"
	"time"
)

// JobStore keeps jobs and the per-account monthly quota. Every implementation
// passes the contract suite in package storetest.
type JobStore interface {
	// CreateJob stores a new job. With a non-nil quota it reserves job.AudioSeconds
	// in the account's month in the same atomic step, failing with a
	// QUOTA_EXCEEDED *Error (see QuotaExceeded) and storing nothing when the
	// reservation would push the month's used seconds past the limit. The same
	// step adds the seconds and one job to the account's day (UsageDay of
	// job.CreatedAt) under job.Language; see DailyUsage.
	CreateJob(ctx context.Context, job *Job, quota *QuotaReservation) error
	// GetJob returns a job; JOB_NOT_FOUND when it does not exist or was deleted.
	GetJob(ctx context.Context, id string) (*Job, error)
	// ListJobs returns one page of an account's live jobs, newest first, by an
	// index range scan starting after req.After. The jobs carry the listing
	// fields only (ID, AccountID, Type, Status, SourceJobID, OriginalFilename,
	// Language, AudioSeconds, CreatedAt, UpdatedAt); GetJob has the rest.
	ListJobs(ctx context.Context, req ListRequest) (*JobPage, error)
	// TransitionJob applies t atomically and returns the updated job. It fails with
	// CONFLICT when the job is deleted or not in one of t.From, and JOB_NOT_FOUND
	// when it does not exist. Moving a job that holds quota to failed releases its
	// seconds from its QuotaMonth, and the seconds and the job from its day and
	// language, in the same atomic step.
	TransitionJob(ctx context.Context, t Transition) (*Job, error)
	// DeleteJob hides a job from reads and listings at once and marks it for purge.
	// Quota it used stays used. JOB_NOT_FOUND when absent or already deleted.
	DeleteJob(ctx context.Context, id string, at time.Time) error
	// PurgeDeletedJobs removes the records of jobs deleted before the given time.
	PurgeDeletedJobs(ctx context.Context, deletedBefore time.Time) (int, error)
	// UsedSeconds returns the seconds reserved by an account's jobs in a month.
	UsedSeconds(ctx context.Context, accountID, month string) (float64, error)
	// DailyUsage returns an account's days from fromDay to toDay inclusive
	// ("2006-01-02", UTC) that have a record, oldest first. It reads the
	// per-day counters, never the jobs: a day's Seconds summed over a month
	// equal that month's UsedSeconds when QuotaMonth is the month of CreatedAt.
	DailyUsage(ctx context.Context, accountID, fromDay, toDay string) ([]DayUsage, error)
	// UnfinishedJobIDs returns ids of live jobs in queued or processing, oldest
	// first, so a restarted process can make sure each has a queue message.
	UnfinishedJobIDs(ctx context.Context, limit int) ([]string, error)
}

// Account is a dashboard user; API keys and jobs belong to it.
type Account struct {
	ID           string
	Email        string
	PasswordHash string
	CreatedAt    time.Time
}

// APIKey is stored only as the SHA-256 hash of the secret; Prefix is the first
// characters of the secret, shown so a user can tell keys apart.
type APIKey struct {
	ID         string
	AccountID  string
	Prefix     string
	Hash       string
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// AccountStore keeps accounts and API keys.
type AccountStore interface {
	// CreateAccount fails with EMAIL_TAKEN when the email (case-insensitive) exists.
	CreateAccount(ctx context.Context, a *Account) error
	// AccountByEmail returns NOT_FOUND for an unknown email.
	AccountByEmail(ctx context.Context, email string) (*Account, error)
	CreateAPIKey(ctx context.Context, k *APIKey) error
	// APIKeyByHash returns the live key with that hash; NOT_FOUND when unknown or revoked.
	APIKeyByHash(ctx context.Context, hash string) (*APIKey, error)
	// TouchAPIKey records a use of the key.
	TouchAPIKey(ctx context.Context, keyID string, at time.Time) error
	// ListAPIKeys returns an account's live keys, newest first.
	ListAPIKeys(ctx context.Context, accountID string) ([]*APIKey, error)
	// RevokeAPIKey makes the key unusable at once; NOT_FOUND when the account has no such live key.
	RevokeAPIKey(ctx context.Context, accountID, keyID string) error
}

// AudioStore keeps uploaded audio by key.
type AudioStore interface {
	// PutAudio stores size bytes read from r under key.
	PutAudio(ctx context.Context, key string, r io.ReadSeeker, size int64) error
	// OpenAudio returns the stored bytes; NOT_FOUND when absent.
	OpenAudio(ctx context.Context, key string) (io.ReadCloser, error)
	// DeleteAudio removes the object; deleting an absent key is not an error.
	DeleteAudio(ctx context.Context, key string) error
	// PutMarker stores an empty object under key only if none exists, atomically
	// and durably: of any number of calls for one key (concurrent, or across
	// restarts) exactly one succeeds, the others fail with CONFLICT. It records
	// that a staged upload was consumed (ConsumedUploadKey).
	PutMarker(ctx context.Context, key string) error
}

// ConsumedUploadKey is the marker recording that the staged upload under
// uploadKey became a job: it lives beside the upload, so whatever expires
// abandoned uploads (the bucket's lifecycle rule, the local purge) expires the
// markers too, by which time the upload's signed form has long expired.
func ConsumedUploadKey(uploadKey string) string { return uploadKey + ".consumed" }

// UploadSigner hands out presigned direct-to-storage uploads for files larger
// than one API request can carry (the two-step upload): S3's presigned POST on
// AWS, an HMAC-signed form served by the local process on the embedded stack.
type UploadSigner interface {
	// SignUpload returns where and how to POST the file.
	SignUpload(ctx context.Context, key string, maxBytes int64, expiry time.Duration) (url string, fields map[string]string, err error)
}

// AudioLinker hands out short-lived URLs that read one stored audio object,
// for players that cannot send credentials (a browser's <audio> element): a
// presigned S3 GET on AWS, an HMAC-signed link served by the local process on
// the embedded stack. Both answer HTTP Range requests.
type AudioLinker interface {
	AudioURL(ctx context.Context, key string, expiry time.Duration) (string, error)
}

// MessageKind names the work a queue message asks for.
type MessageKind string

const (
	// KindTranscribe runs a transcription job.
	KindTranscribe MessageKind = "transcribe"
	// KindDerive runs a summary or tags job.
	KindDerive MessageKind = "derive"
	// KindDeliverCallback makes one delivery attempt of a tags job's callback.
	KindDeliverCallback MessageKind = "deliver_callback"
)

// WorkKind is the message kind that runs a job of type t: transcriptions go to
// the speech pipeline, summaries and tags to the derived-job pipeline.
func WorkKind(t JobType) MessageKind {
	if t.OrDefault().Derived() {
		return KindDerive
	}
	return KindTranscribe
}

// Message is one unit of queued work. Queues deliver at least once; handlers are
// idempotent (guarded by compare-and-set status transitions).
type Message struct {
	Kind  MessageKind `json:"kind"`
	JobID string      `json:"job_id"`
	// Attempt is the 1-based delivery attempt for callbacks (each attempt is its
	// own message, so retries survive restarts).
	Attempt int `json:"attempt,omitempty"`
	// Recheck counts re-checks of an asynchronous provider's running work; such
	// deliveries resume the job rather than start a new attempt.
	Recheck int `json:"recheck,omitempty"`
	// CallbackMsgID is the tagDelivered msg_id, fixed across a message's retries.
	CallbackMsgID string `json:"callback_msg_id,omitempty"`
	// RequestID is the requestId of the API call that caused the work, so worker
	// log lines can be traced back to it.
	RequestID string `json:"request_id,omitempty"`
	// Delay postpones delivery.
	Delay time.Duration `json:"-"`
}

// Queue accepts work durably: once Enqueue returns nil the message survives a crash.
type Queue interface {
	Enqueue(ctx context.Context, m Message) error
}

// MessageHandler processes one message. A nil error acknowledges it; an error
// leaves it for redelivery.
type MessageHandler interface {
	HandleMessage(ctx context.Context, m Message) error
}

// TranscriptionRequest is what a speech engine gets for one job.
type TranscriptionRequest struct {
	JobID    string
	AudioKey string // key in the AudioStore, for providers that read storage directly
	Audio    []byte // the whole file (at most 10 MiB)
	Format   AudioFormat
	Language string // caller's hint; "" for none
	// Keyterms is the job's vocabulary (words or phrases to favour); nil for
	// none. An engine reports what it did with them in the result's
	// meta_data (KeytermsReport) and never drops them silently.
	Keyterms []string
	// RedactPII asks an engine with redaction of its own (Amazon
	// Transcribe) to use it, so the provider never writes the unredacted
	// transcript; it marks what it removed with package redact's tokens.
	// The pipeline redacts every engine's result either way.
	RedactPII bool
}

// Transcriber turns audio into a speaker-attributed transcript. Returning a
// *JobError fails the job with that code; other errors are retried.
type Transcriber interface {
	Transcribe(ctx context.Context, req TranscriptionRequest) (*TranscriptionResult, error)
}

// Summarizer produces a summary of a transcript (same error rule as Transcriber).
type Summarizer interface {
	Summarize(ctx context.Context, t Transcript) (*SummaryResult, error)
}

// Tagger selects taxonomy values for a transcript (same error rule as Transcriber).
type Tagger interface {
	Tag(ctx context.Context, t Transcript) (*TagsResult, error)
}

// SentimentScorer scores the sentiment of one turn's text (a segment). It is
// offline and cannot fail: nil for text without words. The transcription
// worker derives a result's sentiment from the segments' scores (package
// callsentiment).
type SentimentScorer interface {
	ScoreSentiment(text string) *SegmentSentiment
}

// CallbackDelivery is one tagDelivered message.
type CallbackDelivery struct {
	URL     string
	APIKey  string // sent as the `apikey` header when set
	Payload TagDeliveredPayload
	// WebhookID is the webhook-id header: the same on every attempt of one
	// delivery, so receivers can de-duplicate on it.
	WebhookID string
	// SigningSecrets sign the delivery (webhook-signature carries one
	// signature per secret); none sends it unsigned.
	SigningSecrets []string
}

// TagDeliveredPayload is the body of the tagDelivered event (callback contract 1.0.0).
type TagDeliveredPayload struct {
	Status   string           `json:"status"`
	CallUUID string           `json:"call_uuid"`
	Data     TagDeliveredData `json:"data"`
}

// TagDeliveredData is the `data` object of tagDelivered.
type TagDeliveredData struct {
	Tags      []TagDeliveredTags `json:"tags"`
	RequestID string             `json:"request_id"`
	MsgID     string             `json:"msg_id"`
}

// TagDeliveredTags is one item of data.tags.
type TagDeliveredTags struct {
	AgentApproach     []string `json:"agent_approach"`
	CallOutcome       []string `json:"call_outcome"`
	CustomerSentiment []string `json:"customer_sentiment"`
}

// Notifier makes one delivery attempt. A nil error means a 2xx was received;
// retries are the caller's business.
type Notifier interface {
	Deliver(ctx context.Context, d CallbackDelivery) error
}

// IdempotencyRecord is what the service remembers of a create sent with an
// Idempotency-Key: while it runs, the claim (Status 0); then its answer, so a
// retry with the same key gets the same answer instead of a second job.
type IdempotencyRecord struct {
	AccountID string
	Key       string
	// Fingerprint is a hash of the request (method, path and content): the
	// same key with a different request is refused, not answered with the
	// first request's answer.
	Fingerprint string
	// Token identifies one claim, so only its own request completes or
	// releases it (a claim taken over after LockedUntil is someone else's).
	Token string
	// Status and Body are the answer; Status is 0 while the request runs.
	Status int
	Body   []byte
	// LockedUntil ends an unanswered claim whose request died with its
	// process: after it, the key may be claimed again.
	LockedUntil time.Time
	// ExpiresAt ends the record; after it the key is free.
	ExpiresAt time.Time
}

// Completed reports whether the record holds an answer.
func (r *IdempotencyRecord) Completed() bool { return r.Status != 0 }

// IdempotencyStore keeps idempotency records per account and key. Every
// implementation passes the contract suite in package storetest.
type IdempotencyStore interface {
	// ClaimIdempotencyKey stores rec (unanswered) unless the account already
	// has a live record under rec.Key: an answered one not expired at now, or
	// an unanswered one locked past now. Then it stores nothing and returns
	// that record; a nil record means rec was stored.
	ClaimIdempotencyKey(ctx context.Context, rec *IdempotencyRecord, now time.Time) (*IdempotencyRecord, error)
	// CompleteIdempotencyKey stores the answer of the claim with token.
	// CONFLICT when the record no longer holds that claim.
	CompleteIdempotencyKey(ctx context.Context, accountID, key, token string, status int, body []byte) error
	// ReleaseIdempotencyKey removes the unanswered claim with token, so the
	// key can be used again; a record that no longer holds it is left alone.
	ReleaseIdempotencyKey(ctx context.Context, accountID, key, token string) error
	// PurgeExpiredIdempotencyKeys removes records that expired before the time.
	PurgeExpiredIdempotencyKeys(ctx context.Context, before time.Time) (int, error)
}

// SigningSecret is an account's webhook signing secret: every tagDelivered
// delivery of the account's jobs is signed with it (the Standard Webhooks
// scheme, package callback). After a rotation the previous secret keeps
// signing too until PreviousValidUntil, so a receiver can switch secrets
// without rejecting deliveries in between.
type SigningSecret struct {
	AccountID string
	// Secret is "whsec_" + base64 of the key bytes, as receivers configure it.
	Secret    string
	CreatedAt time.Time
	// Previous is the secret Secret replaced, "" when there is none.
	Previous           string
	PreviousValidUntil time.Time
}

// ActiveSecrets returns the secrets that sign a delivery made at now: the
// current one, then the previous one while its overlap lasts.
func (s *SigningSecret) ActiveSecrets(now time.Time) []string {
	if s.Previous != "" && now.Before(s.PreviousValidUntil) {
		return []string{s.Secret, s.Previous}
	}
	return []string{s.Secret}
}

// DeliveryOutcome is where a tagDelivered message stands after an attempt.
type DeliveryOutcome string

const (
	// DeliveryDelivered: the receiver answered 2xx; no more attempts.
	DeliveryDelivered DeliveryOutcome = "delivered"
	// DeliveryRetrying: the attempt failed and another is queued for NextAttemptAt.
	DeliveryRetrying DeliveryOutcome = "retrying"
	// DeliveryAbandoned: the attempt failed and no other follows (the last
	// attempt, or an address the guard refuses).
	DeliveryAbandoned DeliveryOutcome = "abandoned"
)

// DeliveryAttempt records one tagDelivered attempt of a tags job, from what
// the callback worker knows when the attempt ends. It never holds the URL's
// path or query, which may carry the receiver's secrets.
type DeliveryAttempt struct {
	JobID string
	// Attempt is the 1-based attempt number.
	Attempt int
	// WebhookID is the webhook-id header, the same on every attempt of a delivery.
	WebhookID string
	At        time.Time
	// Host is the callback URL's host (and port, when given).
	Host string
	// StatusCode is the receiver's HTTP status; 0 when none was received.
	StatusCode int
	// Error says why a failed attempt failed ("" when delivered).
	Error   string
	Outcome DeliveryOutcome
	// NextAttemptAt is when the next attempt is due; nil unless Outcome is retrying.
	NextAttemptAt *time.Time
}

// WebhookStore keeps accounts' signing secrets and the recent tagDelivered
// attempts of each job. Every implementation passes the contract suite in
// package storetest.
type WebhookStore interface {
	// SigningSecret returns the account's secret; NOT_FOUND when it has none.
	SigningSecret(ctx context.Context, accountID string) (*SigningSecret, error)
	// PutSigningSecret stores s as its account's secret, provided the stored
	// secret is replacing ("" meaning the account has none yet); otherwise it
	// stores nothing and fails with CONFLICT, so two concurrent creations or
	// rotations cannot both win.
	PutSigningSecret(ctx context.Context, s *SigningSecret, replacing string) error
	// RecordDelivery stores an attempt and keeps only the newest
	// MaxDeliveriesPerJob of its job. JOB_NOT_FOUND when the job does not
	// exist or is deleted. Recording the same (job, attempt, At) twice keeps one.
	RecordDelivery(ctx context.Context, d *DeliveryAttempt) error
	// Deliveries returns a job's recorded attempts, newest first; none for a
	// job that is deleted or does not exist. Purging a job removes them.
	Deliveries(ctx context.Context, jobID string) ([]*DeliveryAttempt, error)
}
