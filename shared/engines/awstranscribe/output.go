package awstranscribe

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	smithy "github.com/aws/smithy-go"
)

// ErrOutputNotFound is returned by Output.Get for a missing object.
var ErrOutputNotFound = errors.New("transcription output not found")

// Output reads and deletes the result objects Transcribe writes. It is an
// interface so tests can run against any S3 endpoint (gofakes3) or none.
type Output interface {
	// Get returns the object's bytes; ErrOutputNotFound when absent.
	Get(ctx context.Context, key string) ([]byte, error)
	// Delete removes the object; deleting an absent key is not an error.
	Delete(ctx context.Context, key string) error
}

// maxOutputBytes bounds a result read. A 10 MiB upload is at most about 45
// minutes of speech, whose result JSON (one object per word, per channel and
// again in results.items) stays well below this.
const maxOutputBytes = 64 << 20

// S3Output is Output on one bucket.
type S3Output struct {
	client *s3.Client
	bucket string
}

// NewS3Output returns an Output on bucket.
func NewS3Output(client *s3.Client, bucket string) *S3Output {
	return &S3Output{client: client, bucket: bucket}
}

func (o *S3Output) Get(ctx context.Context, key string) ([]byte, error) {
	out, err := o.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(o.bucket), Key: aws.String(key)})
	if err != nil {
		var nsk *s3types.NoSuchKey
		var apiErr smithy.APIError
		if errors.As(err, &nsk) || (errors.As(err, &apiErr) && apiErr.ErrorCode() == "NotFound") {
			return nil, ErrOutputNotFound
		}
		return nil, fmt.Errorf("get s3://%s/%s: %w", o.bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, maxOutputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read s3://%s/%s: %w", o.bucket, key, err)
	}
	if len(b) > maxOutputBytes {
		return nil, fmt.Errorf("s3://%s/%s is larger than %d bytes", o.bucket, key, maxOutputBytes)
	}
	return b, nil
}

func (o *S3Output) Delete(ctx context.Context, key string) error {
	_, err := o.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(o.bucket), Key: aws.String(key)})
	if err != nil {
		return fmt.Errorf("delete s3://%s/%s: %w", o.bucket, key, err)
	}
	return nil
}
