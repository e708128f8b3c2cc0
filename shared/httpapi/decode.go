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
// precision the service keeps, so a value read back can be sent as created_after.
func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
