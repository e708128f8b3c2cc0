// Package jobs is the use-case layer of the service: every decision about jobs,
// uploads, quota, derived jobs and accounts is made here, once, and every entry
// point calls it. The HTTP handlers (the v1 API and the dashboard's session
// routes) only authenticate, decode, call a Service method and encode; the
// pipeline worker changes job state through the same Service. The Service talks
// only to the ports of package callscribe, so it runs unchanged on the embedded
// stack (SQLite, disk, in-process queue) and on AWS (DynamoDB, S3, SQS).
//
// What lives here and nowhere else:
//   - the order of writes when a transcription is accepted (audio first, then
//     the job with its quota reservation in one atomic store call, then the
//     queue message), the clean-up of a refused upload, and submit-then-mark-
//     failed when the queue refuses (SubmitTranscription, Derive);
//   - the checks of a derived job's source, in the spec's order (Derive);
//   - ownership: a job of another account is FORBIDDEN, an absent one
//     JOB_NOT_FOUND (Get, Delete, Derive);
//   - the two-step upload's staging keys and consumption (CreateUpload);
//   - the quota figures (Usage), page sizes (List), sign-up rules (Signup);
//   - which queue message kind re-runs an unfinished job (RequeueUnfinished).
//
// The rules that the stores must apply inside their atomic writes (the quota
// check, a transition's effect, filter matching) are domain functions in
// package callscribe, so each store only translates them; so are the job
// state machine (states.go), whose transitions every status write here is
// built from, and the retry policy (retrypolicy.go).
package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Limits the service enforces.
const (
	// MaxAudioBytes is the spec's 10 MB upload limit, read as 10 MiB.
	MaxAudioBytes = 10 << 20
	// MaxMetadataBytes, MaxMetadataDepth and MaxMetadataKeys bound the
	// metadata JSON object of an upload: its size as sent, how deeply objects
	// and arrays nest in it (the object itself is depth 1), and how many keys
	// its objects hold in all. Generous for what metadata is for (a CRM id,
	// an agent, a campaign, a few nested records: AssemblyAI and Deepgram take
	// a flat handful of pairs), while every client's JSON decoder can read
	// the job back (Python's json stops near depth 1000, Go's at 10000).
	MaxMetadataBytes = 64 << 10
	MaxMetadataDepth = 32
	MaxMetadataKeys  = 512
	// MaxKeyterms, MaxKeytermChars and MaxKeytermWords are the per-job
	// vocabulary's rules (keyterms.go): at most 100 terms, each 1 to 50
	// characters and at most 6 words once trimmed. MaxKeytermsBytes bounds
	// the field as sent (100 terms of 50 characters, escaped, fit well).
	MaxKeyterms      = 100
	MaxKeytermChars  = 50
	MaxKeytermWords  = 6
	MaxKeytermsBytes = 64 << 10
	// DefaultPageSize and MaxPageSize are the spec's listing page sizes.
	DefaultPageSize = 10
	MaxPageSize     = 100
)

// Config holds the service's settings.
type Config struct {
	// QuotaMinutes is the monthly transcription allowance per account.
	QuotaMinutes float64
	// CallbackAllowHosts lets callbacks reach these hosts over plain http and on
	// non-public addresses (CALLBACK_ALLOW_HOSTS).
	CallbackAllowHosts []string
	// APIKeyCacheTTL is how long an authenticated key is kept in process
	// (keycache.go); 0 means DefaultAPIKeyCacheTTL, a negative value turns the
	// cache off.
	APIKeyCacheTTL time.Duration
	// RedactPII is redact_pii's value when a request leaves it out
	// (REDACT_PII, default false).
	RedactPII bool
}

// Deps are the ports the service uses. Uploads and AudioLinks are nil where
// two-step uploads or audio playback links are not offered.
type Deps struct {
	Jobs       callscribe.JobStore
	Accounts   callscribe.AccountStore
	Audio      callscribe.AudioStore
	Queue      callscribe.Queue
	Uploads    callscribe.UploadSigner
	AudioLinks callscribe.AudioLinker
	// Idempotency keeps the answers of creates sent with an Idempotency-Key
	// (idempotency.go); nil where the header is ignored.
	Idempotency callscribe.IdempotencyStore
	Logger      *slog.Logger
	Now         func() time.Time
	NewID       func() string
}

// Service is the use-case layer; see the package doc.
type Service struct {
	deps   Deps
	cfg    Config
	keys   *keyCache
	signIn *signInGuard

	passwordChecks atomic.Int64 // sign-in password-hash checks (checkPassword)
}

