package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// WebhookStore implements callscribe.WebhookStore.
type WebhookStore struct{ db *DB }

var _ callscribe.WebhookStore = (*WebhookStore)(nil)

// Webhooks returns the store of signing secrets and delivery attempts.
func (db *DB) Webhooks() *WebhookStore { return &WebhookStore{db: db} }

// SigningSecret returns the account's secret; NOT_FOUND when it has none.
func (s *WebhookStore) SigningSecret(ctx context.Context, accountID string) (*callscribe.SigningSecret, error) {
	var (
		sec                   = callscribe.SigningSecret{AccountID: accountID}
		createdAt, validUntil int64
	)
	err := s.db.read.QueryRowContext(ctx, `SELECT secret, created_at, previous, previous_valid_until FROM signing_secrets WHERE account_id = ?`, accountID).
		Scan(&sec.Secret, &createdAt, &sec.Previous, &validUntil)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, callscribe.Errorf(callscribe.CodeNotFound, "The account has no signing secret.")
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: signing secret: %w", err)
	}
	sec.CreatedAt = time.Unix(0, createdAt).UTC()
	if sec.Previous != "" {
		sec.PreviousValidUntil = time.Unix(0, validUntil).UTC()
	}
	return &sec, nil
}

// PutSigningSecret stores sec if the account's stored secret is replacing.
func (s *WebhookStore) PutSigningSecret(ctx context.Context, sec *callscribe.SigningSecret, replacing string) error {
	var validUntil int64
	if sec.Previous != "" {
		validUntil = sec.PreviousValidUntil.UnixNano()
	}
	var (
		res sql.Result
		err error
	)
	if replacing == "" {
		res, err = s.db.write.ExecContext(ctx, `INSERT INTO signing_secrets (account_id, secret, created_at, previous, previous_valid_until)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id) DO NOTHING`,
			sec.AccountID, sec.Secret, sec.CreatedAt.UnixNano(), sec.Previous, validUntil)
	} else {
		res, err = s.db.write.ExecContext(ctx, `UPDATE signing_secrets SET secret = ?, created_at = ?, previous = ?, previous_valid_until = ?
			WHERE account_id = ? AND secret = ?`,
			sec.Secret, sec.CreatedAt.UnixNano(), sec.Previous, validUntil, sec.AccountID, replacing)
	}
	if err != nil {
		return fmt.Errorf("sqlite: put signing secret: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlite: put signing secret: %w", err)
	}
	if n == 0 {
		return callscribe.Errorf(callscribe.CodeConflict, "The account's signing secret changed meanwhile.")
	}
	return nil
}

// RecordDelivery stores the attempt and trims the job's record to the newest
// callscribe.MaxDeliveriesPerJob, in one transaction.
func (s *WebhookStore) RecordDelivery(ctx context.Context, d *callscribe.DeliveryAttempt) error {
	var next any
	if d.NextAttemptAt != nil {
		next = d.NextAttemptAt.UnixNano()
	}
	return s.db.inWriteTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM jobs WHERE id = ? AND deleted_at IS NULL`, d.JobID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return jobNotFound(d.JobID)
		}
		if err != nil {
			return fmt.Errorf("sqlite: record delivery: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO callback_deliveries
			(job_id, at, attempt, webhook_id, host, status_code, error, outcome, next_attempt_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			d.JobID, d.At.UnixNano(), d.Attempt, d.WebhookID, d.Host, d.StatusCode, d.Error, string(d.Outcome), next); err != nil {
			return fmt.Errorf("sqlite: record delivery: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM callback_deliveries WHERE job_id = ? AND (at, attempt) NOT IN
			(SELECT at, attempt FROM callback_deliveries WHERE job_id = ? ORDER BY at DESC, attempt DESC LIMIT ?)`,
			d.JobID, d.JobID, callscribe.MaxDeliveriesPerJob); err != nil {
			return fmt.Errorf("sqlite: trim deliveries: %w", err)
		}
		return nil
	})
}

// Deliveries returns a live job's attempts, newest first.
func (s *WebhookStore) Deliveries(ctx context.Context, jobID string) ([]*callscribe.DeliveryAttempt, error) {
	rows, err := s.db.read.QueryContext(ctx, `SELECT at, attempt, webhook_id, host, status_code, error, outcome, next_attempt_at
		FROM callback_deliveries WHERE job_id = ? AND EXISTS (SELECT 1 FROM jobs WHERE id = ? AND deleted_at IS NULL)
		ORDER BY at DESC, attempt DESC`, jobID, jobID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: deliveries: %w", err)
	}
	defer rows.Close()
	var out []*callscribe.DeliveryAttempt
	for rows.Next() {
		var (
			d       = callscribe.DeliveryAttempt{JobID: jobID}
			at      int64
			outcome string
			next    sql.NullInt64
		)
		if err := rows.Scan(&at, &d.Attempt, &d.WebhookID, &d.Host, &d.StatusCode, &d.Error, &outcome, &next); err != nil {
			return nil, fmt.Errorf("sqlite: deliveries: %w", err)
		}
		d.At = time.Unix(0, at).UTC()
		d.Outcome = callscribe.DeliveryOutcome(outcome)
		if next.Valid {
			t := time.Unix(0, next.Int64).UTC()
			d.NextAttemptAt = &t
		}
		out = append(out, &d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: deliveries: %w", err)
	}
	return out, nil
}
