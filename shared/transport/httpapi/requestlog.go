package httpapi

import (
	"context"
	"log/slog"
)

// requestLogger returns base with the requestId on every line it writes.
// Logger.With would format the attribute into the JSON handler's prefix on
// every request, including the many that write no line at the level a
// service runs at; this handler adds it to each record instead, when (and
// only if) a line is written.
func requestLogger(base *slog.Logger, requestID string) *slog.Logger {
	return slog.New(requestIDHandler{next: base.Handler(), requestID: requestID})
}

type requestIDHandler struct {
	next      slog.Handler
	requestID string
}

func (h requestIDHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	r.AddAttrs(slog.String("requestId", h.requestID))
	return h.next.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{next: h.next.WithAttrs(attrs), requestID: h.requestID}
}

// WithGroup puts the requestId in the prefix first: added per record it would
// land inside the group.
func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return h.next.WithAttrs([]slog.Attr{slog.String("requestId", h.requestID)}).WithGroup(name)
}
