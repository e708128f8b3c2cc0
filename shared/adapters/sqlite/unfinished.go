package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// unfinishedQuery reads the live jobs in the state machine's unfinished
// statuses, oldest first. Its WHERE clause is, as text, the one of the partial
// index jobs_unfinished (migration 1), which SQLite uses only for a query whose
// WHERE implies the index's: TestUnfinishedQueryPlan checks that it does.
var unfinishedQuery = `SELECT id FROM jobs
		WHERE deleted_at IS NULL AND status IN (` + sqlStatuses(callscribe.UnfinishedStatuses()) + `)
		ORDER BY created_at, id LIMIT ?`

// sqlStatuses is statuses as a list of SQL string literals: 'queued', 'processing'.
func sqlStatuses(statuses []callscribe.JobStatus) string {
	quoted := make([]string, len(statuses))
	for i, st := range statuses {
		quoted[i] = "'" + string(st) + "'"
	}
	return strings.Join(quoted, ", ")
}

// UnfinishedJobIDs returns live unfinished (queued or processing) jobs, oldest first.
func (s *JobStore) UnfinishedJobIDs(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.read.QueryContext(ctx, unfinishedQuery, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: unfinished jobs: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sqlite: unfinished jobs: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: unfinished jobs: %w", err)
	}
	return ids, nil
}
