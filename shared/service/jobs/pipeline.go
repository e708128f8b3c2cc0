package jobs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// The state changes the pipeline makes, each a transition of the state
// machine (callscribe's states.go) that the store applies as a compare-and-set,
// so a redelivered message, a second worker or a delete that raced the worker
// can never move a job backwards or bring a deleted one back: those cases come
// back as CONFLICT or JOB_NOT_FOUND and the worker drops the message.

// Job returns a live job by id, whatever its account: the pipeline acts for
// the service, not for a caller. JOB_NOT_FOUND when absent or deleted.
func (s *Service) Job(ctx context.Context, jobID string) (*callscribe.Job, error) {
	return s.deps.Jobs.GetJob(ctx, jobID)
}

// Claim moves a queued or processing job to processing for a worker: the
// start transition, or resume when countAttempt is false (a re-check of an
// asynchronous provider's running work, which continues the same attempt).
// processing is accepted because a crashed worker leaves its job there and the
// queue delivers the message again.
func (s *Service) Claim(ctx context.Context, jobID string, countAttempt bool) (*callscribe.Job, error) {
	name := callscribe.TransitionStart
	if !countAttempt {
		name = callscribe.TransitionResume
	}
	return s.deps.Jobs.TransitionJob(ctx, name.For(jobID, s.now()))
}

// Succeed finishes a processing job with its result. A transcription sent
// without a language hint records the language the engine detected, so
// listings and the language filter show the requested or detected language,
// as the spec says. audio, when not nil, is where the attempt left the job's
// recording (PII redaction's WAV rendition of an MP3, under RenditionKey):
// the same write points the job at it.
func (s *Service) Succeed(ctx context.Context, job *callscribe.Job, result json.RawMessage, audio *callscribe.StoredAudio) (*callscribe.Job, error) {
	t := callscribe.TransitionSucceed.For(job.ID, s.now())
	t.Result = result
	t.Audio = audio
	if job.Type.OrDefault() == callscribe.TypeTranscription && job.Language == "" {
		var detected struct{ Language *string }
		if json.Unmarshal(result, &detected) == nil && detected.Language != nil {
			t.Language = *detected.Language
		}
	}
	return s.deps.Jobs.TransitionJob(ctx, t)
}

// Fail finishes a processing job with an error; a transcription's minutes are
// released in the same atomic step (failed jobs do not count toward quota).
func (s *Service) Fail(ctx context.Context, job *callscribe.Job, jobErr *callscribe.JobError) (*callscribe.Job, error) {
	t := callscribe.TransitionFail.For(job.ID, s.now())
	t.Error = jobErr
	return s.deps.Jobs.TransitionJob(ctx, t)
}

// RequeueUnfinished gives every unfinished job a queue message if it has none
// (hasMessage says which jobs already have one): a crash between storing a job
// and queueing it must not strand the job. It returns how many were requeued.
func (s *Service) RequeueUnfinished(ctx context.Context, hasMessage func(jobID string) bool) (int, error) {
	ids, err := s.deps.Jobs.UnfinishedJobIDs(ctx, 100000)
	if err != nil {
		return 0, fmt.Errorf("listing unfinished jobs: %w", err)
	}
	requeued := 0
	for _, id := range ids {
		if hasMessage(id) {
			continue
		}
		job, err := s.deps.Jobs.GetJob(ctx, id)
		if err != nil {
			continue // deleted meanwhile
		}
		if err := s.deps.Queue.Enqueue(ctx, callscribe.Message{Kind: callscribe.WorkKind(job.Type), JobID: id}); err != nil {
			return requeued, fmt.Errorf("requeueing job %s: %w", id, err)
		}
		requeued++
	}
	return requeued, nil
}
