package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// reserveQuota adds seconds to the account's month inside tx, or fails with
// QUOTA_EXCEEDED. The write transaction makes the check and the add one step.
func reserveQuota(ctx context.Context, tx *sql.Tx, accountID string, quota *callscribe.QuotaReservation, seconds float64) error {
	var used float64
	err := tx.QueryRowContext(ctx, `SELECT used_seconds FROM quota_usage WHERE account_id = ? AND month = ?`, accountID, quota.Month).Scan(&used)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlite: read quota: %w", err)
	}
	if !quota.Allows(used, seconds) {
		return callscribe.QuotaExceeded(quota.LimitSeconds, used, seconds)
	}
	_, err = tx.ExecContext(ctx, `
		INSERT INTO quota_usage (account_id, month, used_seconds) VALUES (?, ?, ?)
		ON CONFLICT (account_id, month) DO UPDATE SET used_seconds = used_seconds + excluded.used_seconds`,
		accountID, quota.Month, seconds)
	if err != nil {
		return fmt.Errorf("sqlite: reserve quota: %w", err)
	}
	return nil
}

// UsedSeconds returns the seconds reserved in an account's month.
func (s *JobStore) UsedSeconds(ctx context.Context, accountID, month string) (float64, error) {
	var used float64
	err := s.db.read.QueryRowContext(ctx, `SELECT used_seconds FROM quota_usage WHERE account_id = ? AND month = ?`, accountID, month).Scan(&used)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: used seconds: %w", err)
	}
	return used, nil
}
