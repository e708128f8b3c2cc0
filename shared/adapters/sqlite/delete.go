package sqlite

import (
	"context"
	"fmt"
	"time"
)

// DeleteJob soft-deletes a live job.
func (s *JobStore) DeleteJob(ctx context.Context, id string, at time.Time) error {
	res, err := s.db.write.ExecContext(ctx, `UPDATE jobs SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, at.UnixNano(), id)
	if err != nil {
		return fmt.Errorf("sqlite: delete job %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlite: delete job %s: %w", id, err)
	}
	if n == 0 {
		return jobNotFound(id)
	}
	return nil
}

// PurgeDeletedJobs removes the rows of jobs deleted strictly before deletedBefore.
func (s *JobStore) PurgeDeletedJobs(ctx context.Context, deletedBefore time.Time) (int, error) {
	res, err := s.db.write.ExecContext(ctx, `DELETE FROM jobs WHERE deleted_at IS NOT NULL AND deleted_at < ?`, deletedBefore.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("sqlite: purge jobs: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlite: purge jobs: %w", err)
	}
	return int(n), nil
}
