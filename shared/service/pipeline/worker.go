// Package pipeline runs queued work: transcriptions, summary and tags jobs, and
// tagDelivered callback attempts. The same Worker runs in the local process (fed
// by the embedded queue) and in Lambda (fed by SQS events).
//
// A transcription asked with redact_pii has its transcript redacted and its
// recording toned before it succeeds (redaction.go): a WAV in place, an MP3
// through a WAV rendition under another key that the job then points at (at
// most MaxRenditionBytes, 128 MiB; a longer or undecodable MP3 is deleted).
package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/callmetrics"
	"github.com/callscribe/callscribe/shared/callscribe/callsentiment"
	"github.com/callscribe/callscribe/shared/service/callback"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

// Worker handles queue messages. It implements callscribe.MessageHandler. Job
// state changes go through the jobs service, the same one the API calls; the
// worker decides what to run, and when to retry by the retry policy
// (callscribe's retrypolicy.go).
type Worker struct {
	Jobs        *jobs.Service
	Audio       callscribe.AudioStore
	Queue       callscribe.Queue
	Transcriber callscribe.Transcriber
	Summarizer  callscribe.Summarizer
	Tagger      callscribe.Tagger
	// Sentiment scores a transcription's segments; nil leaves results
	// without sentiment (the stacks always set the built-in scorer).
	Sentiment callscribe.SentimentScorer
	Notifier  callscribe.Notifier
	Logger    *slog.Logger
	// CallbackBackoffBase is CALLBACK_BACKOFF_BASE
	// (default callscribe.DefaultCallbackBackoffBase).
	CallbackBackoffBase time.Duration
	// CallbackTimeout bounds one delivery attempt (default
	// callscribe.CallbackAttemptTimeout, the spec's).
	CallbackTimeout time.Duration
	// Webhooks signs deliveries with the account's secrets and records each
	// attempt; nil sends them unsigned and unrecorded.
	Webhooks *callback.Webhooks
}

func (w *Worker) logger(m callscribe.Message) *slog.Logger {
	l := w.Logger
	if l == nil {
		l = slog.Default()
	}
	// Worker lines carry the requestId of the API call that caused the work.
	return l.With("requestId", m.RequestID, "jobId", m.JobID, "kind", m.Kind)
}

// jobLogger is logger for code that has the job, not the message.
func (w *Worker) jobLogger(ctx context.Context, job *callscribe.Job) *slog.Logger {
	return w.logger(callscribe.Message{JobID: job.ID, RequestID: callscribe.RequestID(ctx)})
}

// HandleMessage implements callscribe.MessageHandler. A nil error acknowledges
// the message; an error asks the queue to deliver it again later.
func (w *Worker) HandleMessage(ctx context.Context, m callscribe.Message) error {
	ctx = callscribe.WithRequestID(ctx, m.RequestID)
	switch m.Kind {
	case callscribe.KindTranscribe, callscribe.KindDerive:
		return w.runJob(ctx, m)
	case callscribe.KindDeliverCallback:
		return w.deliverCallback(ctx, m)
	default:
		w.logger(m).Error("dropping message of unknown kind")
		return nil
	}
}

