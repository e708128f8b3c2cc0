package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// TransitionJob applies a compare-and-set status change in one write
// transaction, releasing the job's quota when it moves to failed.
func (s *JobStore) TransitionJob(ctx context.Context, t callscribe.Transition) (*callscribe.Job, error) {
	var updated *callscribe.Job
	err := s.db.inWriteTx(ctx, func(tx *sql.Tx) error {
		job, deleted, err := getJobForUpdate(ctx, tx, t.JobID)
		if err != nil {
			return err
		}
		reserved := *job // the day and language the job's seconds were counted under
		release, err := job.Apply(t, deleted)
		if err != nil {
			return err
		}
		if release {
			if err := releaseQuota(ctx, tx, &reserved); err != nil {
				return err
			}
		}
		errJSON, err := encodeJSON(job.Error)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE jobs SET status = ?, updated_at = ?, result = ?, error = ?, attempts = ?, language = ?, audio_key = ?, audio_format = ? WHERE id = ?`,
			string(job.Status), job.UpdatedAt.UnixNano(), nullableRaw(job.Result), errJSON, job.Attempts, job.Language,
			job.AudioKey, string(job.AudioFormat), job.ID)
		if err != nil {
			return fmt.Errorf("sqlite: transition job %s: %w", t.JobID, err)
		}
		// A result is what a job is searched by: stored and indexed at once.
		if len(t.Result) > 0 {
			if err := indexSearch(ctx, tx, job); err != nil {
				return err
			}
		}
		updated = job
		return nil
	})
	if err != nil {
		return nil, err
	}
	return updated, nil
}

func getJobForUpdate(ctx context.Context, tx *sql.Tx, id string) (job *callscribe.Job, deleted bool, err error) {
	var deletedAt sql.NullInt64
	row := tx.QueryRowContext(ctx, `SELECT `+jobColumns+`, deleted_at FROM jobs WHERE id = ?`, id)
	job, err = scanJob(row, &deletedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, jobNotFound(id)
	}
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: read job %s: %w", id, err)
	}
	return job, deletedAt.Valid, nil
}
