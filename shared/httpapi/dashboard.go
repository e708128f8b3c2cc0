package httpapi

import (
	"net/http"
	"net/mail"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/identity"
)

type credentials struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

func (s *Server) identityAvailable(w http.ResponseWriter, r *http.Request) bool {
	if s.deps.Issuer == nil {
		writeError(w, r, callscribe.Errorf(callscribe.CodeNotFound, "Local sign-up and sign-in are not available in this deployment."))
		return false
	}
	return true
}

func (s *Server) signup(w http.ResponseWriter, r *http.Request) {
	if !s.identityAvailable(w, r) {
		return
	}
	var c credentials
	if err := decodeJSON(w, r, &c); err != nil {
		writeError(w, r, err)
		return
	}
	email := strings.TrimSpace(c.Email)
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || len(email) > 254 || !strings.Contains(email[strings.LastIndex(email, "@")+1:], ".") {
		writeError(w, r, callscribe.Errorf(callscribe.CodeInvalidSignup, "A valid email address is required."))
		return
	}
	// bcrypt only reads 72 bytes: refuse longer passwords rather than silently ignore the rest.
	if len(c.Password) < identity.MinPasswordLength || len(c.Password) > 72 {
		writeError(w, r, callscribe.Errorf(callscribe.CodeInvalidSignup, "The password must be %d to 72 characters long.", identity.MinPasswordLength))
		return
	}
	hash, err := identity.HashPassword(c.Password)
	if err != nil {
		writeError(w, r, err)
		return
	}
	acct := &callscribe.Account{ID: s.deps.NewID(), Email: strings.ToLower(email), PasswordHash: hash, CreatedAt: s.now()}
	if err := s.deps.Accounts.CreateAccount(r.Context(), acct); err != nil {
		writeError(w, r, err)
		return
	}
	logger(r.Context()).Info("account created", "accountId", acct.ID)
	writeJSON(w, r, http.StatusCreated, map[string]any{"account_id": acct.ID})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.identityAvailable(w, r) {
		return
	}
	var c credentials
	if err := decodeJSON(w, r, &c); err != nil {
		writeError(w, r, err)
		return
	}
	acct, err := s.deps.Accounts.AccountByEmail(r.Context(), strings.ToLower(strings.TrimSpace(c.Email)))
	if err != nil && !callscribe.IsCode(err, callscribe.CodeNotFound) {
		writeError(w, r, err)
		return
	}
	if acct == nil || !identity.CheckPassword(acct.PasswordHash, c.Password) {
		writeError(w, r, callscribe.Errorf(callscribe.CodeUnauthorized, "Invalid email or password."))
		return
	}
	token, exp := s.deps.Issuer.Issue(acct.ID)
	writeJSON(w, r, http.StatusOK, map[string]any{"token": token, "expires_at": formatTime(exp)})
}

func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request, accountID string) {
	secret, prefix, hash, err := identity.NewAPIKey()
	if err != nil {
		writeError(w, r, err)
		return
	}
	key := &callscribe.APIKey{ID: s.deps.NewID(), AccountID: accountID, Prefix: prefix, Hash: hash, CreatedAt: s.now()}
	if err := s.deps.Accounts.CreateAPIKey(r.Context(), key); err != nil {
		writeError(w, r, err)
		return
	}
	logger(r.Context()).Info("api key created", "accountId", accountID, "keyId", key.ID)
	writeJSON(w, r, http.StatusCreated, map[string]any{"key_id": key.ID, "api_key": secret, "created_at": formatTime(key.CreatedAt)})
}

func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request, accountID string) {
	keys, err := s.deps.Accounts.ListAPIKeys(r.Context(), accountID)
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
	if err := s.deps.Accounts.RevokeAPIKey(r.Context(), accountID, r.PathValue("key_id")); err != nil {
		writeError(w, r, err)
		return
	}
	logger(r.Context()).Info("api key revoked", "accountId", accountID, "keyId", r.PathValue("key_id"))
	writeJSON(w, r, http.StatusOK, map[string]any{"revoked": true})
}

func (s *Server) usage(w http.ResponseWriter, r *http.Request, accountID string) {
	used, err := s.deps.Jobs.UsedSeconds(r.Context(), accountID, callscribe.QuotaMonth(s.now()))
	if err != nil {
		writeError(w, r, err)
		return
	}
	limit := s.cfg.QuotaMinutes * 60
	writeJSON(w, r, http.StatusOK, map[string]any{
		"limit_minutes":     callscribe.Minutes(limit),
		"used_minutes":      callscribe.Minutes(used),
		"remaining_minutes": callscribe.Minutes(max(0, limit-used)),
	})
}
