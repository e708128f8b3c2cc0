package jobs

import (
	"context"
	"net/mail"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/identity"
)

// MaxPasswordLength is bcrypt's limit: it reads only 72 bytes, so longer
// passwords are refused rather than silently cut.
const MaxPasswordLength = 72

// Signup creates an account on the local identity (Cognito owns sign-up on
// AWS). The email must be one plain address with a dotted domain; it is stored
// lower-cased, and EMAIL_TAKEN is case-insensitive.
func (s *Service) Signup(ctx context.Context, email, password string) (*callscribe.Account, error) {
	email = strings.TrimSpace(email)
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || len(email) > 254 || !strings.Contains(email[strings.LastIndex(email, "@")+1:], ".") {
		return nil, callscribe.Errorf(callscribe.CodeInvalidSignup, "A valid email address is required.")
	}
	if len(password) < identity.MinPasswordLength || len(password) > MaxPasswordLength {
		return nil, callscribe.Errorf(callscribe.CodeInvalidSignup, "The password must be %d to %d characters long.", identity.MinPasswordLength, MaxPasswordLength)
	}
	hash, err := identity.HashPassword(password)
	if err != nil {
		return nil, err
	}
	acct := &callscribe.Account{ID: s.deps.NewID(), Email: strings.ToLower(email), PasswordHash: hash, CreatedAt: s.now()}
	if err := s.deps.Accounts.CreateAccount(ctx, acct); err != nil {
		return nil, err
	}
	return acct, nil
}

// Login checks credentials on the local identity; from is the client's
// address, for the guard against password guessing (signin.go). An unknown
// email and a wrong password get the same UNAUTHORIZED, so the answer does
// not tell which addresses have accounts.
func (s *Service) Login(ctx context.Context, email, password, from string) (*callscribe.Account, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if err := s.signIn.check(email, from); err != nil {
		s.logger(ctx).WarnContext(ctx, "sign-in refused after repeated failures", "from", from)
		return nil, err
	}
	acct, err := s.deps.Accounts.AccountByEmail(ctx, email)
	if err != nil && !callscribe.IsCode(err, callscribe.CodeNotFound) {
		return nil, err
	}
	// An unknown email costs the same hash work as a wrong password, so the
	// time of the answer does not tell either.
	hash := identity.DummyPasswordHash()
	if acct != nil {
		hash = acct.PasswordHash
	}
	if !s.checkPassword(hash, password) || acct == nil {
		s.signIn.failed(email, from)
		return nil, callscribe.Errorf(callscribe.CodeUnauthorized, "Invalid email or password.")
	}
	s.signIn.succeeded(email, from)
	return acct, nil
}

// checkPassword is the one place sign-in spends password-hash work; it
// counts the checks so a test can see an unknown email costs one too.
func (s *Service) checkPassword(hash, password string) bool {
	s.passwordChecks.Add(1)
	return identity.CheckPassword(hash, password)
}

// NewAPIKey is a freshly created key: Secret is shown to the user once and
// never stored (only its hash is).
type NewAPIKey struct {
	Key    *callscribe.APIKey
	Secret string
}

// CreateAPIKey creates a key for the account.
func (s *Service) CreateAPIKey(ctx context.Context, accountID string) (*NewAPIKey, error) {
	secret, prefix, hash, err := identity.NewAPIKey()
	if err != nil {
		return nil, err
	}
	key := &callscribe.APIKey{ID: s.deps.NewID(), AccountID: accountID, Prefix: prefix, Hash: hash, CreatedAt: s.now()}
	if err := s.deps.Accounts.CreateAPIKey(ctx, key); err != nil {
		return nil, err
	}
	return &NewAPIKey{Key: key, Secret: secret}, nil
}

// ListAPIKeys returns the account's live keys, newest first.
func (s *Service) ListAPIKeys(ctx context.Context, accountID string) ([]*callscribe.APIKey, error) {
	return s.deps.Accounts.ListAPIKeys(ctx, accountID)
}

// RevokeAPIKey makes a key of the account unusable at once (in other
// processes, within the key cache's TTL: see keycache.go).
func (s *Service) RevokeAPIKey(ctx context.Context, accountID, keyID string) error {
	if err := s.deps.Accounts.RevokeAPIKey(ctx, accountID, keyID); err != nil {
		return err
	}
	s.keys.forget(keyID)
	return nil
}

// AuthenticateAPIKey resolves an API key secret to its key: UNAUTHORIZED for
// an unknown or revoked one. Dashboard session tokens are not API keys: they
// hash to nothing stored, so they are refused like any unknown key. Lookups
// are cached briefly and uses recorded at most once a minute (keycache.go).
func (s *Service) AuthenticateAPIKey(ctx context.Context, secret string) (*callscribe.APIKey, error) {
	hash := identity.HashAPIKey(secret)
	now := s.now()
	key, cached := s.keys.lookup(hash, now)
	if !cached {
		var err error
		key, err = s.deps.Accounts.APIKeyByHash(ctx, hash)
		if callscribe.IsCode(err, callscribe.CodeNotFound) {
			return nil, callscribe.Errorf(callscribe.CodeUnauthorized, "Invalid or revoked API key.")
		}
		if err != nil {
			return nil, err
		}
		s.keys.remember(key, now)
	}
	// Recording last use is bookkeeping: a failure must not fail the call.
	if s.keys.shouldRecordUse(key.ID, now) {
		if err := s.deps.Accounts.TouchAPIKey(ctx, key.ID, now); err != nil {
			s.logger(ctx).WarnContext(ctx, "recording API key use failed", "err", err, "keyId", key.ID)
		}
	}
	return key, nil
}
