package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Search (the list filter q): candidates come from job_search, an FTS4
// full-text table (migration 9), and callscribe.SearchQuery.Confirm checks each
// on the job's stored text, as every store does.
//
// FTS4 rather than FTS5: mattn/go-sqlite3 compiles FTS3/FTS4 in by default but
// FTS5 only under the build tag sqlite_fts5, which every build and every
// `go test` of a package that opens a database would then have to pass
// (without it the migration fails with "no such module: fts5"). FTS4 with the
// unicode61 tokenizer splits words exactly as callscribe.SearchWords does
// (runs of letters and digits, case-folded) and answers the same quoted
// phrase queries. The pure-Go driver is gone already (db.go), so no build
// without cgo opens a database.
//
// The index is written in the transaction that stores the job's result (or,
// for a derived job made from text, creates it), and deleting a job removes
// its rows in the delete's own transaction, so a deleted job leaves search at
// once; a purge removes any row left.
//
// Cost: FTS4 reads the doclist of every query word in every segment (over
// the whole file, all accounts; see mergeSearchSegments), then the account's
// matches are sorted by listing order on job_search_docs and confirmed from
// the newest, limit+1 at a time. A search matching a handful of jobs costs a
// few index pages and one read per match; one whose words occur in most jobs
// sorts all of the account's matches (small rows) for each page.
// infra/bench/README.md has the figures.

// searchCandidateBatch bounds how many candidates one round reads; rounds
// repeat from the last candidate while confirmation drops some.
const searchCandidateBatch = 400

// indexSearch writes job's row of the search index (or removes it when the job
// has nothing searchable) inside tx.
func indexSearch(ctx context.Context, tx *sql.Tx, job *callscribe.Job) error {
	var texts []string
	for _, s := range callscribe.SearchDocumentOf(job) {
		texts = append(texts, s.Text)
	}
	text := strings.Join(texts, "\n")
	var docid int64
	err := tx.QueryRowContext(ctx, `SELECT docid FROM job_search_docs WHERE job_id = ?`, job.ID).Scan(&docid)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if text == "" {
			return nil
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO job_search_docs (job_id, account_id, created_at) VALUES (?, ?, ?)`, job.ID, job.AccountID, job.CreatedAt.UnixNano())
		if err == nil {
			docid, err = res.LastInsertId()
		}
		if err == nil {
			_, err = tx.ExecContext(ctx, `INSERT INTO job_search (docid, text) VALUES (?, ?)`, docid, text)
		}
		if err != nil {
			return fmt.Errorf("sqlite: index job %s for search: %w", job.ID, err)
		}
		return mergeSearchSegments(ctx, tx)
	case err != nil:
		return fmt.Errorf("sqlite: index job %s for search: %w", job.ID, err)
	case text == "":
		return unindexSearch(ctx, tx, `SELECT docid FROM job_search_docs WHERE job_id = ?`, job.ID)
	}
	var stored string
	if err := tx.QueryRowContext(ctx, `SELECT text FROM job_search WHERE docid = ?`, docid).Scan(&stored); err != nil {
		return fmt.Errorf("sqlite: index job %s for search: %w", job.ID, err)
	}
	if stored == text {
		return nil // a tags job's result adds nothing to search: no write
	}
	if _, err := tx.ExecContext(ctx, `UPDATE job_search SET text = ? WHERE docid = ?`, text, docid); err != nil {
		return fmt.Errorf("sqlite: index job %s for search: %w", job.ID, err)
	}
	return mergeSearchSegments(ctx, tx)
}

// mergeSearchSegments does a bounded step of FTS4's incremental merge. Each
// write transaction adds a segment to the full-text index, and FTS4 by itself
// merges a level only once it holds 16, while a query looks every word up in
// every segment: measured on 3,000 jobs, 29 segments made the full-text part
// of a search several times slower than one. At most 64 pages of merging
// work per write, on levels of 4 segments or more, kept it at 13-14 segments;
// the writes' cost did not move beyond this shared machine's noise.
func mergeSearchSegments(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO job_search (job_search) VALUES ('merge=64,4')`); err != nil {
		return fmt.Errorf("sqlite: merge search index: %w", err)
	}
	return nil
}

// unindexSearch removes the search rows of the docids the query selects.
func unindexSearch(ctx context.Context, tx *sql.Tx, docids string, args ...any) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM job_search WHERE docid IN (`+docids+`)`, args...); err != nil {
		return fmt.Errorf("sqlite: remove from search: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM job_search_docs WHERE docid IN (`+docids+`)`, args...); err != nil {
		return fmt.Errorf("sqlite: remove from search: %w", err)
	}
	return nil
}

// matchExpression is the FTS4 query of q: every term a quoted phrase (a single
// word is a one-word phrase), joined by spaces, which FTS4 reads as AND. The
// words are letters and digits only, so quoting needs no escaping, and
// words such as "or" and "near" stay words. The speaker is left to Confirm.
func matchExpression(q *callscribe.SearchQuery) string {
	parts := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		parts[i] = `"` + strings.Join(t.Words, " ") + `"`
	}
	return strings.Join(parts, " ")
}

