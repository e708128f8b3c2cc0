package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// DeleteJob soft-deletes a live job and takes it out of search in the same
// transaction.
func (s *JobStore) DeleteJob(ctx context.Context, id string, at time.Time) error {
	return s.db.inWriteTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE jobs SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, at.UnixNano(), id)
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
		return unindexSearch(ctx, tx, `SELECT docid FROM job_search_docs WHERE job_id = ?`, id)
	})
}

// PurgeDeletedJobs removes the rows of jobs deleted strictly before
// deletedBefore, with any search rows they still have.
func (s *JobStore) PurgeDeletedJobs(ctx context.Context, deletedBefore time.Time) (int, error) {
	var purged int
	err := s.db.inWriteTx(ctx, func(tx *sql.Tx) error {
		cutoff := deletedBefore.UnixNano()
		err := unindexSearch(ctx, tx, `SELECT d.docid FROM jobs j JOIN job_search_docs d ON d.job_id = j.id
			WHERE j.deleted_at IS NOT NULL AND j.deleted_at < ?`, cutoff)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE deleted_at IS NOT NULL AND deleted_at < ?`, cutoff)
		if err != nil {
			return fmt.Errorf("sqlite: purge jobs: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("sqlite: purge jobs: %w", err)
		}
		purged = int(n)
		return nil
	})
	return purged, err
}
