package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// listedColumns are what a list page reads: the listing fields, not the large
// JSON columns a page never shows (metadata, input, callback, result, error),
// each a decode per row (a derived job's input is its whole transcript), nor
// the bookkeeping ones; the driver's cost per row grows with every column
// read. The DynamoDB listing indexes project the same fields. The account is
// not read back: the query's own account_id = ? fixes it.
const listedColumns = `id, type, status, source_job_id, original_filename, language,
	audio_seconds, created_at, updated_at`

// ListJobs reads one page by a range scan of a listing index (see listQuery),
// fetching one row more than the limit to learn whether another page exists.
func (s *JobStore) ListJobs(ctx context.Context, req callscribe.ListRequest) (*callscribe.JobPage, error) {
	if req.Limit <= 0 {
		return nil, callscribe.Errorf(callscribe.CodeInvalidPagination, "The page size must be positive.")
	}
	if req.Filter.Search != nil {
		return s.searchJobs(ctx, req)
	}
	query, args := listQuery(req)
	rows, err := s.db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list jobs: %w", err)
	}
	defer rows.Close()
	page := &callscribe.JobPage{Jobs: make([]*callscribe.Job, 0, req.Limit)}
	// One allocation holds the page's jobs, and one listedRow the scan
	// targets of every row (allocated per row, they were most of a page's
	// allocations).
	jobs := make([]callscribe.Job, req.Limit)
	var row listedRow
	dest := row.dest()
	more := false
	for rows.Next() {
		if len(page.Jobs) == req.Limit {
			more = true
			break
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("sqlite: list jobs: %w", err)
		}
		job := &jobs[len(page.Jobs)]
		row.fill(job, req.AccountID)
		page.Jobs = append(page.Jobs, job)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list jobs: %w", err)
	}
	if more {
		last := page.Jobs[len(page.Jobs)-1]
		page.Next = &callscribe.Position{CreatedAt: last.CreatedAt, JobID: last.ID}
	}
	return page, nil
}

// param is how a listing query takes a bound value: `+?`, a parameter behind
// SQLite's no-op unary plus. SQLite (3.54, the build mattn/go-sqlite3
// embeds) reads the value bound to a bare `?` while planning when it is the
// LIMIT (compiled in as a constant) or the right side of an equality on an
// indexed column (a selectivity guess for 0 and 1), and marks the statement
// to be re-prepared when that parameter is bound anew; the driver clears and
// re-binds every parameter on each run, so every page parsed and planned its
// query again (8 of a 100k-job account's 15 µs for an empty page). Behind a
// unary plus the planner sees an expression, not a parameter, and the
// prepared plan is kept; the plan is the same (TestListQueryPlans) and so is
// the comparison (a parameter has no affinity either way).
// BenchmarkListJobs measures it.
const param = `+?`

// typeExpr is how listings read a job's type: NULL on rows from before jobs
// had a type means transcription. jobs_by_account_type indexes exactly this
// expression, and SQLite uses an expression index only for the same text.
const typeExpr = `COALESCE(type, 'transcription')`

// listIndexes maps the equality filter a listing reads by index
// (callscribe.JobFilter.IndexField) to the index serving it (migrations 2
// and 4).
var listIndexes = map[callscribe.FilterField]string{
	callscribe.FilterNone:     "jobs_by_account",
	callscribe.FilterStatus:   "jobs_by_account_status",
	callscribe.FilterType:     "jobs_by_account_type",
	callscribe.FilterLanguage: "jobs_by_account_language",
	callscribe.FilterSource:   "jobs_by_account_source",
}

// listQuery builds the page query of req: one range scan of an index that
// starts with the account and ends with the listing order (created_at DESC,
// id DESC), so rows come out in page order with no sort and the scan stops
// after limit+1 matching rows (one more than the page, to learn whether a
// next page exists). The index is the one of the most selective equality
// filter (JobFilter.IndexField): its column is part of the range, so a filter
// that matches nothing reads no row at all; other filters of a combination are
// checked on the rows of that range. created_after and the cursor bound the
// range on created_at. A job_id filter is a primary key lookup. The
// conditions are the SQL form of callscribe.ListRequest.Includes
// (JobFilter.Matches, Position.Follows). TestListQueryPlans checks the plans.
func listQuery(req callscribe.ListRequest) (string, []any) {
	var where strings.Builder
	args := []any{req.AccountID}
	where.WriteString(`account_id = ` + param + ` AND deleted_at IS NULL`)
	if req.After != nil {
		// Row-value comparison: SQLite turns it into the start of the index range.
		where.WriteString(` AND (created_at, id) < (` + param + `, ` + param + `)`)
		args = append(args, req.After.CreatedAt.UnixNano(), req.After.JobID)
	}
	f := req.Filter
	if f.Status != "" {
		where.WriteString(` AND status = ` + param)
		args = append(args, string(f.Status))
	}
	if f.Type != "" {
		where.WriteString(` AND ` + typeExpr + ` = ` + param)
		args = append(args, string(f.Type))
	}
	if f.Language != "" {
		where.WriteString(` AND language = ` + param)
		args = append(args, f.Language)
	}
	if f.CreatedAfter != nil {
		where.WriteString(` AND created_at > ` + param)
		args = append(args, f.CreatedAfter.UnixNano())
	}
	if f.JobID != "" {
		where.WriteString(` AND id = ` + param)
		args = append(args, f.JobID)
	}
	if f.SourceJobID != "" {
		// The literal <> '' is jobs_by_account_source's own condition: SQLite
		// uses a partial index only when the query's WHERE states it, and it
		// cannot tell that the bound value is never ''.
		where.WriteString(` AND source_job_id = ` + param + ` AND source_job_id <> ''`)
		args = append(args, f.SourceJobID)
	}
	args = append(args, req.Limit+1)

	// Forcing the index makes the plan a guarantee, not a hope: SQLite fails
	// the query rather than fall back to a scan and sort. A job_id filter is a
	// primary key lookup, which is cheaper still.
	index := ` INDEXED BY ` + listIndexes[f.IndexField()]
	if f.JobID != "" {
		index = ""
	}
	return `SELECT ` + listedColumns + ` FROM jobs` + index + `
		WHERE ` + where.String() + ` ORDER BY created_at DESC, id DESC LIMIT ` + param, args
}

// listedRow holds the scan targets of one row of listedColumns, reused row
// after row.
type listedRow struct {
	id, status, sourceJobID, language string
	jobType, filename                 sql.NullString
	audioSeconds                      float64
	createdAt, updatedAt              int64
}

// dest is the row's targets in listedColumns order.
func (r *listedRow) dest() []any {
	return []any{&r.id, &r.jobType, &r.status, &r.sourceJobID, &r.filename, &r.language,
		&r.audioSeconds, &r.createdAt, &r.updatedAt}
}

// fill sets job's listing fields from the row last scanned, of accountID's
// listing.
func (r *listedRow) fill(job *callscribe.Job, accountID string) {
	*job = callscribe.Job{
		ID:           r.id,
		AccountID:    accountID,
		Type:         callscribe.JobType(r.jobType.String).OrDefault(),
		Status:       callscribe.JobStatus(r.status),
		SourceJobID:  r.sourceJobID,
		Language:     r.language,
		AudioSeconds: r.audioSeconds,
		CreatedAt:    time.Unix(0, r.createdAt).UTC(),
		UpdatedAt:    time.Unix(0, r.updatedAt).UTC(),
	}
	if r.filename.Valid {
		name := r.filename.String
		job.OriginalFilename = &name
	}
}
