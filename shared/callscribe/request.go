package callscribe

import "context"

type requestIDKey struct{}

// WithRequestID returns ctx carrying the requestId of the API call being
// served, or of the call that caused a piece of queued work. Every layer reads
// it from the context, so each log line carries it without passing it around.
func WithRequestID(ctx context.Context, requestID string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, requestID)
}

// RequestID returns the requestId carried by ctx; "" when there is none.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
