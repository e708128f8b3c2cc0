package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// AccountStore implements callscribe.AccountStore.
type AccountStore struct{ db *DB }

var _ callscribe.AccountStore = (*AccountStore)(nil)

// emailKey is the case-insensitive identity of an email. SQLite's NOCASE folds
// ASCII only, so the folding is done here, with Unicode rules.
func emailKey(email string) string { return strings.ToLower(email) }

// CreateAccount stores a, failing with EMAIL_TAKEN when the email exists in any case.
func (s *AccountStore) CreateAccount(ctx context.Context, a *callscribe.Account) error {
	_, err := s.db.write.ExecContext(ctx, `INSERT INTO accounts (id, email, email_key, password_hash, created_at) VALUES (?, ?, ?, ?, ?)`,
		a.ID, a.Email, emailKey(a.Email), a.PasswordHash, a.CreatedAt.UnixNano())
	if isUniqueViolation(err) {
		if s.emailExists(ctx, a.Email) {
			return callscribe.Errorf(callscribe.CodeEmailTaken, "An account with this email already exists.")
		}
		return fmt.Errorf("sqlite: create account %s: %w", a.ID, err)
	}
	if err != nil {
		return fmt.Errorf("sqlite: create account %s: %w", a.ID, err)
	}
	return nil
}

// emailExists tells an email clash from an id clash after a unique violation.
func (s *AccountStore) emailExists(ctx context.Context, email string) bool {
	var one int
	err := s.db.write.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE email_key = ?`, emailKey(email)).Scan(&one)
	return err == nil
}

// AccountByEmail finds an account by email, case-insensitively.
func (s *AccountStore) AccountByEmail(ctx context.Context, email string) (*callscribe.Account, error) {
	var (
		a         callscribe.Account
		createdAt int64
	)
	err := s.db.read.QueryRowContext(ctx, `SELECT id, email, password_hash, created_at FROM accounts WHERE email_key = ?`, emailKey(email)).
		Scan(&a.ID, &a.Email, &a.PasswordHash, &createdAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, callscribe.Errorf(callscribe.CodeNotFound, "No account with this email.")
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: account by email: %w", err)
	}
	a.CreatedAt = time.Unix(0, createdAt).UTC()
	return &a, nil
}

// CreateAPIKey stores a new key.
func (s *AccountStore) CreateAPIKey(ctx context.Context, k *callscribe.APIKey) error {
	_, err := s.db.write.ExecContext(ctx, `INSERT INTO api_keys (id, account_id, prefix, hash, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)`,
		k.ID, k.AccountID, k.Prefix, k.Hash, k.CreatedAt.UnixNano(), nullableTime(k.LastUsedAt))
	if err != nil {
		return fmt.Errorf("sqlite: create API key %s: %w", k.ID, err)
	}
	return nil
}

const apiKeyColumns = `id, account_id, prefix, hash, created_at, last_used_at`

// APIKeyByHash returns the live key with that hash.
func (s *AccountStore) APIKeyByHash(ctx context.Context, hash string) (*callscribe.APIKey, error) {
	row := s.db.read.QueryRowContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE hash = ? AND revoked_at IS NULL`, hash)
	k, err := scanAPIKey(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, callscribe.Errorf(callscribe.CodeNotFound, "No such API key.")
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: API key by hash: %w", err)
	}
	return k, nil
}

// TouchAPIKey records a use of the key; NOT_FOUND when no such key exists.
func (s *AccountStore) TouchAPIKey(ctx context.Context, keyID string, at time.Time) error {
	res, err := s.db.write.ExecContext(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ?`, at.UnixNano(), keyID)
	if err != nil {
		return fmt.Errorf("sqlite: touch API key %s: %w", keyID, err)
	}
	return requireOneRow(res, "No such API key.")
}

// ListAPIKeys returns an account's live keys, newest first.
func (s *AccountStore) ListAPIKeys(ctx context.Context, accountID string) ([]*callscribe.APIKey, error) {
	rows, err := s.db.read.QueryContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys
		WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`, accountID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list API keys: %w", err)
	}
	defer rows.Close()
	var keys []*callscribe.APIKey
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list API keys: %w", err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list API keys: %w", err)
	}
	return keys, nil
}

// RevokeAPIKey revokes one of the account's live keys.
func (s *AccountStore) RevokeAPIKey(ctx context.Context, accountID, keyID string) error {
	res, err := s.db.write.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL`,
		time.Now().UnixNano(), keyID, accountID)
	if err != nil {
		return fmt.Errorf("sqlite: revoke API key %s: %w", keyID, err)
	}
	return requireOneRow(res, "No such API key.")
}

func requireOneRow(res sql.Result, notFoundMessage string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlite: rows affected: %w", err)
	}
	if n == 0 {
		return callscribe.Errorf(callscribe.CodeNotFound, "%s", notFoundMessage)
	}
	return nil
}

func scanAPIKey(row rowScanner) (*callscribe.APIKey, error) {
	var (
		k          callscribe.APIKey
		createdAt  int64
		lastUsedAt sql.NullInt64
	)
	if err := row.Scan(&k.ID, &k.AccountID, &k.Prefix, &k.Hash, &createdAt, &lastUsedAt); err != nil {
		return nil, err
	}
	k.CreatedAt = time.Unix(0, createdAt).UTC()
	if lastUsedAt.Valid {
		t := time.Unix(0, lastUsedAt.Int64).UTC()
		k.LastUsedAt = &t
	}
	return &k, nil
}

func nullableTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixNano()
}
