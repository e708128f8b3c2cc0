package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migrations are applied in order; migrations[i] brings the schema from version
// i to i+1. Never edit a released migration: append a new one.
var migrations = []string{
	// 1: jobs, quota, accounts, API keys, queue.
	`
CREATE TABLE jobs (
	id                TEXT PRIMARY KEY,
	account_id        TEXT NOT NULL,
	type              TEXT,             -- NULL on rows written before jobs had a type: transcription
	status            TEXT NOT NULL,
	source_job_id     TEXT NOT NULL DEFAULT '',
	original_filename TEXT,             -- NULL until an upload is attached
	language          TEXT NOT NULL DEFAULT '',
	audio_seconds     REAL NOT NULL DEFAULT 0,
	audio_key         TEXT NOT NULL DEFAULT '',
	audio_format      TEXT NOT NULL DEFAULT '',
	metadata          TEXT,             -- JSON
	input             TEXT,             -- JSON Transcript
	callback          TEXT,             -- JSON Callback
	result            TEXT,             -- JSON
	error             TEXT,             -- JSON JobError
	quota_month       TEXT NOT NULL DEFAULT '',
	attempts          INTEGER NOT NULL DEFAULT 0,
	created_at        INTEGER NOT NULL, -- unix nanoseconds
	updated_at        INTEGER NOT NULL,
	deleted_at        INTEGER           -- soft delete; purged later
) STRICT;

-- Listing: one range scan per page, newest first, live jobs only.
CREATE INDEX jobs_by_account ON jobs (account_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
-- Restart recovery: unfinished live jobs, oldest first.
CREATE INDEX jobs_unfinished ON jobs (created_at, id) WHERE deleted_at IS NULL AND status IN ('queued', 'processing');
-- Purge.
CREATE INDEX jobs_deleted ON jobs (deleted_at) WHERE deleted_at IS NOT NULL;

CREATE TABLE quota_usage (
	account_id   TEXT NOT NULL,
	month        TEXT NOT NULL, -- "2006-01", UTC
	used_seconds REAL NOT NULL,
	PRIMARY KEY (account_id, month)
) STRICT, WITHOUT ROWID;

CREATE TABLE accounts (
	id            TEXT PRIMARY KEY,
	email         TEXT NOT NULL,        -- as the user typed it
	email_key     TEXT NOT NULL UNIQUE, -- lower-cased: emails are unique case-insensitively
	password_hash TEXT NOT NULL,
	created_at    INTEGER NOT NULL
) STRICT;

CREATE TABLE api_keys (
	id           TEXT PRIMARY KEY,
	account_id   TEXT NOT NULL,
	prefix       TEXT NOT NULL,
	hash         TEXT NOT NULL UNIQUE,
	created_at   INTEGER NOT NULL,
	last_used_at INTEGER,
	revoked_at   INTEGER
) STRICT;
CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at DESC, id DESC) WHERE revoked_at IS NULL;

CREATE TABLE queue_messages (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	body         TEXT NOT NULL,    -- JSON callscribe.Message
	visible_at   INTEGER NOT NULL, -- unix nanoseconds; claimable from then on
	leased_until INTEGER,          -- non-NULL while a worker holds the message
	receives     INTEGER NOT NULL DEFAULT 0,
	last_error   TEXT NOT NULL DEFAULT '',
	enqueued_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX queue_messages_visible ON queue_messages (visible_at, id);
CREATE INDEX queue_messages_leased ON queue_messages (leased_until) WHERE leased_until IS NOT NULL;

CREATE TABLE dead_letters (
	id          INTEGER PRIMARY KEY, -- the message's queue id
	body        TEXT NOT NULL,
	receives    INTEGER NOT NULL,
	last_error  TEXT NOT NULL,
	enqueued_at INTEGER NOT NULL,
	died_at     INTEGER NOT NULL
) STRICT;
`,
	// 2: listing filters by index. Each equality filter of the list endpoint
	// gets an index with the account and the filtered column ahead of the
	// listing order, so a filtered page is one range scan that stops after
	// limit+1 rows however many jobs the account has (jobs_by_account already
	// serves no filter, created_after and the cursor). type is indexed as
	// COALESCE(type, 'transcription'): rows from before jobs had a type keep
	// their NULL and still match type=transcription, and listQuery writes the
	// same expression so the planner can use the index.
	`
CREATE INDEX jobs_by_account_status ON jobs (account_id, status, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX jobs_by_account_type ON jobs (account_id, COALESCE(type, 'transcription'), created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX jobs_by_account_language ON jobs (account_id, language, created_at DESC, id DESC) WHERE deleted_at IS NULL;
`,
	// 3: a transcription's per-job vocabulary (the upload's keyterms), a
	// JSON array of strings; NULL for none and on every earlier row.
	`
ALTER TABLE jobs ADD COLUMN keyterms TEXT;
`,
	// 4: the source_job_id filter (a transcription's summaries and tags) by
	// index, like the filters of migration 2. Partial on derived jobs: a
	// transcription has no source ('') and is never listed by one, so the
	// bulk of an account stays out of the index; listQuery repeats the
	// condition so the planner knows the index covers the rows it asks for.
	// Rows written before this migration are indexed as it runs.
	`
CREATE INDEX jobs_by_account_source ON jobs (account_id, source_job_id, created_at DESC, id DESC) WHERE deleted_at IS NULL AND source_job_id <> '';
`,
	// 5: the answers of creates sent with an Idempotency-Key (package jobs,
	// idempotency.go); status 0 while the request runs. Times are Unix nanoseconds.
	`
CREATE TABLE idempotency_keys (
	account_id   TEXT NOT NULL,
	key          TEXT NOT NULL,
	fingerprint  TEXT NOT NULL,
	token        TEXT NOT NULL,
	status       INTEGER NOT NULL DEFAULT 0,
	body         BLOB,
	locked_until INTEGER NOT NULL,
	expires_at   INTEGER NOT NULL,
	PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
`,
	// 6: webhooks (package callback, webhooks.go): each account's signing
	// secret, kept as is because signing needs it (unlike an API key, which
	// only has to be recognised), and each job's recent tagDelivered attempts,
	// removed with the job's row when it is purged. Times are Unix
	// nanoseconds; previous_valid_until 0 when there is no previous secret.
	`
CREATE TABLE signing_secrets (
	account_id           TEXT PRIMARY KEY,
	secret               TEXT NOT NULL,
	created_at           INTEGER NOT NULL,
	previous             TEXT NOT NULL DEFAULT '',
	previous_valid_until INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE callback_deliveries (
	job_id          TEXT NOT NULL,
	at              INTEGER NOT NULL,
	attempt         INTEGER NOT NULL,
	webhook_id      TEXT NOT NULL,
	host            TEXT NOT NULL,
	status_code     INTEGER NOT NULL,
	error           TEXT NOT NULL,
	outcome         TEXT NOT NULL,
	next_attempt_at INTEGER,
	PRIMARY KEY (job_id, at, attempt)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER callback_deliveries_of_purged_job AFTER DELETE ON jobs
BEGIN
	DELETE FROM callback_deliveries WHERE job_id = old.id;
END;
`,
	// 7: usage_days: the seconds and jobs an account's uploads reserved per UTC
	// day and language given at upload ('' for detection), written in the
	// transaction that reserves quota_usage and released with it when a job
	// fails. The dashboard's daily series reads it by primary key range. Rows
	// for jobs stored before it existed are filled from those jobs once here
	// (purged jobs are gone and cannot be counted).
	`
CREATE TABLE usage_days (
	account_id TEXT NOT NULL,
	day        TEXT NOT NULL, -- 2006-01-02, UTC
	language   TEXT NOT NULL,
	seconds    REAL NOT NULL,
	jobs       INTEGER NOT NULL,
	PRIMARY KEY (account_id, day, language)
) STRICT, WITHOUT ROWID;
INSERT INTO usage_days (account_id, day, language, seconds, jobs)
	SELECT account_id, date(created_at / 1000000000, 'unixepoch'), language, sum(audio_seconds), count(*)
	FROM jobs WHERE quota_month <> '' AND status <> 'failed'
	GROUP BY 1, 2, 3;
`,
	// 8: a transcription's redact_pii (1 when asked); 0 on every earlier row.
	`
ALTER TABLE jobs ADD COLUMN redact_pii INTEGER NOT NULL DEFAULT 0;
`,
	// 9: search across calls (search.go). job_search is an FTS4 full-text
	// index of each job's searchable text (callscribe.SearchDocumentOf, all
	// segments joined); job_search_docs maps its rows to jobs (the jobs
	// table's implicit rowid may change on VACUUM) and carries the account
	// and created_at, so a search orders its matches without reading the jobs
	// table. Existing live jobs are indexed as it runs, from their stored
	// JSON: a transcription by its transcript, a derived job by its topic,
	// summary and input text (a superset of what search confirms, which is
	// all an index needs).
	`
CREATE TABLE job_search_docs (
	docid      INTEGER PRIMARY KEY,
	job_id     TEXT NOT NULL UNIQUE,
	account_id TEXT NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;
CREATE VIRTUAL TABLE job_search USING fts4(text, tokenize=unicode61 "remove_diacritics=0");
INSERT INTO job_search_docs (job_id, account_id, created_at)
	SELECT id, account_id, created_at FROM jobs WHERE deleted_at IS NULL AND (
		(status = 'succeeded' AND result IS NOT NULL) OR
		(COALESCE(type, 'transcription') <> 'transcription' AND json_extract(input, '$.text') IS NOT NULL));
INSERT INTO job_search (docid, text)
	SELECT d.docid, concat_ws(char(10),
		(SELECT group_concat(json_extract(s.value, '$.text'), char(10)) FROM json_each(j.result, '$.transcript') s),
		CASE WHEN COALESCE(j.type, 'transcription') <> 'transcription' THEN json_extract(j.result, '$.topic') END,
		CASE WHEN COALESCE(j.type, 'transcription') <> 'transcription' THEN json_extract(j.result, '$.summary') END,
		json_extract(j.input, '$.text'))
	FROM job_search_docs d JOIN jobs j ON j.id = d.job_id;
`,
}

// migrate brings the schema to the newest version. It runs in one IMMEDIATE
// transaction, so two processes opening a new file at once migrate in turn and
// the second finds nothing to do.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit

	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var version int
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if version > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this program knows (%d)", version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, len(migrations)); err != nil {
		return err
	}
	return tx.Commit()
}

// SchemaVersion returns the schema version of the open database.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := db.read.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("sqlite: schema version: %w", err)
	}
	return v, nil
}
