package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path"
	"regexp"
	"strings"

	"github.com/callscribe/callscribe/shared/audio/probe"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// TranscriptionRequest is an accepted upload, decoded by a handler. Exactly
// one of Audio and UploadID names the audio; Metadata and Language are the
// form fields as sent (validated here, so every entry point applies the same
// rules).
type TranscriptionRequest struct {
	AccountID string
	// Audio is the uploaded file, AudioSize its length in bytes (at most
	// MaxAudioBytes: the handler stops reading past it and answers
	// FILE_TOO_LARGE itself, so no more than the limit is ever held).
	Audio     io.ReadSeeker
	AudioSize int64
	// UploadID names a finished two-step upload, used when Audio is nil.
	UploadID string
	Filename string
	Language string
	// Metadata is the raw metadata field; "" or blank for none. It must be a
	// JSON object of at most MaxMetadataBytes.
	Metadata string
	// Keyterms is the raw keyterms field; "" or blank for none. It must be
	// a JSON array of strings that ParseKeyterms accepts.
	Keyterms string
	// RedactPII is the raw redact_pii field: "true", "false", or "" for the
	// deployment's default (Config.RedactPII).
	RedactPII string
}

// languageTag accepts BCP-47 / ISO 639 shaped tags such as "en", "en-US", "pt-BR".
var languageTag = regexp.MustCompile(`^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`)

// SubmitTranscription validates an upload, stores its audio, stores the job
// with its quota reservation (atomically) and submits it to the pipeline. The
// checks run in a fixed order, so the same bad upload always gets the same
// code: staged upload (UPLOAD_NOT_FOUND, FILE_TOO_LARGE), file present
// (AUDIO_FILE_MISSING), metadata (INVALID_METADATA_JSON), keyterms
// (INVALID_KEYTERMS), redact_pii (INVALID_REDACT_PII), language (INVALID_REQUEST), format and duration (415, AUDIO_DURATION_UNKNOWN), quota
// (QUOTA_EXCEEDED), submission (PROVIDER_SUBMIT_FAILED, with the job failed).
func (s *Service) SubmitTranscription(ctx context.Context, req TranscriptionRequest) (*callscribe.Job, error) {
	if job := s.earlierAttempt(ctx, req.AccountID); job != nil {
		return job, nil
	}
	audio, size := req.Audio, req.AudioSize
	if audio == nil && req.UploadID != "" {
		staged, err := s.takeUpload(ctx, req.AccountID, req.UploadID)
		if err != nil {
			return nil, err
		}
		defer staged.Close()
		audio, size = staged.Reader(), staged.Size
	}
	if audio == nil || size == 0 {
		return nil, callscribe.Errorf(callscribe.CodeAudioFileMissing, "No audio file was provided in the `file` field.")
	}
	metadata, err := parseMetadata(req.Metadata)
	if err != nil {
		return nil, err
	}
	keyterms, err := ParseKeyterms(req.Keyterms)
	if err != nil {
		return nil, err
	}
	redactPII, err := s.parseRedactPII(req.RedactPII)
	if err != nil {
		return nil, err
	}
	language := strings.TrimSpace(req.Language)
	if language != "" && !languageTag.MatchString(language) {
		return nil, callscribe.Errorf(callscribe.CodeInvalidRequest, "language must be a BCP-47 / ISO 639 tag such as \"en\" or \"en-US\".")
	}
	info, err := probe.Probe(audio, size)
	if err != nil {
		return nil, err
	}
	if _, err := audio.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	now := s.now()
	job := &callscribe.Job{
		ID:           s.newJobID(ctx, req.AccountID),
		AccountID:    req.AccountID,
		Type:         callscribe.TypeTranscription,
		Status:       callscribe.StatusQueued,
		Language:     language,
		AudioSeconds: info.DurationSeconds,
		AudioFormat:  info.Format,
		Metadata:     metadata,
		Keyterms:     keyterms,
		RedactPII:    redactPII,
		QuotaMonth:   callscribe.QuotaMonth(now),
		CreatedAt:    now,
		UpdatedAt:    now,
	}
	if req.Filename != "" {
		name := req.Filename
		job.OriginalFilename = &name
	}
	job.AudioKey = audioKey(req.AccountID, job.ID, info.Format)
	// Audio is stored before the job, so a stored job always has its audio.
	if err := s.deps.Audio.PutAudio(ctx, job.AudioKey, audio, size); err != nil {
		return nil, err
	}
	quota := &callscribe.QuotaReservation{Month: job.QuotaMonth, LimitSeconds: s.limitSeconds()}
	if err := s.deps.Jobs.CreateJob(ctx, job, quota); err != nil {
		if earlier := s.earlierAttempt(ctx, req.AccountID); earlier != nil && callscribe.IsCode(err, callscribe.CodeConflict) {
			return earlier, nil // its audio is the one just stored again: keep it
		}
		s.discardAudio(ctx, job.AudioKey)
		return nil, err
	}
	s.logger(ctx).InfoContext(ctx, "transcription accepted", "jobId", job.ID, "accountId", req.AccountID,
		"audioSeconds", job.AudioSeconds, "format", info.Format, "channels", info.Channels, "redactPii", job.RedactPII)
	if err := s.submit(ctx, job); err != nil {
		return nil, err
	}
	return job, nil
}

