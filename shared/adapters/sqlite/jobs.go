package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore implements callscribe.JobStore. Its files follow the contract
// suite's parts (package storetest): creating and reading jobs and their rows
// here, quota.go, list.go, transitions.go, delete.go (delete and purge) and
// unfinished.go (restart recovery).
type JobStore struct{ db *DB }

var _ callscribe.JobStore = (*JobStore)(nil)

const jobColumns = `id, account_id, type, status, source_job_id, original_filename, language,
	audio_seconds, audio_key, audio_format, metadata, input, callback, result, error,
	quota_month, attempts, created_at, updated_at, keyterms, redact_pii`

// jobPlaceholders are the INSERT placeholders of jobColumns.
const jobPlaceholders = `?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?`

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
			if err := reserveQuota(ctx, tx, job, quota); err != nil {
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
		return indexSearch(ctx, tx, job)
	})
	if err != nil {
		return err
	}
	job.QuotaMonth = quotaMonth
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
		keyterms, job.RedactPII,
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
		&job.QuotaMonth, &job.Attempts, &createdAt, &updatedAt, &keyterms, &job.RedactPII}
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
