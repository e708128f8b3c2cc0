package jobs

import (
	"context"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Two-step uploads, for files larger than a Lambda request carries: the client
// gets a presigned POST, uploads the file straight to storage, then creates the
// transcription with the upload id in place of the file.
const UploadExpiry = 15 * time.Minute

// UploadsPrefix is the staging area of two-step uploads in the AudioStore;
// objects left there were abandoned (the bucket expires them after a day, the
// local process's purge likewise).
const UploadsPrefix = "uploads"

func uploadKey(accountID, uploadID string) string {
	return UploadsPrefix + "/" + accountID + "/" + uploadID
}

// Upload is a presigned direct-to-storage upload.
type Upload struct {
	ID        string
	URL       string
	Fields    map[string]string
	MaxBytes  int64
	ExpiresAt time.Time
}

// CreateUpload signs a two-step upload staged under the account's prefix, so
// only that account can turn it into a job.
func (s *Service) CreateUpload(ctx context.Context, accountID string) (*Upload, error) {
	if s.deps.Uploads == nil {
		return nil, callscribe.Errorf(callscribe.CodeNotFound, "Two-step uploads are not available in this deployment.")
	}
	id := s.deps.NewID()
	url, fields, err := s.deps.Uploads.SignUpload(ctx, uploadKey(accountID, id), MaxAudioBytes, UploadExpiry)
	if err != nil {
		return nil, err
	}
	return &Upload{ID: id, URL: url, Fields: fields, MaxBytes: MaxAudioBytes, ExpiresAt: s.now().Add(UploadExpiry)}, nil
}

// takeUpload reads a finished two-step upload (bounded) and removes the staging
// object; the audio is stored again under the job's own key.
func (s *Service) takeUpload(ctx context.Context, accountID, uploadID string) (*SpooledAudio, error) {
	if len(uploadID) > 64 || strings.ContainsAny(uploadID, "/\\.") {
		return nil, callscribe.Errorf(callscribe.CodeUploadNotFound, "No finished upload with id %q.", truncate(uploadID, 64))
	}
	rc, err := s.deps.Audio.OpenAudio(ctx, uploadKey(accountID, uploadID))
	if callscribe.IsCode(err, callscribe.CodeNotFound) {
		return nil, callscribe.Errorf(callscribe.CodeUploadNotFound, "No finished upload with id %q.", uploadID)
	}
	if err != nil {
		return nil, err
	}
	spooled, err := SpoolAudio(rc)
	rc.Close()
	if err != nil && !callscribe.IsCode(err, callscribe.CodeFileTooLarge) {
		return nil, err
	}
	// The staged object is consumed either way: an oversized one is useless.
	if err := s.deps.Audio.DeleteAudio(ctx, uploadKey(accountID, uploadID)); err != nil {
		s.logger(ctx).WarnContext(ctx, "removing staged upload failed", "uploadId", uploadID, "err", err)
	}
	return spooled, err
}

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
	url, err := s.deps.AudioLinks.AudioURL(ctx, job.AudioKey, AudioLinkExpiry)
	if err != nil {
		return nil, err
	}
	return &AudioLink{URL: url, ExpiresAt: s.now().Add(AudioLinkExpiry)}, nil
}
