package httpapi

import (
	"net/http"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

type credentials struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// credentialsHandler decodes the email and password of the local identity's
// sign-up and sign-in, which exist only where sign-in is ours (not Cognito's).
func (s *Server) credentialsHandler(next func(w http.ResponseWriter, r *http.Request, c credentials)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.allowAddress(w, r) {
			return
		}
		if s.deps.Issuer == nil {
			writeError(w, r, callscribe.Errorf(callscribe.CodeNotFound, "Local sign-up and sign-in are not available in this deployment."))
			return
		}
		var c credentials
		if err := decodeJSON(w, r, &c); err != nil {
			writeError(w, r, err)
			return
		}
		next(w, r, c)
	}
}

func (s *Server) signup(w http.ResponseWriter, r *http.Request, c credentials) {
	acct, err := s.deps.Service.Signup(r.Context(), c.Email, c.Password)
	if err != nil {
		writeError(w, r, err)
		return
	}
	logger(r.Context()).Info("account created", "accountId", acct.ID)
	writeJSON(w, r, http.StatusCreated, map[string]any{"account_id": acct.ID})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request, c credentials) {
	acct, err := s.deps.Service.Login(r.Context(), c.Email, c.Password, clientAddress(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	token, exp := s.deps.Issuer.Issue(acct.ID)
	writeJSON(w, r, http.StatusOK, map[string]any{"token": token, "expires_at": formatTime(exp)})
}

func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request, accountID string) {
	created, err := s.deps.Service.CreateAPIKey(r.Context(), accountID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	logger(r.Context()).Info("api key created", "accountId", accountID, "keyId", created.Key.ID)
	writeJSON(w, r, http.StatusCreated, map[string]any{"key_id": created.Key.ID, "api_key": created.Secret, "created_at": formatTime(created.Key.CreatedAt)})
}

func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request, accountID string) {
	keys, err := s.deps.Service.ListAPIKeys(r.Context(), accountID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		var last any
		if k.LastUsedAt != nil {
			last = formatTime(*k.LastUsedAt)
		}
		out = append(out, map[string]any{"key_id": k.ID, "prefix": k.Prefix, "created_at": formatTime(k.CreatedAt), "last_used_at": last})
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"api_keys": out})
}

func (s *Server) revokeAPIKey(w http.ResponseWriter, r *http.Request, accountID string) {
	if err := s.deps.Service.RevokeAPIKey(r.Context(), accountID, r.PathValue("key_id")); err != nil {
		writeError(w, r, err)
		return
	}
	logger(r.Context()).Info("api key revoked", "accountId", accountID, "keyId", r.PathValue("key_id"))
	writeJSON(w, r, http.StatusOK, map[string]any{"revoked": true})
}

func (s *Server) usage(w http.ResponseWriter, r *http.Request, accountID string) {
	u, err := s.deps.Service.Usage(r.Context(), accountID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, map[string]any{
		"limit_minutes":     callscribe.Minutes(u.LimitSeconds),
		"used_minutes":      callscribe.Minutes(u.UsedSeconds),
		"remaining_minutes": callscribe.Minutes(u.RemainingSeconds()),
	})
}

// dailyUsage serves the usage page's chart: two months of minutes per UTC
// day and the top upload languages (jobs.Service.DailyUsage).
func (s *Server) dailyUsage(w http.ResponseWriter, r *http.Request, accountID string) {
	u, err := s.deps.Service.DailyUsage(r.Context(), accountID, r.URL.Query().Get("month"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	months := make([]map[string]any, 0, len(u.Months))
	for _, m := range u.Months {
		days := make([]map[string]any, 0, len(m.Days))
		for _, d := range m.Days {
			days = append(days, map[string]any{"date": d.Day, "minutes": callscribe.Minutes(d.Seconds), "jobs": d.Jobs})
		}
		months = append(months, map[string]any{"month": m.Month, "used_minutes": callscribe.Minutes(m.Seconds), "days": days})
	}
	top := make([]map[string]any, 0, len(u.TopLanguages))
	for _, l := range u.TopLanguages {
		var language any
		if l.Language != "" {
			language = l.Language
		}
		top = append(top, map[string]any{"language": language, "minutes": callscribe.Minutes(l.Seconds)})
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"months": months, "top_languages": top})
}

// jobAudio hands the dashboard's player a short-lived link to a job's audio.
func (s *Server) jobAudio(w http.ResponseWriter, r *http.Request, accountID string) {
	link, err := s.deps.Service.AudioLink(r.Context(), accountID, r.PathValue("job_id"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"url": link.URL, "expires_at": formatTime(link.ExpiresAt)})
}

// limits tells the dashboard the service's upload and listing rules, so the
// front end checks a file before sending it without restating the rules.
func (s *Server) limits(w http.ResponseWriter, r *http.Request, _ string) {
	direct := s.cfg.DirectUploadMaxBytes
	if direct <= 0 || direct > jobs.MaxAudioBytes {
		direct = jobs.MaxAudioBytes
	}
	writeJSON(w, r, http.StatusOK, map[string]any{
		"max_audio_bytes":         jobs.MaxAudioBytes,
		"direct_upload_max_bytes": direct,
		"audio_formats":           []string{string(callscribe.FormatMP3), string(callscribe.FormatWAV)},
		"max_metadata_bytes":      jobs.MaxMetadataBytes,
		"default_page_size":       jobs.DefaultPageSize,
		"max_page_size":           jobs.MaxPageSize,
	})
}

// dashboardConfig tells the page how people sign in here; it needs no session
// (it is what the sign-in page reads first) and holds nothing secret: an app
// client id is public by design.
func (s *Server) dashboardConfig(w http.ResponseWriter, r *http.Request) {
	id := s.cfg.Identity
	if id.Kind == "" {
		id.Kind = "local"
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"identity": id})
}
