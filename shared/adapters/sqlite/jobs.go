package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore implements callscribe.JobStore.
type JobStore struct{ db *DB }

var _ callscribe.JobStore = (*JobStore)(nil)

const jobColumns = `id, account_id, type, status, source_job_id, original_filename, language,
	audio_seconds, audio_key, audio_format, metadata, input, callback, result, error,
	quota_month, attempts, created_at, updated_at, keyterms`

// jobPlaceholders are the INSERT placeholders of jobColumns.
const jobPlaceholders = `?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?`

// listedColumns are what a list page reads: the listing fields, not the large
// JSON columns a page never shows (metadata, input, callback, result, error),
// each a decode per row (a derived job's input is its whole transcript), nor
// the bookkeeping ones; the driver's cost per row grows with every column
// read. The DynamoDB listing indexes project the same fields. The account is
// not read back: the query's own account_id = ? fixes it.
const listedColumns = `id, type, status, source_job_id, original_filename, language,
	audio_seconds, created_at, updated_at`

// CreateJob stores job, reserving its seconds first when quota is non-nil. The
// stored QuotaMonth is quota.Month, or "" without a reservation, whatever
// job.QuotaMonth said; job.QuotaMonth is set to it on success.
func (s *JobStore) CreateJob(ctx context.Context, job *callscribe.Job, quota *callscribe.QuotaReservation) error {
	if job == nil || job.ID == "" {
		return fmt.Errorf("sqlite: create job: missing job id")
	}
	quotaMonth := ""
	if quota != nil {
		quotaMonth = quota.Month
	}
	row, err := encodeJob(job, quotaMonth)
	if err != nil {
		return err
	}
	err = s.db.inWriteTx(ctx, func(tx *sql.Tx) error {
		if quota != nil {
			if err := reserveQuota(ctx, tx, job.AccountID, quota, job.AudioSeconds); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO jobs (`+jobColumns+`) VALUES (`+jobPlaceholders+`)`, row...)
		if isUniqueViolation(err) {
			return callscribe.Errorf(callscribe.CodeConflict, "Job %s already exists.", job.ID)
		}
		if err != nil {
			return fmt.Errorf("sqlite: insert job %s: %w", job.ID, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	job.QuotaMonth = quotaMonth
	return nil
}

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

// GetJob returns a live job.
func (s *JobStore) GetJob(ctx context.Context, id string) (*callscribe.Job, error) {
	row := s.db.read.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ? AND deleted_at IS NULL`, id)
	job, err := scanJob(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, jobNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: get job %s: %w", id, err)
	}
	return job, nil
}

func jobNotFound(id string) error {
	return callscribe.Errorf(callscribe.CodeJobNotFound, "Job %s was not found.", id)
}

// ListJobs reads one page by a range scan of a listing index (see listQuery),
// fetching one row more than the limit to learn whether another page exists.
func (s *JobStore) ListJobs(ctx context.Context, req callscribe.ListRequest) (*callscribe.JobPage, error) {
	if req.Limit <= 0 {
		return nil, callscribe.Errorf(callscribe.CodeInvalidPagination, "The page size must be positive.")
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
// (callscribe.JobFilter.IndexField) to the index serving it (migration 2).
var listIndexes = map[callscribe.FilterField]string{
	callscribe.FilterNone:     "jobs_by_account",
	callscribe.FilterStatus:   "jobs_by_account_status",
	callscribe.FilterType:     "jobs_by_account_type",
	callscribe.FilterLanguage: "jobs_by_account_language",
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

// TransitionJob applies a compare-and-set status change in one write
// transaction, releasing the job's quota when it moves to failed.
func (s *JobStore) TransitionJob(ctx context.Context, t callscribe.Transition) (*callscribe.Job, error) {
	var updated *callscribe.Job
	err := s.db.inWriteTx(ctx, func(tx *sql.Tx) error {
		job, deleted, err := getJobForUpdate(ctx, tx, t.JobID)
		if err != nil {
			return err
		}
		release, err := job.Apply(t, deleted)
		if err != nil {
			return err
		}
		if release {
			// max(0, ...) keeps float rounding from leaving a tiny negative usage.
			_, err := tx.ExecContext(ctx, `UPDATE quota_usage SET used_seconds = max(0, used_seconds - ?) WHERE account_id = ? AND month = ?`,
				job.AudioSeconds, job.AccountID, job.QuotaMonth)
			if err != nil {
				return fmt.Errorf("sqlite: release quota of job %s: %w", t.JobID, err)
			}
		}
		errJSON, err := encodeJSON(job.Error)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE jobs SET status = ?, updated_at = ?, result = ?, error = ?, attempts = ?, language = ? WHERE id = ?`,
			string(job.Status), job.UpdatedAt.UnixNano(), nullableRaw(job.Result), errJSON, job.Attempts, job.Language, job.ID)
		if err != nil {
			return fmt.Errorf("sqlite: transition job %s: %w", t.JobID, err)
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

// encodeJob returns the column values of job in jobColumns order.
func encodeJob(job *callscribe.Job, quotaMonth string) ([]any, error) {
	input, err := encodeJSON(job.Input)
	if err != nil {
		return nil, err
	}
	callback, err := encodeJSON(job.Callback)
	if err != nil {
		return nil, err
	}
	jobErr, err := encodeJSON(job.Error)
	if err != nil {
		return nil, err
	}
	var jobType any // legacy jobs without a type stay NULL
	if job.Type != "" {
		jobType = string(job.Type)
	}
	var filename any
	if job.OriginalFilename != nil {
		filename = *job.OriginalFilename
	}
	var keyterms any
	if len(job.Keyterms) > 0 {
		b, err := json.Marshal(job.Keyterms)
		if err != nil {
			return nil, fmt.Errorf("sqlite: encode keyterms: %w", err)
		}
		keyterms = string(b)
	}
	return []any{
		job.ID, job.AccountID, jobType, string(job.Status), job.SourceJobID, filename, job.Language,
		job.AudioSeconds, job.AudioKey, string(job.AudioFormat), nullableRaw(job.Metadata), input, callback,
		nullableRaw(job.Result), jobErr, quotaMonth, job.Attempts, job.CreatedAt.UnixNano(), job.UpdatedAt.UnixNano(),
		keyterms,
	}, nil
}

// encodeJSON returns v as JSON text, or nil (NULL) for a nil pointer.
func encodeJSON[T any](v *T) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("sqlite: encode %T: %w", v, err)
	}
	return string(b), nil
}

func nullableRaw(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return string(raw)
}

type rowScanner interface{ Scan(dest ...any) error }

// scanJob reads a row of jobColumns, followed by extra destinations.
func scanJob(row rowScanner, extra ...any) (*callscribe.Job, error) {
	var (
		job                                            callscribe.Job
		jobType, filename                              sql.NullString
		metadata, input, callback, result, errorColumn sql.NullString
		keyterms                                       sql.NullString
		status, audioFormat                            string
		createdAt, updatedAt                           int64
	)
	dest := []any{&job.ID, &job.AccountID, &jobType, &status, &job.SourceJobID, &filename, &job.Language,
		&job.AudioSeconds, &job.AudioKey, &audioFormat, &metadata, &input, &callback, &result, &errorColumn,
		&job.QuotaMonth, &job.Attempts, &createdAt, &updatedAt, &keyterms}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	job.Type = callscribe.JobType(jobType.String).OrDefault()
	job.Status = callscribe.JobStatus(status)
	job.AudioFormat = callscribe.AudioFormat(audioFormat)
	if filename.Valid {
		job.OriginalFilename = &filename.String
	}
	if metadata.Valid {
		job.Metadata = json.RawMessage(metadata.String)
	}
	if result.Valid {
		job.Result = json.RawMessage(result.String)
	}
	if err := decodeJSON(input, &job.Input); err != nil {
		return nil, fmt.Errorf("job %s input: %w", job.ID, err)
	}
	if err := decodeJSON(callback, &job.Callback); err != nil {
		return nil, fmt.Errorf("job %s callback: %w", job.ID, err)
	}
	if err := decodeJSON(errorColumn, &job.Error); err != nil {
		return nil, fmt.Errorf("job %s error: %w", job.ID, err)
	}
	if keyterms.Valid {
		if err := json.Unmarshal([]byte(keyterms.String), &job.Keyterms); err != nil {
			return nil, fmt.Errorf("job %s keyterms: %w", job.ID, err)
		}
	}
	job.CreatedAt = time.Unix(0, createdAt).UTC()
	job.UpdatedAt = time.Unix(0, updatedAt).UTC()
	return &job, nil
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

// decodeJSON leaves *dst nil for NULL.
func decodeJSON[T any](column sql.NullString, dst **T) error {
	if !column.Valid {
		return nil
	}
	v := new(T)
	if err := json.Unmarshal([]byte(column.String), v); err != nil {
		return err
	}
	*dst = v
	return nil
}