// New builds the service. Logger, Now and NewID default to slog's default
// logger, the wall clock and random UUIDs.
func New(deps Deps, cfg Config) *Service {
	if deps.Logger == nil {
		deps.Logger = slog.Default()
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.NewID == nil {
		deps.NewID = uuid.NewString
	}
	if cfg.APIKeyCacheTTL == 0 {
		cfg.APIKeyCacheTTL = DefaultAPIKeyCacheTTL
	}
	s := &Service{deps: deps, cfg: cfg, keys: newKeyCache(cfg.APIKeyCacheTTL)}
	s.signIn = newSignInGuard(s.now)
	return s
}

// now is the service's clock: UTC, truncated to the millisecond precision the
// API reports, so a created_at read back compares equal to the stored one.
func (s *Service) now() time.Time { return s.deps.Now().UTC().Truncate(time.Millisecond) }

// logger is the service's logger with the requestId of ctx on every line.
func (s *Service) logger(ctx context.Context) *slog.Logger {
	return s.deps.Logger.With("requestId", callscribe.RequestID(ctx))
}

// limitSeconds is the monthly allowance in seconds.
func (s *Service) limitSeconds() float64 { return s.cfg.QuotaMinutes * 60 }

// Get returns a job the account owns: JOB_NOT_FOUND when absent (or the id is
// not a UUID), FORBIDDEN when another account's.
func (s *Service) Get(ctx context.Context, accountID, jobID string) (*callscribe.Job, error) {
	if _, err := uuid.Parse(jobID); err != nil {
		return nil, callscribe.Errorf(callscribe.CodeJobNotFound, "No job with id %q.", truncate(jobID, 64))
	}
	job, err := s.deps.Jobs.GetJob(ctx, jobID)
	if err != nil {
		if callscribe.IsCode(err, callscribe.CodeJobNotFound) {
			return nil, callscribe.Errorf(callscribe.CodeJobNotFound, "No job with id %s.", jobID)
		}
		return nil, err
	}
	if job.AccountID != accountID {
		return nil, callscribe.Errorf(callscribe.CodeForbidden, "Job %s belongs to another account.", jobID)
	}
	return job, nil
}

// Delete removes a job the account owns: its audio at once, then the record
// (hidden from reads and listings at once, purged after the retention period).
func (s *Service) Delete(ctx context.Context, accountID, jobID string) (*callscribe.Job, error) {
	job, err := s.Get(ctx, accountID, jobID)
	if err != nil {
		return nil, err
	}
	// Audio goes first and at once; if removing the record then fails, a retry
	// of the delete finishes the job (deleting absent audio is not an error).
	if job.AudioKey != "" {
		if err := s.deps.Audio.DeleteAudio(ctx, job.AudioKey); err != nil {
			return nil, err
		}
	}
	// A redacted MP3 job deleted while its attempt was between storing the
	// rendition and succeeding still names the MP3; its rendition goes too.
	if job.RedactPII && job.AudioFormat == callscribe.FormatMP3 {
		if err := s.deps.Audio.DeleteAudio(ctx, RenditionKey(job.AudioKey)); err != nil {
			return nil, err
		}
	}
	if err := s.deps.Jobs.DeleteJob(ctx, job.ID, s.now()); err != nil {
		return nil, err
	}
	return job, nil
}

// List returns one page of the account's jobs, newest first. A zero Limit is
// the default page size; larger than the maximum is capped, as the spec says.
func (s *Service) List(ctx context.Context, req callscribe.ListRequest) (*callscribe.JobPage, error) {
	switch {
	case req.Limit <= 0:
		req.Limit = DefaultPageSize
	case req.Limit > MaxPageSize:
		req.Limit = MaxPageSize
	}
	return s.deps.Jobs.ListJobs(ctx, req)
}

// Usage is an account's quota state for the current month.
type Usage struct {
	LimitSeconds float64
	UsedSeconds  float64
}

// RemainingSeconds never goes below zero.
func (u Usage) RemainingSeconds() float64 { return max(0, u.LimitSeconds-u.UsedSeconds) }

// Usage returns the quota state enforced at upload: the same month key and
// limit SubmitTranscription reserves against.
func (s *Service) Usage(ctx context.Context, accountID string) (Usage, error) {
	used, err := s.deps.Jobs.UsedSeconds(ctx, accountID, callscribe.QuotaMonth(s.now()))
	if err != nil {
		return Usage{}, err
	}
	return Usage{LimitSeconds: s.limitSeconds(), UsedSeconds: used}, nil
}

// truncate bounds caller-supplied text echoed in an error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Transcript returns the result of a transcription the account owns, for
// exports: a summary or tags job has no transcript (NOT_A_TRANSCRIPTION), and
// one that has not succeeded has none yet, or never will
// (TRANSCRIPTION_NOT_READY, saying which).
func (s *Service) Transcript(ctx context.Context, accountID, jobID string) (*callscribe.TranscriptionResult, error) {
	job, err := s.Get(ctx, accountID, jobID)
	if err != nil {
		return nil, err
	}
	if job.Type.OrDefault() != callscribe.TypeTranscription {
		return nil, callscribe.Errorf(callscribe.CodeNotATranscription, "Job %s is a %s job; only transcriptions have a transcript to export.", jobID, job.Type)
	}
	switch job.Status {
	case callscribe.StatusSucceeded:
	case callscribe.StatusFailed:
		return nil, callscribe.Errorf(callscribe.CodeTranscriptionNotReady, "Transcription %s failed; it has no transcript to export.", jobID)
	default:
		return nil, callscribe.Errorf(callscribe.CodeTranscriptionNotReady, "Transcription %s is %s; retry once it has succeeded.", jobID, job.Status)
	}
	var result callscribe.TranscriptionResult
	if err := json.Unmarshal(job.Result, &result); err != nil {
		return nil, err
	}
	if result.Transcript == nil {
		result.Transcript = []callscribe.Segment{}
	}
	return &result, nil
}
