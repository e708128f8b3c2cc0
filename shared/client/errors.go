package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Error is every error the service answered: a non-2xx response. Status is
// the HTTP status; Code, Message and Details are the body's error.code,
// error.message and error.details; RequestID is the body's requestId (or the
// X-Request-Id header), to quote to support; RetryAfter is the Retry-After
// header, when there was one.
//
// A response whose body is not the service's error shape (a proxy's or API
// gateway's HTML or plain-text page) is an *Error too: its Code is
// "HTTP_<status>" and its Message says what came back.
//
// A failed job is not an HTTP error; WaitForJob reports it as a
// *JobFailedError whose Err is an *Error with Status 0 and the job's error code.
type Error struct {
	Status     int
	Code       string
	Message    string
	Details    json.RawMessage
	RequestID  string
	RetryAfter time.Duration

	raw    []byte      // the response body, for callers beyond the service (Cognito)
	header http.Header // the response header
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("callscribe: ")
	if e.Code != "" {
		b.WriteString(e.Code)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.Status)
		if e.RequestID != "" {
			b.WriteString(", requestId ")
			b.WriteString(e.RequestID)
		}
		b.WriteString(")")
	} else if e.RequestID != "" {
		fmt.Fprintf(&b, " (requestId %s)", e.RequestID)
	}
	return b.String()
}

// Quota returns the figures (QuotaDetails, in minutes) of a QUOTA_EXCEEDED error; ok is false for any
// other error or when the details are missing.
func (e *Error) Quota() (QuotaDetails, bool) {
	var q QuotaDetails
	if e == nil || e.Code != CodeQuotaExceeded || len(e.Details) == 0 {
		return q, false
	}
	if err := json.Unmarshal(e.Details, &q); err != nil {
		return QuotaDetails{}, false
	}
	return q, true
}

// parseError builds the *Error of a non-2xx response.
func parseError(status int, h http.Header, body []byte) *Error {
	e := &Error{Status: status, RetryAfter: parseRetryAfter(h.Get("Retry-After")), RequestID: h.Get("X-Request-Id"), raw: body[:min(len(body), 64<<10)], header: h}
	var shape ErrorResponse
	if json.Unmarshal(body, &shape) == nil && shape.Error.Code != "" {
		e.Code, e.Message = shape.Error.Code, shape.Error.Message
		if d := shape.Error.Details; len(d) > 0 && string(d) != "null" {
			e.Details = d
		}
		if shape.RequestID != "" {
			e.RequestID = shape.RequestID
		}
		return e
	}
	e.Code = fmt.Sprintf("HTTP_%d", status)
	msg := fmt.Sprintf("unexpected %d %s response", status, http.StatusText(status))
	if snippet := bodySnippet(h.Get("Content-Type"), body); snippet != "" {
		msg += ": " + snippet
	}
	e.Message = msg
	return e
}

// bodySnippet is the start of a non-API error body on one line, or a note of
// its type and size when it is HTML or binary.
func bodySnippet(contentType string, body []byte) string {
	text := strings.TrimSpace(string(body))
	if text == "" {
		return ""
	}
	// API Gateway's {"message":"..."}.
	var gw struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &gw) == nil && gw.Message != "" {
		text = gw.Message
	} else if strings.Contains(contentType, "html") || !utf8.ValidString(text) {
		return fmt.Sprintf("%d-byte %s body", len(body), strings.TrimSpace(strings.Split(contentType, ";")[0]))
	}
	text = strings.Join(strings.Fields(text), " ")
	if len(text) > 200 {
		text = text[:200]
		for !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
		text += "…"
	}
	return text
}

// AsError returns the *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// ErrorCode returns the code of the *Error in err's chain, or "".
func ErrorCode(err error) string {
	if e, ok := AsError(err); ok {
		return e.Code
	}
	return ""
}

// ErrorStatus returns the HTTP status of the *Error in err's chain, or 0.
func ErrorStatus(err error) int {
	if e, ok := AsError(err); ok {
		return e.Status
	}
	return 0
}

// IsCode reports whether err is an *Error with that code.
func IsCode(err error, code string) bool { return err != nil && ErrorCode(err) == code }

// IsNotFound reports a 404: JOB_NOT_FOUND, or NOT_FOUND (no such route or resource).
func IsNotFound(err error) bool { return ErrorStatus(err) == http.StatusNotFound }

// IsUnauthorized reports a 401: a missing or invalid API key, session or gateway key.
func IsUnauthorized(err error) bool { return ErrorStatus(err) == http.StatusUnauthorized }

// IsForbidden reports a 403: the job belongs to another account.
func IsForbidden(err error) bool { return ErrorStatus(err) == http.StatusForbidden }

// IsQuotaExceeded reports a 429 QUOTA_EXCEEDED; its figures are in Error.Quota.
func IsQuotaExceeded(err error) bool { return IsCode(err, CodeQuotaExceeded) }

// IsRateLimited reports a 429 that is not QUOTA_EXCEEDED: the service's
// request budget (RATE_LIMITED) or a gateway's throttling, worth retrying
// after Error.RetryAfter.
func IsRateLimited(err error) bool {
	return ErrorStatus(err) == http.StatusTooManyRequests && !IsQuotaExceeded(err)
}
