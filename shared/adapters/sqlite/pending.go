package sqlite

import (
	"context"
	"fmt"
)

// PendingJobIDs returns the ids of jobs that have a queued (or in-flight)
// transcribe or derive message, so a restarted process re-queues only the
// unfinished jobs that have none.
func (q *Queue) PendingJobIDs(ctx context.Context) (map[string]bool, error) {
	rows, err := q.db.read.QueryContext(ctx, `SELECT DISTINCT json_extract(body, '$.job_id') FROM queue_messages
		WHERE json_extract(body, '$.kind') IN ('transcribe', 'derive')`)
	if err != nil {
		return nil, fmt.Errorf("listing queued jobs: %w", err)
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("listing queued jobs: %w", err)
		}
		ids[id] = true
	}
	return ids, rows.Err()
}
