package jobs

import (
	"encoding/json"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/redact"
)

// parseRedactPII reads a redact_pii field: "true" or "false" (any case,
// trimmed), or "" for the deployment's default; anything else is
// INVALID_REDACT_PII.
func (s *Service) parseRedactPII(raw string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "":
		return s.cfg.RedactPII, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, callscribe.Errorf(callscribe.CodeInvalidRedactPII, "redact_pii must be true or false.")
}

// recordingDeleted reports whether PII redaction deleted the job's recording.
func recordingDeleted(job *callscribe.Job) bool {
	if !job.RedactPII || job.Status != callscribe.StatusSucceeded {
		return false
	}
	var r struct {
		Redaction *callscribe.Redaction `json:"redaction"`
	}
	return json.Unmarshal(job.Result, &r) == nil && r.Redaction != nil && r.Redaction.Audio == callscribe.RedactionAudioDeleted
}

// redactInput replaces the personal data in a derived job's input before the
// job is stored, so the stores, the queue and the engines never see it.
func redactInput(in *callscribe.Transcript) *callscribe.Transcript {
	out, _ := redact.Transcript(*in)
	return &out
}
