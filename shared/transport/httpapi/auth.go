package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/identity"
)

// authedHandler is a handler that knows the authenticated account.
type authedHandler func(w http.ResponseWriter, r *http.Request, accountID string)

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// apiKey authenticates a static API key. Session tokens are not API keys: they
// hash to nothing stored, so they get 401 like any unknown key.
func (s *Server) apiKey(next authedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearer(r)
		if !ok {
			writeError(w, r, callscribe.Errorf(callscribe.CodeUnauthorized, "Missing API key: send Authorization: Bearer <API_KEY>."))
			return
		}
		key, err := s.deps.Service.AuthenticateAPIKey(r.Context(), token)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if !s.allowKey(w, r, key.ID) {
			return
		}
		ctx := context.WithValue(r.Context(), accountKey, key.AccountID)
		r = r.WithContext(ctx)
		logger(ctx).Debug("authenticated", "accountId", key.AccountID, "keyId", key.ID)
		next(w, r, key.AccountID)
	}
}

// session authenticates a dashboard sign-in session. API keys are not sessions
// and get 401, as the spec's Authentication table requires for the usage route.
func (s *Server) session(next authedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.allowAddress(w, r) {
			return
		}
		if s.deps.Sessions == nil {
			writeError(w, r, callscribe.Errorf(callscribe.CodeUnauthorized, "Dashboard sessions are not available here."))
			return
		}
		accountID, err := s.deps.Sessions.AuthenticateSession(r)
		if err != nil || accountID == "" {
			writeError(w, r, callscribe.Errorf(callscribe.CodeUnauthorized, "Missing, invalid or expired dashboard session."))
			return
		}
		next(w, r, accountID)
	}
}

// BearerSessions authenticates local dashboard session tokens from the
// Authorization header.
type BearerSessions struct{ Sessions *identity.Sessions }

// AuthenticateSession implements SessionAuthenticator.
func (b BearerSessions) AuthenticateSession(r *http.Request) (string, error) {
	token, ok := bearer(r)
	if !ok {
		return "", identity.ErrInvalidSession
	}
	return b.Sessions.Verify(token)
}

// Issue implements SessionIssuer.
func (b BearerSessions) Issue(accountID string) (string, time.Time) {
	return b.Sessions.Issue(accountID)
}
