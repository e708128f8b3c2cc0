// Package awstranscribe implements callscribe.Transcriber on Amazon Transcribe
// batch jobs (aws-sdk-go-v2 service/transcribe), for TRANSCRIBER=aws-transcribe.
//
// # Asynchronous completion without a sleeping worker
//
// A Transcribe job takes from seconds to minutes. Transcribe never blocks: the
// first call starts the job and returns *callscribe.Pending; the pipeline then
// re-enqueues the same job as an SQS message with DelaySeconds = CheckAfter, and
// the next delivery calls Transcribe again, which looks the job up by its
// deterministic name. No Lambda waits, and the re-checks do not count as attempts.
//
// We chose this over an EventBridge "Transcribe Job State Change" rule because
// it needs no state of its own and no extra function or rule: the job name is
// derived from our job id, so any delivery (a re-check, an SQS redelivery after
// a crash, a restarted local process) finds the work in Transcribe. The cost is a
// GetTranscriptionJob every CheckAfter while the job runs, and up to CheckAfter
// of extra latency, both small next to a transcription's run time.
//
// # One call, step by step
//
//  1. GetTranscriptionJob(name). Not found: StartTranscriptionJob and return
//     Pending. We look before starting (rather than start and treat
//     ConflictException as "exists") so that re-checks cost one cheap read, not a
//     refused write against the lower StartTranscriptionJob rate limit. Two
//     deliveries racing to start still converge: the loser's ConflictException
//     falls through to a fresh Get.
//  2. QUEUED / IN_PROGRESS: Pending again.
//  3. FAILED: a *callscribe.JobError, bad_audio when Transcribe says the media is
//     invalid or unsupported, provider_error (transcribe_failed) otherwise.
//  4. COMPLETED: read the result JSON from s3://<bucket>/transcribe-output/<name>.json,
//     map it to our segments, delete the output object (no transcript lingers in
//     the bucket; a failed delete is retried by the pipeline before the result is
//     stored) and delete the Transcribe job record. If the output object is gone
//     (an earlier delivery read and deleted it but its result was never stored),
//     the job is started again: a second transcription beats a lost one.
//
// # Mono and stereo
//
// Channel identification maps the left and right channels to speakers 0 and 1,
// as the spec requires, but Transcribe fails jobs that ask for it on mono audio,
// and only when the job runs (StartTranscriptionJob does not read the media, so
// there is no BadRequest to retry on). So the channel count is read from the
// audio bytes before starting, with probe.Probe: the same bounded parser
// that accepted the upload, reading a WAV header or a few MP3 frame headers
// (mode bits), never decoding audio. Stereo gets ChannelIdentification; mono is
// transcribed without it and every segment is speaker 0. More than two channels
// is bad_audio. If the audio cannot be probed (it passed the probe at upload, so
// this should not happen) it is treated as mono: one speaker is a usable result,
// a failed job is not.
//
// # Results
//
// Segments are utterances: consecutive words of one channel, split at a pause
// longer than PauseSplit or after sentence-ending punctuation, then the channels
// are merged in time order. words_count counts pronunciation items. language is
// the BCP-47 code Transcribe used or identified (en-US), kept as is because it
// says more than "en". duration_seconds is the probe's duration of the audio, the
// figure the quota was charged with, or the end of the last word when the audio
// could not be probed.
//
// # Permissions
//
// Transcribe reads the media and writes the output with the caller's
// credentials (no DataAccessRoleArn), so the worker's role needs
// transcribe:StartTranscriptionJob, GetTranscriptionJob and DeleteTranscriptionJob,
// s3:GetObject on the audio keys, and s3:PutObject, GetObject and DeleteObject on
// transcribe-output/*. A lifecycle rule expiring transcribe-output/ after a day
// is a sensible backstop for outputs of jobs deleted while Transcribe ran.
package awstranscribe

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/transcribe"
	"github.com/aws/aws-sdk-go-v2/service/transcribe/types"
	smithy "github.com/aws/smithy-go"

	"github.com/callscribe/callscribe/shared/audio/probe"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// Defaults of Config.
const (
	DefaultOutputPrefix = "transcribe-output/"
	DefaultCheckAfter   = 15 * time.Second
	DefaultPauseSplit   = time.Second
)