func (w *Worker) runJob(ctx context.Context, m callscribe.Message) error {
	log := w.logger(m)
	job, err := w.Jobs.Job(ctx, m.JobID)
	if callscribe.IsCode(err, callscribe.CodeJobNotFound) {
		log.Info("job was deleted before it ran; dropping")
		return nil
	}
	if err != nil {
		return err
	}
	if job.Status.Terminal() {
		// A duplicate delivery, or a redelivery after the job finished but before
		// the follow-up was queued: make sure the follow-up exists.
		return w.afterTerminal(ctx, m, job)
	}
	// A re-check of an asynchronous provider's work resumes the same attempt.
	job, err = w.Jobs.Claim(ctx, job.ID, m.Recheck == 0)
	if callscribe.IsCode(err, callscribe.CodeConflict) || callscribe.IsCode(err, callscribe.CodeJobNotFound) {
		log.Info("job finished or was deleted meanwhile; dropping")
		return nil
	}
	if err != nil {
		return err
	}
	if callscribe.JobAttemptsExhausted(job.Attempts) {
		return w.finish(ctx, m, job, nil, nil, &callscribe.JobError{Code: callscribe.JobErrInternal, Message: fmt.Sprintf("Processing failed %d times; giving up.", callscribe.MaxJobAttempts)})
	}
	log.Info("job started", "type", job.Type.OrDefault(), "attempt", job.Attempts)
	start := time.Now()
	result, audio, err := w.produce(ctx, job)
	if err != nil && ctx.Err() != nil {
		// Stopped by a shutdown, not failed: whatever the engine made of the
		// cancellation, the job stays processing and its message is handed
		// back to run again.
		log.Warn("job attempt interrupted by shutdown; it will run again", "err", err, "attempt", job.Attempts)
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	var jobErr *callscribe.JobError
	var pending *callscribe.Pending
	switch {
	case errors.As(err, &pending):
		if callscribe.ProviderRechecksExhausted(m.Recheck) {
			return w.finish(ctx, m, job, nil, nil, &callscribe.JobError{Code: callscribe.JobErrProviderError, Message: "The provider did not finish in time."})
		}
		next := m
		next.Recheck++
		next.Delay = pending.CheckAfter
		log.Info("provider still working; re-checking later", "recheck", next.Recheck, "delay_ms", next.Delay.Milliseconds())
		return w.Queue.Enqueue(ctx, next)
	case errors.As(err, &jobErr):
		log.Warn("job failed", "code", jobErr.Code, "message", jobErr.Message)
		return w.finish(ctx, m, job, nil, nil, jobErr)
	case err != nil:
		// Transient: leave the job in processing; the queue delivers again.
		log.Warn("job attempt failed; will retry", "err", err, "attempt", job.Attempts)
		return err
	}
	log.Info("job succeeded", "duration_ms", time.Since(start).Milliseconds())
	return w.finish(ctx, m, job, result, audio, nil)
}

// produce runs the engine for the job's type and returns its JSON result and,
// when the attempt moved the job's recording (transcribe), where it is now.
func (w *Worker) produce(ctx context.Context, job *callscribe.Job) (json.RawMessage, *callscribe.StoredAudio, error) {
	var result any
	var audio *callscribe.StoredAudio
	var err error
	switch job.Type.OrDefault() {
	case callscribe.TypeTranscription:
		result, audio, err = w.transcribe(ctx, job)
	case callscribe.TypeSummary:
		if job.Input == nil {
			return nil, nil, &callscribe.JobError{Code: callscribe.JobErrInternal, Message: "The job has no transcript to summarise."}
		}
		var summary *callscribe.SummaryResult
		summary, err = w.Summarizer.Summarize(ctx, *job.Input)
		if err == nil && job.RedactPII {
			summary.Redaction = inputRedaction(job.Input)
		}
		result = summary
	case callscribe.TypeTags:
		if job.Input == nil {
			return nil, nil, &callscribe.JobError{Code: callscribe.JobErrInternal, Message: "The job has no transcript to tag."}
		}
		var tags *callscribe.TagsResult
		tags, err = w.Tagger.Tag(ctx, *job.Input)
		if err == nil {
			// The last guard that nothing outside the taxonomy is stored, whatever the tagger.
			tags.Normalize()
			if job.RedactPII {
				tags.Redaction = inputRedaction(job.Input)
			}
		}
		result = tags
	default:
		return nil, nil, &callscribe.JobError{Code: callscribe.JobErrInternal, Message: fmt.Sprintf("Unknown job type %q.", job.Type)}
	}
	if err != nil {
		return nil, nil, err
	}
	out, err := json.Marshal(result)
	return out, audio, err
}

// transcribe runs the transcriber on the job's recording. The StoredAudio it
// returns, when not nil, is where the recording is now: a redacted MP3's
// rendition, stored by this attempt or found by it where an earlier one
// stopped after deleting the MP3 and before the job succeeded.
func (w *Worker) transcribe(ctx context.Context, job *callscribe.Job) (*callscribe.TranscriptionResult, *callscribe.StoredAudio, error) {
	at := *job // the job as this attempt finds its audio
	var moved *callscribe.StoredAudio
	limit := int64(maxStoredAudio)
	rc, err := w.Audio.OpenAudio(ctx, at.AudioKey)
	if callscribe.IsCode(err, callscribe.CodeNotFound) && job.RedactPII && job.AudioFormat == callscribe.FormatMP3 {
		moved = &callscribe.StoredAudio{Key: jobs.RenditionKey(job.AudioKey), Format: callscribe.FormatWAV}
		at.AudioKey, at.AudioFormat = moved.Key, moved.Format
		limit = int64(renditionLimit)
		rc, err = w.Audio.OpenAudio(ctx, at.AudioKey)
	}
	if callscribe.IsCode(err, callscribe.CodeNotFound) {
		return nil, nil, &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "The uploaded audio is no longer available."}
	}
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	audio, err := readAudio(rc, limit)
	if err != nil {
		return nil, nil, err
	}
	res, err := w.Transcriber.Transcribe(ctx, callscribe.TranscriptionRequest{
		JobID: at.ID, AudioKey: at.AudioKey, Audio: audio, Format: at.AudioFormat, Language: at.Language, Keyterms: at.Keyterms,
		RedactPII: at.RedactPII,
	})
	if err != nil {
		return nil, nil, err
	}
	if res.Transcript == nil {
		res.Transcript = []callscribe.Segment{} // "transcript": [] rather than null
	}
	if job.RedactPII {
		// Before anything is computed from the text or the job is stored,
		// and the recording is rewritten before the job can succeed.
		stored, err := w.redact(ctx, &at, audio, res)
		if err != nil {
			return nil, nil, err
		}
		if stored != nil {
			moved = stored
		}
		if moved != nil && res.Redaction.Audio == callscribe.RedactionAudioUnchanged {
			// The rendition exists only because an earlier attempt toned it.
			res.Redaction.Audio = callscribe.RedactionAudioToned
		}
	}
	// Computed here, whatever the engine, so every stack's results carry the
	// same figures by the same definitions.
	res.Metrics = callmetrics.Compute(res.Transcript, res.DurationSeconds)
	if w.Sentiment != nil {
		for i := range res.Transcript {
			res.Transcript[i].Sentiment = w.Sentiment.ScoreSentiment(res.Transcript[i].Text)
		}
		res.Sentiment = callsentiment.Compute(res.Transcript, res.DurationSeconds)
	}
	return res, moved, nil
}

