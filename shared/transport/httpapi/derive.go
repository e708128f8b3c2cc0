package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

// deriveRequest is the body of POST /v1/summarize and POST /v1/tag. Pointers tell
// "absent or null" from "empty".
type deriveRequest struct {
	TranscriptionJobID *string `json:"transcription_job_id"`
	TranscriptText     *string `json:"transcript_text"`
	// tagDelivered fields (POST /v1/tag only; ignored by summarize).
	CallbackURL    *string `json:"callback_url"`
	CallbackAPIKey *string `json:"callback_apikey"`
	CallUUID       *string `json:"call_uuid"`
	// RedactPII is kept raw so a non-boolean gets the field's own code,
	// INVALID_REDACT_PII, rather than the body's.
	RedactPII json.RawMessage `json:"redact_pii"`
}

// redactPIIField turns a JSON redact_pii into the service's raw field: a
// boolean into "true"/"false", absent or null into "" (the default), and
// anything else into a value the service refuses.
func redactPIIField(raw json.RawMessage) string {
	switch v := string(raw); v {
	case "", "null":
		return ""
	case "true", "false":
		return v
	}
	return "not a boolean"
}

func (s *Server) derive(jobType callscribe.JobType) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, accountID string) {
		var req deriveRequest
		if err := decodeJSON(w, r, &req); err != nil {
			writeError(w, r, err)
			return
		}
		s.idempotent(w, r, accountID, fingerprintJSON(req), func(w http.ResponseWriter, r *http.Request) {
			job, err := s.deps.Service.Derive(r.Context(), jobs.DeriveRequest{
				AccountID: accountID, Type: jobType,
				SourceJobID: deref(req.TranscriptionJobID), Text: deref(req.TranscriptText),
				CallbackURL: req.CallbackURL, CallbackAPIKey: req.CallbackAPIKey, CallUUID: req.CallUUID,
				RedactPII: redactPIIField(req.RedactPII),
			})
			if err != nil {
				writeError(w, r, err)
				return
			}
			writeJSON(w, r, http.StatusAccepted, map[string]any{
				"job_id": job.ID, "type": job.Type, "status": job.Status, "received_at": formatTime(job.CreatedAt),
			})
		})
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (s *Server) taxonomy(w http.ResponseWriter, r *http.Request, _ string) {
	writeJSON(w, r, http.StatusOK, map[string]any{"categories": callscribe.Taxonomy()})
}