// searchJobs lists one page of a search: candidates in listing order from
// the full-text index (the account, the cursor and created_after applied to
// job_search_docs), read with what confirmation needs and kept when the
// request includes them (the other filters, the search confirmed on the job's
// text), until the page has limit+1 jobs or the candidates run out.
func (s *JobStore) searchJobs(ctx context.Context, req callscribe.ListRequest) (*callscribe.JobPage, error) {
	want := req.Limit + 1
	var found []*callscribe.Job
	after := req.After
	batch := min(want, searchCandidateBatch)
	for {
		jobs, last, err := s.searchCandidates(ctx, req, after, batch)
		if err != nil {
			return nil, err
		}
		for _, job := range jobs {
			if req.Includes(job) {
				found = append(found, job)
				if len(found) == want {
					break
				}
			}
		}
		if len(found) == want || last == nil {
			break
		}
		after = last
		batch = min(4*batch, searchCandidateBatch)
	}
	page := &callscribe.JobPage{Jobs: make([]*callscribe.Job, 0, min(req.Limit, len(found)))}
	for _, j := range found[:min(req.Limit, len(found))] {
		page.Jobs = append(page.Jobs, listed(j))
	}
	if len(found) > req.Limit {
		last := page.Jobs[len(page.Jobs)-1]
		page.Next = &callscribe.Position{CreatedAt: last.CreatedAt, JobID: last.ID}
	}
	return page, nil
}

// listed keeps a whole job's listing fields and its matches, like the jobs of
// any listing page.
func listed(j *callscribe.Job) *callscribe.Job {
	return &callscribe.Job{
		ID: j.ID, AccountID: j.AccountID, Type: j.Type, Status: j.Status, SourceJobID: j.SourceJobID,
		OriginalFilename: j.OriginalFilename, Language: j.Language, AudioSeconds: j.AudioSeconds,
		CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt, Matches: j.Matches,
	}
}

// searchCandidates reads up to n candidates after the position, in listing
// order, each with its listing fields and the columns confirmation reads
// (input, result); last is the position of the n-th candidate, nil when fewer
// than n were left. Only live jobs have index rows (a delete removes its row
// in its own transaction).
func (s *JobStore) searchCandidates(ctx context.Context, req callscribe.ListRequest, after *callscribe.Position, n int) (jobs []*callscribe.Job, last *callscribe.Position, err error) {
	query, args := searchQuery(callscribe.ListRequest{AccountID: req.AccountID, Filter: req.Filter, After: after, Limit: n})
	rows, err := s.db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: search jobs: %w", err)
	}
	defer rows.Close()
	var row listedRow
	var input, result sql.NullString
	dest := append(row.dest(), &input, &result)
	read := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, fmt.Errorf("sqlite: search jobs: %w", err)
		}
		read++
		job := &callscribe.Job{}
		row.fill(job, req.AccountID)
		last = &callscribe.Position{CreatedAt: job.CreatedAt, JobID: job.ID}
		if result.Valid {
			job.Result = json.RawMessage(result.String)
		}
		// Only a job made from text is searched by its input (SearchDocumentOf):
		// a transcription's copied segments are not even decoded.
		if input.Valid && job.SourceJobID == "" && job.Type.Derived() {
			if err := decodeJSON(input, &job.Input); err != nil {
				return nil, nil, fmt.Errorf("sqlite: job %s input: %w", job.ID, err)
			}
		}
		jobs = append(jobs, job)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("sqlite: search jobs: %w", err)
	}
	if read < n {
		last = nil
	}
	return jobs, last, nil
}

// searchQuery is the candidate query of a search request: up to req.Limit
// jobs in listing order among those the full-text index proposes. The inner
// query orders the matches by job_search_docs alone (the account, the
// cursor and created_after are its columns), so a word many jobs contain
// costs a sort of small rows, never a read of each job; the outer query
// reads the page's rows by primary key. The other filters are left to
// callscribe.ListRequest.Includes, so that the inner LIMIT counts
// candidates, and fewer than asked means there are no more.
func searchQuery(req callscribe.ListRequest) (string, []any) {
	var where strings.Builder
	args := []any{matchExpression(req.Filter.Search), req.AccountID}
	if req.After != nil {
		where.WriteString(` AND (d.created_at, d.job_id) < (` + param + `, ` + param + `)`)
		args = append(args, req.After.CreatedAt.UnixNano(), req.After.JobID)
	}
	if f := req.Filter; f.CreatedAfter != nil {
		where.WriteString(` AND d.created_at > ` + param)
		args = append(args, f.CreatedAfter.UnixNano())
	}
	if f := req.Filter; f.JobID != "" {
		where.WriteString(` AND d.job_id = ` + param)
		args = append(args, f.JobID)
	}
	query := `SELECT ` + listedColumns + `, input, result FROM jobs WHERE id IN (
		SELECT d.job_id FROM job_search s CROSS JOIN job_search_docs d ON d.docid = s.docid
		WHERE s.text MATCH ` + param + ` AND d.account_id = ` + param + where.String() + `
		ORDER BY d.created_at DESC, d.job_id DESC LIMIT ` + param + `)
		ORDER BY created_at DESC, id DESC`
	return query, append(args, req.Limit)
}

// OptimizeSearch merges the full-text index into one segment when it has at
// least minSegments (and more than one), which makes every later search's
// full-text query cheaper until new writes add segments (measured on 30,000
// jobs: 17 segments to 1 in 91 ms, the query 142 to 64 µs of CPU). It
// rewrites the whole index under the write lock, so it belongs in periodic
// maintenance, never on the write path: the local process checks every
// minute with a threshold, so a burst of writes is merged soon after it
// without rewriting the index for every few new jobs, and hourly without
// one. It reports whether it merged anything.
func (db *DB) OptimizeSearch(ctx context.Context, minSegments int) (bool, error) {
	merged := false
	err := db.inWriteTx(ctx, func(tx *sql.Tx) error {
		var segments int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM job_search_segdir`).Scan(&segments); err != nil {
			return fmt.Errorf("sqlite: count search segments: %w", err)
		}
		if segments <= 1 || segments < minSegments {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_search (job_search) VALUES ('optimize')`); err != nil {
			return fmt.Errorf("sqlite: optimize search index: %w", err)
		}
		merged = true
		return nil
	})
	return merged, err
}
