package jobs

import (
	"context"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Two-step uploads, for files larger than a Lambda request carries (API
// Gateway and Lambda stop at 6 MB; the spec allows 10 MB). The whole flow:
//
//  1. POST /v1/uploads (transport/httpapi/upload.go) calls CreateUpload: the
//     service picks an upload id and asks the UploadSigner port for a signed
//     form scoped to uploads/<account>/<id> and MaxAudioBytes.
//     On AWS the signer is adapters/s3 (an S3 presigned POST, the size limit in
//     the policy); on the embedded stack it is adapters/diskaudio/uploads.go,
//     which signs the same fields and receives the POST at /local-uploads.
//  2. The client POSTs the returned fields and then the file to the returned
//     URL: straight to storage, never through the API.
//  3. POST /v1/transcriptions with upload_id=<id> instead of file
//     (SubmitTranscription in transcriptions.go) calls takeUpload: the staged
//     object is read under the caller's own prefix (so only the account that
//     asked can use it), spooled and checked like a direct upload, stored
//     again under the job's key, and the staged object is removed.
//  4. Anything staged but never used expires: the bucket's lifecycle rule on
//     AWS (template.yaml) and the embedded stack's purge remove UploadsPrefix
//     objects after a day.
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
	if err := s.deps.Audio.PutMarker(ctx, callscribe.ConsumedUploadKey(uploadKey(accountID, uploadID))); err != nil {
		rc.Close()
		if callscribe.IsCode(err, callscribe.CodeConflict) {
			return nil, callscribe.Errorf(callscribe.CodeUploadNotFound, "No finished upload with id %q.", uploadID)
		}
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