// maxStoredAudio bounds what a worker reads of an uploaded object (uploads
// are at most 10 MiB; the margin only guards against a corrupt store). A
// redacted MP3's rendition is read up to MaxRenditionBytes instead.
const maxStoredAudio = 16 << 20

// readAudio reads a stored object, at most limit bytes, into one buffer of its
// size when the store says it (a file does): io.ReadAll's doubling would
// allocate about twice the object, garbage the two speech workers make at the
// same time.
func readAudio(rc io.Reader, limit int64) ([]byte, error) {
	if st, ok := rc.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Size() > 0 && fi.Size() <= limit {
			buf := make([]byte, fi.Size())
			if _, err := io.ReadFull(rc, buf); err != nil {
				return nil, err
			}
			return buf, nil
		}
	}
	return io.ReadAll(io.LimitReader(rc, limit))
}

// finish moves the job to its terminal state (compare-and-set, so a deleted job
// is never resurrected) and queues what follows it. audio, with a result, is
// where the attempt left the job's recording (produce).
func (w *Worker) finish(ctx context.Context, m callscribe.Message, job *callscribe.Job, result json.RawMessage, audio *callscribe.StoredAudio, jobErr *callscribe.JobError) error {
	var done *callscribe.Job
	var err error
	if jobErr != nil {
		done, err = w.Jobs.Fail(ctx, job, jobErr)
	} else {
		done, err = w.Jobs.Succeed(ctx, job, result, audio)
	}
	if callscribe.IsCode(err, callscribe.CodeConflict) || callscribe.IsCode(err, callscribe.CodeJobNotFound) {
		w.logger(m).Info("job was deleted or finished by another worker; result discarded")
		if audio != nil {
			return w.discardRendition(ctx, m, audio)
		}
		return nil
	}
	if err != nil {
		return err
	}
	return w.afterTerminal(ctx, m, done)
}

// discardRendition deletes a rendition this attempt stored for a job deleted
// meanwhile (a delete that came before the rendition was written could not
// remove it). A job another worker finished keeps it: that worker's succeed
// points the job at the same key.
func (w *Worker) discardRendition(ctx context.Context, m callscribe.Message, audio *callscribe.StoredAudio) error {
	if _, err := w.Jobs.Job(ctx, m.JobID); !callscribe.IsCode(err, callscribe.CodeJobNotFound) {
		return err
	}
	return w.Audio.DeleteAudio(ctx, audio.Key)
}

// afterTerminal queues the tagDelivered callback of a finished tags job. It may
// run twice for one job (redelivery); receivers de-duplicate on request_id, as
// the spec's delivery rules say.
func (w *Worker) afterTerminal(ctx context.Context, m callscribe.Message, job *callscribe.Job) error {
	if job.Type != callscribe.TypeTags || job.Callback == nil {
		return nil
	}
	return w.Queue.Enqueue(ctx, callscribe.Message{
		Kind: callscribe.KindDeliverCallback, JobID: job.ID, Attempt: 1,
		CallbackMsgID: callbackMsgID(job.ID), RequestID: m.RequestID,
	})
}

// callbackMsgID is the msg_id of a tags job's tagDelivered message: derived
// from the job id (UUIDv5), so a redelivered derive message that queues the
// callback again sends the same message, not a second one with a new id.
func callbackMsgID(jobID string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("callscribe:tagDelivered:"+jobID)).String()
}

