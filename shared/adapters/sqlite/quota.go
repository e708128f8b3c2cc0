package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// reserveQuota adds the job's seconds to its account's month, and them and the
// job to its day and language, inside tx, or fails with QUOTA_EXCEEDED. The
// write transaction makes the check and the adds one step.
func reserveQuota(ctx context.Context, tx *sql.Tx, job *callscribe.Job, quota *callscribe.QuotaReservation) error {
	accountID, seconds := job.AccountID, job.AudioSeconds
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
	_, err = tx.ExecContext(ctx, `
		INSERT INTO usage_days (account_id, day, language, seconds, jobs) VALUES (?, ?, ?, ?, 1)
		ON CONFLICT (account_id, day, language) DO UPDATE SET seconds = seconds + excluded.seconds, jobs = jobs + 1`,
		accountID, callscribe.UsageDay(job.CreatedAt), job.Language, seconds)
	if err != nil {
		return fmt.Errorf("sqlite: count the day's usage: %w", err)
	}
	return nil
}

// releaseQuota gives a failing job's seconds back to its month, and them and
// the job back to its day and language, inside tx. max(0, ...) keeps float
// rounding from leaving a tiny negative usage.
func releaseQuota(ctx context.Context, tx *sql.Tx, job *callscribe.Job) error {
	_, err := tx.ExecContext(ctx, `UPDATE quota_usage SET used_seconds = max(0, used_seconds - ?) WHERE account_id = ? AND month = ?`,
		job.AudioSeconds, job.AccountID, job.QuotaMonth)
	if err != nil {
		return fmt.Errorf("sqlite: release quota of job %s: %w", job.ID, err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE usage_days SET seconds = max(0, seconds - ?), jobs = max(0, jobs - 1) WHERE account_id = ? AND day = ? AND language = ?`,
		job.AudioSeconds, job.AccountID, callscribe.UsageDay(job.CreatedAt), job.Language)
	if err != nil {
		return fmt.Errorf("sqlite: release the day's usage of job %s: %w", job.ID, err)
	}
	return nil
}

// DailyUsage reads the account's usage_days rows in the range, one primary
// key range scan.
func (s *JobStore) DailyUsage(ctx context.Context, accountID, fromDay, toDay string) ([]callscribe.DayUsage, error) {
	rows, err := s.db.read.QueryContext(ctx, `SELECT day, language, seconds, jobs FROM usage_days
		WHERE account_id = ? AND day BETWEEN ? AND ? ORDER BY day, language`, accountID, fromDay, toDay)
	if err != nil {
		return nil, fmt.Errorf("sqlite: daily usage: %w", err)
	}
	defer rows.Close()
	var days []callscribe.DayUsage
	for rows.Next() {
		var (
			day, language string
			seconds       float64
			jobs          int
		)
		if err := rows.Scan(&day, &language, &seconds, &jobs); err != nil {
			return nil, fmt.Errorf("sqlite: daily usage: %w", err)
		}
		if len(days) == 0 || days[len(days)-1].Day != day {
			days = append(days, callscribe.DayUsage{Day: day, LanguageSeconds: map[string]float64{}})
		}
		d := &days[len(days)-1]
		d.Seconds += seconds
		d.Jobs += jobs
		d.LanguageSeconds[language] += seconds
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: daily usage: %w", err)
	}
	return days, nil
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
