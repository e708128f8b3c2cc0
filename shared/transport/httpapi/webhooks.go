package httpapi

import (
	"net/http"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// jobDeliveries lists a job's recorded tagDelivered attempts, newest first,
// after the same ownership check as reading the job. A job without a
// callback (or not yet delivered) has none.
func (s *Server) jobDeliveries(w http.ResponseWriter, r *http.Request, accountID string) {
	job, err := s.deps.Service.Get(r.Context(), accountID, r.PathValue("job_id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	attempts, err := s.deps.Webhooks.Deliveries(r.Context(), job.ID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]map[string]any, 0, len(attempts))
	for _, d := range attempts {
		item := map[string]any{
			"attempt":    d.Attempt,
			"at":         formatTime(d.At),
			"webhook_id": d.WebhookID,
			"host":       d.Host,
			"outcome":    string(d.Outcome),
		}
		if d.StatusCode != 0 {
			item["status_code"] = d.StatusCode
		}
		if d.Error != "" {
			item["error"] = d.Error
		}
		if d.NextAttemptAt != nil {
			item["next_attempt_at"] = formatTime(*d.NextAttemptAt)
		}
		out = append(out, item)
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"job_id": job.ID, "deliveries": out})
}

func (s *Server) signingSecret(w http.ResponseWriter, r *http.Request, accountID string) {
	sec, err := s.deps.Webhooks.SigningSecret(r.Context(), accountID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, s.signingSecretJSON(sec))
}

func (s *Server) rotateSigningSecret(w http.ResponseWriter, r *http.Request, accountID string) {
	sec, err := s.deps.Webhooks.RotateSigningSecret(r.Context(), accountID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	logger(r.Context()).Info("signing secret rotated", "accountId", accountID)
	writeJSON(w, r, http.StatusOK, s.signingSecretJSON(sec))
}

// signingSecretJSON is the signing secret routes' answer: the secret, and
// until when the one it replaced still signs deliveries beside it (null when
// none does).
func (s *Server) signingSecretJSON(sec *callscribe.SigningSecret) map[string]any {
	body := map[string]any{
		"signing_secret":       sec.Secret,
		"created_at":           formatTime(sec.CreatedAt),
		"previous_valid_until": nil,
	}
	if sec.Previous != "" && s.deps.Webhooks.Now().Before(sec.PreviousValidUntil) {
		// The previous secret itself is not shown again: the receiver
		// already has it, and it only needs to know how long it still works.
		body["previous_valid_until"] = formatTime(sec.PreviousValidUntil)
	}
	return body
}
