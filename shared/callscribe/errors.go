// Package callscribe is the domain of the service: jobs, accounts, the error type
// and the ports (interfaces) that adapters implement. It imports no adapter.
package callscribe

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// The API's error codes (codes.gen.go) are generated from the OpenAPI
// document's ErrorCode enum, the one list of codes that reach the wire; the
// HTTP status for each lives in one table in the httpapi package.
//go:generate go run ../transport/openapi/internal/gencodes -package callscribe

// CodeConflict never leaves the process: a compare-and-set status transition
// found the job in another state (or deleted) and did nothing. It has no HTTP
// status, so should it ever reach a response it is answered as INTERNAL_ERROR.
const CodeConflict = "CONFLICT"

// Error is the one error type of the service. Code is machine readable; Message is
// safe to show to the caller; Details is optional structured data (QUOTA_EXCEEDED).
type Error struct {
	Code    string
	Message string
	Details map[string]any
	// RetryAfter, when set, is how long the caller should wait before trying
	// again (sent as the Retry-After header).
	RetryAfter time.Duration
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// RateLimited is RATE_LIMITED with the wait until a retry can succeed, also
// given in details as retry_after_seconds (whole seconds, rounded up).
func RateLimited(wait time.Duration, message string) *Error {
	secs := int64((wait + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return &Error{Code: CodeRateLimited, Message: message, RetryAfter: time.Duration(secs) * time.Second, Details: map[string]any{"retry_after_seconds": secs}}
}

// Errorf builds an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err: "" for nil, the code of an *Error anywhere in
// the chain, and CodeInternal for anything else (whose text is never shown).
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the caller-safe message of err. Errors that are not *Error
// are internal; their text may carry secrets or paths and is replaced.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "An internal error occurred."
}

// IsCode reports whether err carries the given code.
func IsCode(err error, code string) bool { return err != nil && ErrorCode(err) == code }

// Minutes converts seconds to minutes rounded to 2 decimals, the precision of every
// minute figure the API reports.
func Minutes(seconds float64) float64 { return math.Round(seconds/60*100) / 100 }

// QuotaExceeded builds the 429 error with the details the spec requires.
func QuotaExceeded(limitSeconds, usedSeconds, fileSeconds float64) *Error {
	return &Error{
		Code:    CodeQuotaExceeded,
		Message: fmt.Sprintf("This upload (%.2f min) would exceed the monthly quota: %.2f of %.2f minutes used.", Minutes(fileSeconds), Minutes(usedSeconds), Minutes(limitSeconds)),
		Details: map[string]any{
			"limit_minutes": Minutes(limitSeconds),
			"used_minutes":  Minutes(usedSeconds),
			"file_minutes":  Minutes(fileSeconds),
		},
	}
}