// audioKey is where a job's audio lives in the AudioStore.
func audioKey(accountID, jobID string, format callscribe.AudioFormat) string {
	return "audio/" + accountID + "/" + jobID + "." + string(format)
}

// RenditionKey is where PII redaction stores the toned WAV rendition of the
// MP3 under key: the same name with ".redacted.wav" for its extension
// ("audio/<account>/<job>.redacted.wav"), so playback serves it as audio/wav
// and a job's delete finds it from the upload's key alone.
func RenditionKey(key string) string {
	return strings.TrimSuffix(key, path.Ext(key)) + ".redacted.wav"
}

// parseMetadata accepts a JSON object within MaxMetadataBytes,
// MaxMetadataDepth and MaxMetadataKeys; blank is none. The message of a
// refusal names the bound it broke.
func parseMetadata(raw string) (json.RawMessage, error) {
	if len(raw) > MaxMetadataBytes {
		return nil, callscribe.Errorf(callscribe.CodeInvalidMetadataJSON, "metadata is larger than %d bytes.", MaxMetadataBytes)
	}
	trimmed := bytes.TrimSpace([]byte(raw))
	if len(trimmed) == 0 {
		return nil, nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, callscribe.Errorf(callscribe.CodeInvalidMetadataJSON, "metadata must be a JSON-encoded object (at most %d bytes).", MaxMetadataBytes)
	}
	depth, keys := metadataShape(trimmed)
	if depth > MaxMetadataDepth {
		return nil, callscribe.Errorf(callscribe.CodeInvalidMetadataJSON, "metadata nests objects and arrays more than %d levels deep.", MaxMetadataDepth)
	}
	if keys > MaxMetadataKeys {
		return nil, callscribe.Errorf(callscribe.CodeInvalidMetadataJSON, "metadata has more than %d keys in all.", MaxMetadataKeys)
	}
	// Stored compact, as encoding/json would send it: reads write the stored
	// bytes into the Job resource as they are.
	var compact bytes.Buffer
	if err := json.Compact(&compact, trimmed); err != nil {
		return nil, callscribe.Errorf(callscribe.CodeInvalidMetadataJSON, "metadata must be a JSON-encoded object (at most %d bytes).", MaxMetadataBytes)
	}
	return json.RawMessage(compact.Bytes()), nil
}

// metadataShape returns the deepest nesting of objects and arrays in a valid
// JSON text and the number of object keys in it: in valid JSON every colon
// outside a string follows a key, so one pass over the bytes counts both.
func metadataShape(doc []byte) (depth, keys int) {
	level, inString, escaped := 0, false, false
	for _, c := range doc {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			level++
			depth = max(depth, level)
		case '}', ']':
			level--
		case ':':
			keys++
		}
	}
	return depth, keys
}

// submit enqueues the job's work. When the queue refuses, the stored job is
// marked failed (releasing its minutes) and the caller gets 502
// PROVIDER_SUBMIT_FAILED naming the job.
func (s *Service) submit(ctx context.Context, job *callscribe.Job) error {
	// The message carries the requestId, so worker log lines trace back to the call.
	err := s.deps.Queue.Enqueue(ctx, callscribe.Message{Kind: callscribe.WorkKind(job.Type), JobID: job.ID, RequestID: callscribe.RequestID(ctx)})
	if err == nil {
		return nil
	}
	log := s.logger(ctx).With("jobId", job.ID)
	log.ErrorContext(ctx, "submitting job to the pipeline failed", "err", err)
	// The request's context may be why submission failed; the job must still be marked.
	t := callscribe.TransitionFailSubmission.For(job.ID, s.now())
	t.Error = &callscribe.JobError{Code: callscribe.JobErrSubmitFailed, Message: "The job could not be submitted to the processing pipeline."}
	_, ferr := s.deps.Jobs.TransitionJob(context.WithoutCancel(ctx), t)
	if ferr != nil {
		log.ErrorContext(ctx, "marking unsubmitted job failed", "err", ferr)
	}
	return &callscribe.Error{Code: callscribe.CodeProviderSubmitFailed, Message: "The job was stored but could not be submitted for processing; it has been marked failed.", Details: map[string]any{"job_id": job.ID}}
}

func (s *Service) discardAudio(ctx context.Context, key string) {
	if err := s.deps.Audio.DeleteAudio(context.WithoutCancel(ctx), key); err != nil {
		s.logger(ctx).WarnContext(ctx, "removing audio of a refused upload failed", "key", key, "err", err)
	}
}

// FileTooLarge is the 413 of an upload over the 10 MB limit.
func FileTooLarge() error {
	return callscribe.Errorf(callscribe.CodeFileTooLarge, "The file is larger than the 10 MB (%d bytes) limit.", MaxAudioBytes)
}
