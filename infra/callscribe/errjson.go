package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/callscribe/callscribe/shared/client"
)

// The codes of errors the CLI finds itself, in --json error bodies (errors of
// the service keep the service's code; a failed job its job error code).
const (
	codeUsage        = "USAGE"             // exit 2
	codeAuth         = "NOT_AUTHENTICATED" // exit 3: no API key or session
	codeStillRunning = "JOB_STILL_RUNNING" // exit 4
	codeInterrupted  = "INTERRUPTED"       // exit 130
	codeCLI          = "CLI_ERROR"         // exit 1: files, network, anything else
)

// errorBody is the API's error shape, {"error":{"code","message"},"requestId"},
// with what the CLI adds: the job of a failed or unfinished wait and the file
// of a transcribe run.
type errorBody struct {
	Error     errorFields `json:"error"`
	RequestID string      `json:"requestId"`
	JobID     string      `json:"job_id,omitempty"`
	File      string      `json:"file,omitempty"`
}

type errorFields struct {
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Details json.RawMessage `json:"details,omitempty"`
}

// errorJSON is err in the API's error shape.
func errorJSON(err error) errorBody {
	var b errorBody
	b.Error.Message = errorText(err)
	var (
		failed  *client.JobFailedError
		usage   *usageError
		auth    *authError
		running *stillRunningError
		hinted  *hintError
	)
	hint := ""
	if errors.As(err, &hinted) {
		hint = " " + hinted.hint
	}
	switch {
	case errors.As(err, &failed) && failed.Job != nil:
		b.JobID = failed.Job.ID
		b.Error.Code = orDefault(failed.Err.Code, "job_failed")
		b.Error.Message = oneLine(failed.Err.Message)
		b.Error.Details = failed.Err.Details
		b.RequestID = failed.Err.RequestID
	case errors.As(err, &usage):
		b.Error.Code = codeUsage
	case errors.As(err, &auth):
		b.Error.Code = codeAuth
	case errors.As(err, &running):
		b.Error.Code = codeStillRunning
		b.JobID = running.id
	case errors.Is(err, context.Canceled):
		b.Error.Code = codeInterrupted
	default:
		if apiErr, ok := client.AsError(err); ok {
			b.Error.Code = apiErr.Code
			if b.Error.Code == "" {
				b.Error.Code = fmt.Sprintf("HTTP_%d", apiErr.Status)
			}
			b.Error.Message = oneLine(apiErr.Message) + hint
			b.Error.Details = apiErr.Details
			b.RequestID = apiErr.RequestID
			break
		}
		b.Error.Code = codeCLI
		if errors.Is(err, client.ErrWaitExhausted) {
			b.Error.Code = codeStillRunning
		}
	}
	b.Error.Message = strings.TrimPrefix(b.Error.Message, "callscribe: ")
	return b
}

// writeError writes err as one line of the API's error JSON; file, when not
// nil, names the file of a transcribe run it belongs to.
func writeError(w io.Writer, err error, file *string) {
	b := errorJSON(err)
	if file != nil {
		b.File = *file
	}
	writeJSONLine(w, b)
}

// writeErrorJSON writes an error of the CLI's own as the API's error JSON.
func writeErrorJSON(w io.Writer, code, message, requestID string, file *string) {
	b := errorBody{Error: errorFields{Code: code, Message: message}, RequestID: requestID}
	if file != nil {
		b.File = *file
	}
	writeJSONLine(w, b)
}