// Config configures a Transcriber.
type Config struct {
	// Bucket holds the uploaded audio (read by Transcribe from s3://Bucket/AudioKey)
	// and receives the result JSON under OutputPrefix.
	Bucket string
	// OutputPrefix is where Transcribe writes results; DefaultOutputPrefix when "".
	// The Transcribe service needs s3:PutObject on it, our role Get and Delete.
	OutputPrefix string
	// AgentChannel is the channel of the agent (AGENT_CHANNEL) for speaker aliases.
	AgentChannel int
	// CheckAfter is how long the pipeline waits before re-checking a running job;
	// DefaultCheckAfter when zero.
	CheckAfter time.Duration
	// PauseSplit is the silence that ends an utterance; DefaultPauseSplit when zero.
	PauseSplit time.Duration
}

// Transcriber runs Amazon Transcribe batch jobs.
type Transcriber struct {
	client *transcribe.Client
	output Output
	cfg    Config
}

var _ callscribe.Transcriber = (*Transcriber)(nil)

// New returns a Transcriber. output reads and deletes result objects in
// cfg.Bucket (NewS3Output). Building it makes no network call.
func New(client *transcribe.Client, output Output, cfg Config) *Transcriber {
	if cfg.OutputPrefix == "" {
		cfg.OutputPrefix = DefaultOutputPrefix
	}
	if cfg.CheckAfter <= 0 {
		cfg.CheckAfter = DefaultCheckAfter
	}
	if cfg.PauseSplit <= 0 {
		cfg.PauseSplit = DefaultPauseSplit
	}
	return &Transcriber{client: client, output: output, cfg: cfg}
}

// JobName is the Transcribe job name of one of our jobs. It is derived from the
// job id alone, so every delivery of the job finds the same Transcribe job.
// Transcribe allows [0-9a-zA-Z._-], at most 200 characters; an id needing
// changes to fit gets a hash suffix so two ids can never share a name.
func JobName(jobID string) string {
	var b strings.Builder
	changed := false
	for _, r := range jobID {
		switch {
		case r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
			changed = true
		}
	}
	name := b.String()
	if len(name) > 150 {
		name, changed = name[:150], true
	}
	if changed {
		sum := sha256.Sum256([]byte(jobID))
		name += "-" + hex.EncodeToString(sum[:8])
	}
	return "callscribe-" + name
}

// OutputKey is the object key of a job's result JSON.
func (t *Transcriber) OutputKey(jobID string) string {
	return t.cfg.OutputPrefix + JobName(jobID) + ".json"
}

// redactedEntityTypes are the PII entity types a redact_pii job asks
// Transcribe to redact: those of package redact's categories. NAME and
// ADDRESS are left out so both engines catch the same things.
var redactedEntityTypes = []types.PiiEntityType{
	types.PiiEntityTypeCreditDebitNumber, types.PiiEntityTypePhone, types.PiiEntityTypeEmail,
	types.PiiEntityTypeBankAccountNumber, types.PiiEntityTypeBankRouting, types.PiiEntityTypeSsn,
}

// audioInfo is what the request's bytes tell us.
type audioInfo struct {
	channels int     // 1 when unknown
	duration float64 // 0 when unknown
}

func probeAudio(audio []byte) audioInfo {
	if len(audio) == 0 {
		return audioInfo{channels: 1}
	}
	info, err := probe.Probe(bytes.NewReader(audio), int64(len(audio)))
	if err != nil || info.Channels < 1 {
		return audioInfo{channels: 1}
	}
	return audioInfo{channels: info.Channels, duration: info.DurationSeconds}
}

// Transcribe starts, checks or collects the Transcribe job of req.JobID; see the
// package comment.
func (t *Transcriber) Transcribe(ctx context.Context, req callscribe.TranscriptionRequest) (*callscribe.TranscriptionResult, error) {
	name := JobName(req.JobID)
	audio := probeAudio(req.Audio)
	job, err := t.getJob(ctx, name)
	if err != nil {
		return nil, err
	}
	if job == nil {
		return t.start(ctx, name, req, audio)
	}
	return t.check(ctx, name, req, audio, job)
}

// getJob returns the job, or nil when Transcribe has none by that name.
func (t *Transcriber) getJob(ctx context.Context, name string) (*types.TranscriptionJob, error) {
	out, err := t.client.GetTranscriptionJob(ctx, &transcribe.GetTranscriptionJobInput{TranscriptionJobName: aws.String(name)})
	var nf *types.NotFoundException
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, apiFailure("GetTranscriptionJob", err)
	}
	if out.TranscriptionJob == nil {
		return nil, fmt.Errorf("GetTranscriptionJob %s: response has no job", name)
	}
	return out.TranscriptionJob, nil
}

