// Package s3 implements callscribe.AudioStore on Amazon S3 with aws-sdk-go-v2,
// plus the presigned POST used by the two-step upload path (files too large for
// Lambda's 6 MB synchronous request limit go straight to S3).
//
// Objects are written with SSE-S3 (AES256) and the bucket blocks public access
// (template.yaml); deletes are immediate (DeleteObject, no versioning). Against a
// local endpoint (gofakes3 in package awstest) build the client with
// o.UsePathStyle = true, and pass seekable bodies: over plain http the SDK must
// be able to rewind the body to compute its checksum.
package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	smithy "github.com/aws/smithy-go"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// AudioStore keeps audio objects in one bucket.
type AudioStore struct {
	client  *awss3.Client
	presign *awss3.PresignClient
	bucket  string
}

var _ callscribe.AudioStore = (*AudioStore)(nil)

// NewAudioStore returns a store on bucket.
func NewAudioStore(client *awss3.Client, bucket string) *AudioStore {
	return &AudioStore{client: client, presign: awss3.NewPresignClient(client), bucket: bucket}
}

// Bucket is the bucket name, for providers that read the audio from S3 directly
// (Amazon Transcribe takes an s3:// URI).
func (s *AudioStore) Bucket() string { return s.bucket }

func (s *AudioStore) PutAudio(ctx context.Context, key string, r io.ReadSeeker, size int64) error {
	_, err := s.client.PutObject(ctx, &awss3.PutObjectInput{
		Bucket:               aws.String(s.bucket),
		Key:                  aws.String(key),
		Body:                 r,
		ContentLength:        aws.Int64(size),
		ContentType:          aws.String("application/octet-stream"),
		ServerSideEncryption: types.ServerSideEncryptionAes256,
	})
	if err != nil {
		return fmt.Errorf("put audio %s: %w", key, err)
	}
	return nil
}

func (s *AudioStore) OpenAudio(ctx context.Context, key string) (io.ReadCloser, error) {
	out, err := s.client.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if isNotFound(err) {
		return nil, audioNotFound(key)
	}
	if err != nil {
		return nil, fmt.Errorf("get audio %s: %w", key, err)
	}
	return out.Body, nil
}

// StatAudio returns the stored size of an object; NOT_FOUND when absent. The
// two-step upload uses it to check a presigned upload arrived (and its size)
// before creating the job.
func (s *AudioStore) StatAudio(ctx context.Context, key string) (int64, error) {
	out, err := s.client.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if isNotFound(err) {
		return 0, audioNotFound(key)
	}
	if err != nil {
		return 0, fmt.Errorf("head audio %s: %w", key, err)
	}
	return aws.ToInt64(out.ContentLength), nil
}

// DeleteAudio removes the object at once. S3 answers 204 for absent keys too, so
// deleting twice is not an error.
func (s *AudioStore) DeleteAudio(ctx context.Context, key string) error {
	_, err := s.client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("delete audio %s: %w", key, err)
	}
	return nil
}

// PutMarker writes an empty object under key with If-None-Match: *, so S3
// refuses it (412 PreconditionFailed) when any object exists there; S3's
// conditional writes are atomic, and gofakes3 checks the condition under its
// backend's lock. A 409 ConditionalRequestConflict (a concurrent conditional
// write in flight) also means another caller won.
func (s *AudioStore) PutMarker(ctx context.Context, key string) error {
	_, err := s.client.PutObject(ctx, &awss3.PutObjectInput{
		Bucket:               aws.String(s.bucket),
		Key:                  aws.String(key),
		Body:                 bytes.NewReader(nil),
		ContentLength:        aws.Int64(0),
		IfNoneMatch:          aws.String("*"),
		ServerSideEncryption: types.ServerSideEncryptionAes256,
	})
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && (apiErr.ErrorCode() == "PreconditionFailed" || apiErr.ErrorCode() == "ConditionalRequestConflict") {
		return callscribe.Errorf(callscribe.CodeConflict, "a marker exists under %s", key)
	}
	if err != nil {
		return fmt.Errorf("put marker %s: %w", key, err)
	}
	return nil
}

// PresignUpload returns a presigned S3 POST for one object: the form's action URL
// and the fields to send before the file field. The policy pins the key, requires
// SSE-S3 and limits the size with content-length-range 0..maxBytes, so S3 itself
// refuses larger files; expiry bounds how long the form is valid.
//
// gofakes3 (the local stack) accepts such forms but does not check the policy,
// so callers also check the stored size (StatAudio) before using an upload.
func (s *AudioStore) PresignUpload(ctx context.Context, key string, maxBytes int64, expiry time.Duration) (string, map[string]string, error) {
	const sse = string(types.ServerSideEncryptionAes256)
	req, err := s.presign.PresignPostObject(ctx, &awss3.PutObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(key),
	}, func(o *awss3.PresignPostOptions) {
		o.Expires = expiry
		o.Conditions = []any{
			[]any{"content-length-range", 0, maxBytes},
			map[string]string{"x-amz-server-side-encryption": sse},
		}
	})
	if err != nil {
		return "", nil, fmt.Errorf("presign upload %s: %w", key, err)
	}
	fields := make(map[string]string, len(req.Values)+1)
	for k, v := range req.Values {
		fields[k] = v
	}
	fields["x-amz-server-side-encryption"] = sse
	return req.URL, fields, nil
}

// CreateBucket creates the bucket (tests and the local AWS stack; on AWS the
// template creates it). An existing bucket of ours is fine.
func CreateBucket(ctx context.Context, client *awss3.Client, bucket string) error {
	_, err := client.CreateBucket(ctx, &awss3.CreateBucketInput{Bucket: aws.String(bucket)})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if err != nil && !errors.As(err, &owned) && !errors.As(err, &exists) {
		return fmt.Errorf("create bucket %s: %w", bucket, err)
	}
	return nil
}

func audioNotFound(key string) error {
	return callscribe.Errorf(callscribe.CodeNotFound, "Audio %s was not found.", key)
}

// isNotFound recognises a missing object: NoSuchKey from GetObject, NotFound
// from HeadObject (a HEAD response has no body, so no error code beyond 404).
func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	if errors.As(err, &nsk) || errors.As(err, &nf) {
		return true
	}
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode() == "NoSuchKey" || apiErr.ErrorCode() == "NotFound")
}
