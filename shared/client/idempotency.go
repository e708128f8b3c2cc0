package client

import (
	"context"
	"crypto/rand"
	"fmt"
)

// Every create (transcriptions, two-step uploads, summaries, tags) is sent
// with an Idempotency-Key, so retrying it cannot make a second job: the
// service answers a repeat of a request it has answered with the first answer.
// The key is random per logical call and reused on that call's own retries,
// which makes creates retryable like GETs (after a dropped connection or a
// 5xx). A caller that retries a create itself, across calls or processes,
// passes its own key with WithIdempotencyKey.

type idempotencyKeyCtx struct{}

// WithIdempotencyKey returns a context whose create calls send key as their
// Idempotency-Key (1 to 255 printable ASCII characters) instead of a random
// one: calls with the same key and the same request within 24 hours make
// one job. A create made of several requests (a large file's two-step upload)
// sends it on the request that creates the job.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKeyCtx{}, key)
}

// idempotencyKey is the caller's key from ctx, or a new random one.
func idempotencyKey(ctx context.Context) string {
	if k, ok := ctx.Value(idempotencyKeyCtx{}).(string); ok && k != "" {
		return k
	}
	return newKey()
}

// newKey is a random (version 4) UUID.
func newKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
