package s3

import (
	"context"
	"fmt"
	"path"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
)

// AudioURL implements callscribe.AudioLinker: a presigned GET of one object,
// valid for expiry, so a browser's audio player can stream (and seek with
// Range requests) straight from the bucket without our credentials or a
// Lambda in the path. The response's Content-Type is pinned from the key's
// extension, which the service chose from the probed format.
func (s *AudioStore) AudioURL(ctx context.Context, key string, expiry time.Duration) (string, error) {
	in := &awss3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}
	switch path.Ext(key) {
	case ".wav":
		in.ResponseContentType = aws.String("audio/wav")
	case ".mp3":
		in.ResponseContentType = aws.String("audio/mpeg")
	}
	req, err := s.presign.PresignGetObject(ctx, in, awss3.WithPresignExpires(expiry))
	if err != nil {
		return "", fmt.Errorf("presign audio %s: %w", key, err)
	}
	return req.URL, nil
}