func (t *Transcriber) start(ctx context.Context, name string, req callscribe.TranscriptionRequest, audio audioInfo) (*callscribe.TranscriptionResult, error) {
	if audio.channels > 2 {
		return nil, &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: fmt.Sprintf("The audio has %d channels; only mono and stereo are supported.", audio.channels)}
	}
	var format types.MediaFormat
	switch req.Format {
	case callscribe.FormatWAV:
		format = types.MediaFormatWav
	case callscribe.FormatMP3:
		format = types.MediaFormatMp3
	default:
		return nil, &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: fmt.Sprintf("Audio format %q is not supported.", req.Format)}
	}
	in := &transcribe.StartTranscriptionJobInput{
		TranscriptionJobName: aws.String(name),
		Media:                &types.Media{MediaFileUri: aws.String("s3://" + t.cfg.Bucket + "/" + req.AudioKey)},
		MediaFormat:          format,
		OutputBucketName:     aws.String(t.cfg.Bucket),
		OutputKey:            aws.String(t.OutputKey(req.JobID)),
		Settings:             &types.Settings{ChannelIdentification: aws.Bool(audio.channels == 2)},
	}
	if req.Language == "" {
		in.IdentifyLanguage = aws.Bool(true)
	} else {
		code, ok := LanguageCode(req.Language)
		if !ok {
			return nil, &callscribe.JobError{Code: callscribe.JobErrUnsupportedLanguage, Message: fmt.Sprintf("Amazon Transcribe does not support language %q.", req.Language)}
		}
		in.LanguageCode = code
	}
	if req.RedactPII {
		// Transcribe writes only the redacted transcript, so the unredacted
		// text never reaches the bucket; the pipeline's own rules run on the
		// result too (digit runs Transcribe does not class as PII).
		in.ContentRedaction = &types.ContentRedaction{
			RedactionType:   types.RedactionTypePii,
			RedactionOutput: types.RedactionOutputRedacted,
			PiiEntityTypes:  redactedEntityTypes,
		}
	}
	_, err := t.client.StartTranscriptionJob(ctx, in)
	var conflict *types.ConflictException
	if errors.As(err, &conflict) {
		// Another delivery started it between our Get and Start: check it.
		job, err := t.getJob(ctx, name)
		if err != nil {
			return nil, err
		}
		if job == nil {
			return nil, fmt.Errorf("transcription job %s: conflict on start, but not found", name)
		}
		return t.check(ctx, name, req, audio, job)
	}
	if err != nil {
		return nil, apiFailure("StartTranscriptionJob", err)
	}
	return nil, &callscribe.Pending{CheckAfter: t.cfg.CheckAfter}
}

func (t *Transcriber) check(ctx context.Context, name string, req callscribe.TranscriptionRequest, audio audioInfo, job *types.TranscriptionJob) (*callscribe.TranscriptionResult, error) {
	switch job.TranscriptionJobStatus {
	case types.TranscriptionJobStatusQueued, types.TranscriptionJobStatusInProgress:
		return nil, &callscribe.Pending{CheckAfter: t.cfg.CheckAfter}
	case types.TranscriptionJobStatusFailed:
		// The failed job record stays (Transcribe expires it) for diagnosis; a
		// redelivery reports the same failure.
		return nil, failedJob(aws.ToString(job.FailureReason))
	case types.TranscriptionJobStatusCompleted:
	default:
		return nil, fmt.Errorf("transcription job %s: unexpected status %q", name, job.TranscriptionJobStatus)
	}

	key := t.OutputKey(req.JobID)
	raw, err := t.output.Get(ctx, key)
	if errors.Is(err, ErrOutputNotFound) {
		// Read and deleted by an earlier delivery whose result was not stored:
		// transcribe again rather than fail the job.
		if err := t.deleteJobStrict(ctx, name); err != nil {
			return nil, err
		}
		return t.start(ctx, name, req, audio)
	}
	if err != nil {
		return nil, fmt.Errorf("reading transcription output %s: %w", key, err)
	}
	res, err := mapResult(raw, t.cfg.AgentChannel, t.cfg.PauseSplit.Seconds())
	if err != nil {
		return nil, providerFailure("malformed_output", err.Error())
	}
	if res.Language == nil && job.LanguageCode != "" {
		lang := string(job.LanguageCode)
		res.Language = &lang
	}
	if audio.duration > 0 {
		res.DurationSeconds = audio.duration
	}
	// The transcript must not linger in the bucket. A failed delete is an error
	// so the pipeline retries (re-reading the still present object) instead of
	// storing the result and leaving the object behind.
	if err := t.output.Delete(ctx, key); err != nil {
		return nil, fmt.Errorf("deleting transcription output %s: %w", key, err)
	}
	t.deleteJob(ctx, name)
	// Amazon Transcribe takes vocabulary only as a named custom vocabulary
	// made ahead of time (CreateVocabulary, minutes to build), not per job:
	// the terms are reported, not applied.
	res.MetaData = callscribe.KeytermsNotApplied(req.Keyterms, "Amazon Transcribe takes vocabulary only as a custom vocabulary created ahead of time, not per job; the terms were not applied.")
	return res, nil
}

