package jobs

import (
	"context"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// AudioLinkExpiry is how long a player's audio link stays valid: long enough
// to listen through a long call, short enough that a leaked link soon dies.
const AudioLinkExpiry = 15 * time.Minute

// AudioLink is a short-lived URL that streams a job's audio.
type AudioLink struct {
	URL       string
	ExpiresAt time.Time
}

// AudioLink returns a link to the audio of a transcription the account owns.
// A deleted job is JOB_NOT_FOUND (its audio was removed at once); a summary or
// tags job has no audio of its own: NOT_FOUND.
func (s *Service) AudioLink(ctx context.Context, accountID, jobID string) (*AudioLink, error) {
	job, err := s.Get(ctx, accountID, jobID)
	if err != nil {
		return nil, err
	}
	if s.deps.AudioLinks == nil {
		return nil, callscribe.Errorf(callscribe.CodeNotFound, "Audio playback is not available in this deployment.")
	}
	if job.AudioKey == "" {
		return nil, callscribe.Errorf(callscribe.CodeNotFound, "Job %s is a %s job and has no audio of its own.", job.ID, job.Type.OrDefault())
	}
	if recordingDeleted(job) {
		return nil, callscribe.Errorf(callscribe.CodeNotFound, "The recording of job %s was deleted by PII redaction (an MP3 file cannot be rewritten with a tone).", job.ID)
	}
	url, err := s.deps.AudioLinks.AudioURL(ctx, job.AudioKey, AudioLinkExpiry)
	if err != nil {
		return nil, err
	}
	return &AudioLink{URL: url, ExpiresAt: s.now().Add(AudioLinkExpiry)}, nil
}
