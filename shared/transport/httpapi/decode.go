package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// decodeJSON reads one JSON object from a bounded body.
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxJSONBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return callscribe.Errorf(callscribe.CodeRequestTooLarge, "The request body is larger than %d bytes.", maxJSONBody)
	}
	if err != nil {
		return callscribe.Errorf(callscribe.CodeInvalidJSONBody, "The request body could not be read.")
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return callscribe.Errorf(callscribe.CodeInvalidJSONBody, "The request body must be a JSON object.")
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return callscribe.Errorf(callscribe.CodeInvalidJSONBody, "The request body is not a valid JSON object: %s.", jsonProblem(err))
	}
	return nil
}

// jsonProblem describes a decoding error without echoing the body.
func jsonProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field != "" {
			return "field " + typeErr.Field + " must be a " + typeErr.Type.String()
		}
		return "expected a JSON object"
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return "malformed JSON"
	}
	return "malformed JSON"
}

// formatTime renders timestamps as ISO 8601 UTC with millisecond precision, the
// precision the service keeps, so a value read back can be sent as created_after:
// the layout "2006-01-02T15:04:05.000Z" (see appendTime).
func formatTime(t time.Time) string {
	var b [24]byte
	return string(appendTime(b[:0], t))
}

// appendTime appends formatTime's text, written digit by digit because every
// list item has two and time.Format interprets its layout on each call. Years
// outside 0-9999 (never stored) fall back to time.Format.
func appendTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, "2006-01-02T15:04:05.000Z")
	}
	hour, minute, second := t.Clock()
	var b [24]byte
	put := func(at, width, v int) {
		for i := at + width - 1; i >= at; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, 4, year)
	b[4] = '-'
	put(5, 2, int(month))
	b[7] = '-'
	put(8, 2, day)
	b[10] = 'T'
	put(11, 2, hour)
	b[13] = ':'
	put(14, 2, minute)
	b[16] = ':'
	put(17, 2, second)
	b[19] = '.'
	put(20, 3, t.Nanosecond()/int(time.Millisecond))
	b[23] = 'Z'
	return append(dst, b[:]...)
}

// apiTime is a timestamp that encodes as formatTime's text; the job bodies
// hold it so their appenders write the digits straight into the body.
type apiTime time.Time

func (t apiTime) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, 26), '"')
	return append(appendTime(b, time.Time(t)), '"'), nil
}