// deleteJob removes the job record (metadata only: name, S3 URIs, status) once
// it is no longer needed. Best effort: Transcribe expires records after 90 days.
func (t *Transcriber) deleteJob(ctx context.Context, name string) {
	_ = t.deleteJobStrict(ctx, name)
}

func (t *Transcriber) deleteJobStrict(ctx context.Context, name string) error {
	_, err := t.client.DeleteTranscriptionJob(ctx, &transcribe.DeleteTranscriptionJobInput{TranscriptionJobName: aws.String(name)})
	// The SDK's model lists no NotFoundException for DeleteTranscriptionJob, so
	// the answer arrives as a generic API error: match it by its code.
	var apiErr smithy.APIError
	if err != nil && !(errors.As(err, &apiErr) && apiErr.ErrorCode() == "NotFoundException") {
		return apiFailure("DeleteTranscriptionJob", err)
	}
	return nil
}

// failedJob maps a FAILED job's reason: media Transcribe cannot use is the
// caller's bad_audio; anything else is the provider's failure.
func failedJob(reason string) *callscribe.JobError {
	r := strings.ToLower(reason)
	mentions := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(r, w) {
				return true
			}
		}
		return false
	}
	switch {
	case mentions("media", "audio", "sample rate", "channel", "file") &&
		mentions("invalid", "unsupported", "not supported", "does not match", "doesn't match", "corrupt", "parse", "decode", "too short", "too long", "no speech"):
		return &callscribe.JobError{
			Code:          callscribe.JobErrBadAudio,
			Message:       "Amazon Transcribe could not use the audio: " + reason,
			ProviderError: &callscribe.ProviderError{Code: "transcribe_failed", Message: reason},
		}
	case mentions("language") && mentions("not supported", "unsupported", "couldn't identify", "could not identify"):
		return &callscribe.JobError{
			Code:          callscribe.JobErrUnsupportedLanguage,
			Message:       "Amazon Transcribe could not transcribe the language: " + reason,
			ProviderError: &callscribe.ProviderError{Code: "transcribe_failed", Message: reason},
		}
	}
	if reason == "" {
		reason = "the transcription job failed without a reason"
	}
	return providerFailure("transcribe_failed", reason)
}

// apiFailure maps an SDK error. Throttling, Transcribe's internal failures and
// transport errors are transient: returned as plain errors so the pipeline
// retries the delivery. Anything else (BadRequestException, AccessDenied, ...)
// will not get better by retrying and fails the job with the AWS error code.
func apiFailure(op string, err error) error {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("transcribe %s: %w", op, err)
	}
	switch apiErr.ErrorCode() {
	case "LimitExceededException", "InternalFailureException", "ThrottlingException", "ServiceUnavailableException":
		return fmt.Errorf("transcribe %s: %w", op, err)
	}
	if apiErr.ErrorFault() == smithy.FaultServer {
		return fmt.Errorf("transcribe %s: %w", op, err)
	}
	return providerFailure(apiErr.ErrorCode(), op+": "+apiErr.ErrorMessage())
}

func providerFailure(code, message string) *callscribe.JobError {
	return &callscribe.JobError{
		Code:          callscribe.JobErrProviderError,
		Message:       "The speech provider could not process the audio.",
		ProviderError: &callscribe.ProviderError{Code: code, Message: message},
	}
}