func (w *Worker) deliverCallback(ctx context.Context, m callscribe.Message) error {
	log := w.logger(m).With("attempt", m.Attempt, "msgId", m.CallbackMsgID)
	job, err := w.Jobs.Job(ctx, m.JobID)
	if callscribe.IsCode(err, callscribe.CodeJobNotFound) {
		log.Warn("tagDelivered abandoned: the tags job was deleted")
		return nil
	}
	if err != nil {
		return err
	}
	if job.Callback == nil {
		return nil
	}
	payload, err := callback.BuildPayload(job, m.CallbackMsgID)
	if err != nil {
		log.Error("tagDelivered abandoned: payload could not be built", "err", err)
		return nil
	}
	// Sign with the account's secrets; a store that cannot give them fails
	// the message (the queue redelivers it) rather than sending it unsigned.
	var secrets []string
	if w.Webhooks != nil {
		if secrets, err = w.Webhooks.ActiveSecrets(ctx, job.AccountID); err != nil {
			return fmt.Errorf("tagDelivered: signing secret: %w", err)
		}
	}
	timeout := w.CallbackTimeout
	if timeout <= 0 {
		timeout = callscribe.CallbackAttemptTimeout
	}
	record := &callscribe.DeliveryAttempt{
		JobID: job.ID, Attempt: m.Attempt, WebhookID: m.CallbackMsgID,
		At: w.clock(), Host: callback.URLHost(job.Callback.URL),
	}
	delivery := callscribe.CallbackDelivery{
		URL: job.Callback.URL, APIKey: job.Callback.APIKey, Payload: payload,
		WebhookID: m.CallbackMsgID, SigningSecrets: secrets,
	}
	attemptCtx, cancel := context.WithTimeout(ctx, timeout)
	record.StatusCode, err = w.deliver(attemptCtx, delivery)
	cancel()
	if err == nil {
		log.Info("tagDelivered delivered", "status", payload.Status)
		record.Outcome = callscribe.DeliveryDelivered
		w.recordDelivery(ctx, log, record)
		return nil
	}
	record.Error = err.Error()
	record.Outcome = callscribe.DeliveryAbandoned
	if !callscribe.RetryCallback(m.Attempt) {
		log.Error("tagDelivered abandoned after the last attempt", "attempts", m.Attempt, "lastError", err.Error())
		w.recordDelivery(ctx, log, record)
		return nil
	}
	// A refused address (loopback, private, ... once resolved) stays refused:
	// retrying would only repeat the refusal.
	if errors.Is(err, callback.ErrAddressRefused) {
		log.Error("tagDelivered abandoned: the callback address is not allowed", "attempts", m.Attempt, "lastError", err.Error())
		w.recordDelivery(ctx, log, record)
		return nil
	}
	next := m
	next.Attempt++
	next.Delay = callscribe.CallbackBackoff(m.Attempt, w.CallbackBackoffBase) // <= 0 means the default base
	// The next attempt is a queue message delayed by the backoff (SQS
	// DelaySeconds, the embedded queue's visible_at), so it survives a
	// restart of this process; nothing waits in memory.
	log.Warn("tagDelivered attempt failed; retrying", "err", err.Error(), "nextAttempt", next.Attempt, "delay_ms", next.Delay.Milliseconds())
	if err := w.Queue.Enqueue(ctx, next); err != nil {
		return err
	}
	due := record.At.Add(next.Delay)
	record.Outcome, record.NextAttemptAt = callscribe.DeliveryRetrying, &due
	w.recordDelivery(ctx, log, record)
	return nil
}

// statusNotifier is a Notifier that also reports the receiver's status code
// (callback.Notifier does); other Notifiers' attempts are recorded without one.
type statusNotifier interface {
	DeliverStatus(ctx context.Context, d callscribe.CallbackDelivery) (int, error)
}

func (w *Worker) deliver(ctx context.Context, d callscribe.CallbackDelivery) (int, error) {
	if sn, ok := w.Notifier.(statusNotifier); ok {
		return sn.DeliverStatus(ctx, d)
	}
	return 0, w.Notifier.Deliver(ctx, d)
}

// recordDelivery stores the attempt for the job's Deliveries view. Losing a
// record loses history, not a delivery, so a failure is logged, not retried:
// retrying the message would send the callback again.
func (w *Worker) recordDelivery(ctx context.Context, log *slog.Logger, d *callscribe.DeliveryAttempt) {
	if w.Webhooks == nil {
		return
	}
	if err := w.Webhooks.Record(ctx, d); err != nil && !callscribe.IsCode(err, callscribe.CodeJobNotFound) {
		log.Warn("tagDelivered attempt not recorded", "err", err.Error())
	}
}

func (w *Worker) clock() time.Time {
	if w.Webhooks != nil {
		return w.Webhooks.Now()
	}
	return time.Now().UTC().Truncate(time.Millisecond)
}
