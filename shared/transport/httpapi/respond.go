package httpapi

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// statusOf maps every error code to its HTTP status: the one place it is decided.
var statusOf = map[string]int{
	callscribe.CodeAudioFileMissing:          http.StatusBadRequest,
	callscribe.CodeAudioDurationUnknown:      http.StatusBadRequest,
	callscribe.CodeInvalidMetadataJSON:       http.StatusBadRequest,
	callscribe.CodeInvalidPagination:         http.StatusBadRequest,
	callscribe.CodeInvalidFilter:             http.StatusBadRequest,
	callscribe.CodeMissingJobID:              http.StatusBadRequest,
	callscribe.CodeInvalidJSONBody:           http.StatusBadRequest,
	callscribe.CodeMissingTranscriptSource:   http.StatusBadRequest,
	callscribe.CodeMultipleTranscriptSources: http.StatusBadRequest,
	callscribe.CodeMultipleAudioSources:      http.StatusBadRequest,
	callscribe.CodeNotATranscription:         http.StatusBadRequest,
	callscribe.CodeInvalidSignup:             http.StatusBadRequest,
	callscribe.CodeInvalidCallback:           http.StatusBadRequest,
	callscribe.CodeInvalidRequest:            http.StatusBadRequest,
	callscribe.CodeUploadNotFound:            http.StatusBadRequest,
	callscribe.CodeInvalidFormat:             http.StatusBadRequest,
	callscribe.CodeInvalidKeyterms:           http.StatusBadRequest,
	callscribe.CodeInvalidRedactPII:          http.StatusBadRequest,
	callscribe.CodeInvalidIdempotencyKey:     http.StatusBadRequest,
	callscribe.CodeUnauthorized:              http.StatusUnauthorized,
	callscribe.CodeForbidden:                 http.StatusForbidden,
	callscribe.CodeJobNotFound:               http.StatusNotFound,
	callscribe.CodeNotFound:                  http.StatusNotFound,
	callscribe.CodeMethodNotAllowed:          http.StatusMethodNotAllowed,
	callscribe.CodeTranscriptionNotReady:     http.StatusConflict,
	callscribe.CodeEmailTaken:                http.StatusConflict,
	callscribe.CodeIdempotencyKeyReused:      http.StatusConflict,
	callscribe.CodeIdempotencyKeyInUse:       http.StatusConflict,
	callscribe.CodeFileTooLarge:              http.StatusRequestEntityTooLarge,
	callscribe.CodeRequestTooLarge:           http.StatusRequestEntityTooLarge,
	callscribe.CodeUnsupportedAudioFormat:    http.StatusUnsupportedMediaType,
	callscribe.CodeTranscriptEmpty:           http.StatusUnprocessableEntity,
	callscribe.CodeQuotaExceeded:             http.StatusTooManyRequests,
	callscribe.CodeRateLimited:               http.StatusTooManyRequests,
	callscribe.CodeRequestHeadersTooLarge:    http.StatusRequestHeaderFieldsTooLarge,
	callscribe.CodeInternal:                  http.StatusInternalServerError,
	callscribe.CodeProviderSubmitFailed:      http.StatusBadGateway,
}

// HTTPStatus returns the status for an error code; unknown codes are internal.
func HTTPStatus(code string) int {
	if st, ok := statusOf[code]; ok {
		return st
	}
	return http.StatusInternalServerError
}

type ctxKey int

const (
	loggerKey ctxKey = iota
	accountKey
)

// withRequest carries the requestId (read by every layer through
// callscribe.RequestID) and the request's logger, which has it on every line.
func withRequest(ctx context.Context, requestID string, log *slog.Logger) context.Context {
	ctx = callscribe.WithRequestID(ctx, requestID)
	return context.WithValue(ctx, loggerKey, log)
}

// RequestID returns the requestId of the request being served.
func RequestID(ctx context.Context) string { return callscribe.RequestID(ctx) }

func logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// writeJSON writes body with requestId added.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, body map[string]any) {
	body["requestId"] = RequestID(r.Context())
	encodeBody(w, r, status, body)
}

// responseBody is a struct body with a requestId field.
type responseBody interface{ setRequestID(string) }

// writeBody writes a struct body with its requestId set.
func writeBody(w http.ResponseWriter, r *http.Request, status int, body responseBody) {
	body.setRequestID(RequestID(r.Context()))
	encodeBody(w, r, status, body)
}

// encodeBody encodes into a pooled buffer first, so the answer carries a
// Content-Length and goes out in one write: a list page is larger than
// net/http's 2 KiB response buffer, which otherwise switches to chunked
// encoding, and a body that fails to encode is never half sent.
func encodeBody(w http.ResponseWriter, r *http.Request, status int, body any) {
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledBody {
			buf.Reset()
			bodyBuffers.Put(buf)
		}
	}()
	var err error
	if a, ok := body.(jsonAppender); ok {
		var b []byte
		b, err = a.appendJSON(buf.AvailableBuffer())
		buf.Write(b) // b was appended in buf's spare capacity, if it fitted
	} else {
		err = bodyEncoder(buf).Encode(body)
	}
	if err != nil {
		logger(r.Context()).Error("encoding a response failed", "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		_ = bodyEncoder(buf).Encode(map[string]any{"error": map[string]any{"code": callscribe.CodeInternal, "message": internalErrorMessage}, "requestId": RequestID(r.Context())})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if _, err := w.Write(buf.Bytes()); err != nil {
		logger(r.Context()).Warn("writing response failed", "err", err)
	}
}

// bodyEncoder is how every response body is encoded: encoding/json without
// HTML escaping (the bodies are JSON for API clients, not HTML).
func bodyEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// bodyBuffers recycles response buffers; one that grew past maxPooledBody (a
// long transcript) is left to the collector rather than kept.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBody = 64 << 10

// internalErrorMessage is every 500's message: the cause is logged, never sent.
const internalErrorMessage = "An internal error occurred. Quote the requestId when contacting support."

// StatusClientClosedRequest is recorded for a request whose client
// disconnected before the answer (never seen by a client).
const StatusClientClosedRequest = 499

// writeError writes the spec's error shape. Internal errors are logged with their
// real cause and answered with a generic message: no err.Error() in a 500 body.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := callscribe.ErrorCode(err)
	status := HTTPStatus(code)
	if status == http.StatusInternalServerError && r.Context().Err() != nil {
		// The client went away and the work under it was cancelled: nobody
		// is waiting for an answer and nothing is broken. The access log
		// shows 499 (the status proxies use for a closed client request).
		logger(r.Context()).Info("request cancelled by the client", "cause", err, "method", r.Method, "path", r.URL.Path)
		w.WriteHeader(StatusClientClosedRequest)
		return
	}
	if status == http.StatusInternalServerError {
		code = callscribe.CodeInternal
		logger(r.Context()).Error("internal error", "err", err, "method", r.Method, "path", r.URL.Path)
	}
	e := map[string]any{"code": code, "message": callscribe.ErrorMessage(err)}
	if status == http.StatusInternalServerError {
		e["message"] = internalErrorMessage
	}
	var ce *callscribe.Error
	if errors.As(err, &ce) && ce.Details != nil {
		e["details"] = ce.Details
	}
	if ce != nil && ce.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(ce.RetryAfter/time.Second)))
	}
	writeJSON(w, r, status, map[string]any{"error": e})
}

func constantTimeEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
