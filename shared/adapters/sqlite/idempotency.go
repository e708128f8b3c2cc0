package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// IdempotencyStore implements callscribe.IdempotencyStore on the
// idempotency_keys table; expired rows are removed by
// PurgeExpiredIdempotencyKeys (the embedded stack's purge loop).
type IdempotencyStore struct{ db *DB }

var _ callscribe.IdempotencyStore = (*IdempotencyStore)(nil)

// ClaimIdempotencyKey reads and writes in one write transaction, so two
// claims of one key cannot both see it free.
func (s *IdempotencyStore) ClaimIdempotencyKey(ctx context.Context, rec *callscribe.IdempotencyRecord, now time.Time) (*callscribe.IdempotencyRecord, error) {
	var existing *callscribe.IdempotencyRecord
	err := s.db.inWriteTx(ctx, func(tx *sql.Tx) error {
		var (
			r                  = callscribe.IdempotencyRecord{AccountID: rec.AccountID, Key: rec.Key}
			lockedUntil, expAt int64
		)
		err := tx.QueryRowContext(ctx, `SELECT fingerprint, token, status, body, locked_until, expires_at FROM idempotency_keys WHERE account_id = ? AND key = ?`,
			rec.AccountID, rec.Key).Scan(&r.Fingerprint, &r.Token, &r.Status, &r.Body, &lockedUntil, &expAt)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		default:
			r.LockedUntil, r.ExpiresAt = time.Unix(0, lockedUntil).UTC(), time.Unix(0, expAt).UTC()
			live := r.ExpiresAt.After(now) && (r.Completed() || r.LockedUntil.After(now))
			if live {
				existing = &r
				return nil
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO idempotency_keys (account_id, key, fingerprint, token, status, body, locked_until, expires_at) VALUES (?, ?, ?, ?, 0, NULL, ?, ?)`,
			rec.AccountID, rec.Key, rec.Fingerprint, rec.Token, rec.LockedUntil.UnixNano(), rec.ExpiresAt.UnixNano())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: claim idempotency key: %w", err)
	}
	return existing, nil
}

func (s *IdempotencyStore) CompleteIdempotencyKey(ctx context.Context, accountID, key, token string, status int, body []byte) error {
	if body == nil {
		body = []byte{}
	}
	res, err := s.db.write.ExecContext(ctx, `UPDATE idempotency_keys SET status = ?, body = ? WHERE account_id = ? AND key = ? AND token = ? AND status = 0`,
		status, body, accountID, key, token)
	if err != nil {
		return fmt.Errorf("sqlite: complete idempotency key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return callscribe.Errorf(callscribe.CodeConflict, "The idempotency key is no longer held by this request.")
	}
	return nil
}

func (s *IdempotencyStore) ReleaseIdempotencyKey(ctx context.Context, accountID, key, token string) error {
	_, err := s.db.write.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND token = ? AND status = 0`,
		accountID, key, token)
	if err != nil {
		return fmt.Errorf("sqlite: release idempotency key: %w", err)
	}
	return nil
}

func (s *IdempotencyStore) PurgeExpiredIdempotencyKeys(ctx context.Context, before time.Time) (int, error) {
	res, err := s.db.write.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE expires_at < ?`, before.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("sqlite: purge idempotency keys: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
