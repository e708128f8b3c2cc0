// Package sqlite is the embedded storage of the local process: jobs, quota,
// accounts and a durable work queue in one SQLite file, on the cgo driver
// github.com/mattn/go-sqlite3.
//
// Driver: the local process already needs cgo for its speech engine, so the
// store uses SQLite's own C build rather than the pure-Go translation
// (modernc.org/sqlite, used before). Profiled under load, the translation spent
// most of a point read in emulated pthread mutexes (it opens every connection
// FULLMUTEX) and in its VDBE; the C build with SQLITE_OPEN_NOMUTEX (_mutex=no:
// database/sql never uses one connection from two goroutines at once) does the
// same read in a fraction of the time (figures: README, make bench-api). The
// AWS functions never link this package, so they stay CGO_ENABLED=0.
//
// Durability: the database runs in WAL mode with synchronous=NORMAL. A commit
// is in the WAL file (the OS page cache) before the call returns, so a process
// crash or kill -9 right after a 202 loses nothing; only a power loss or kernel
// crash can lose the last few commits, which is the usual trade for a local
// single-box deployment (FULL would add an fsync to every commit, the queue's
// claims and acknowledgements included).
//
// Concurrency: all writes go through one connection, so the process never
// fights itself for SQLite's single write lock and read-modify-write
// transactions (quota reservation, compare-and-set transitions) are serialised.
// Write transactions also begin IMMEDIATE and the busy timeout is set, so a
// second process on the same file waits instead of failing or racing. Reads use
// a separate pool and, thanks to WAL, never wait for the writer.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers "sqlite3"; without cgo its Open says cgo is required
)

// DB is an open database file.
type DB struct {
	write *sql.DB    // exactly one connection
	read  *stmtCache // read-only pool, statements prepared once (stmtcache.go)
	queue *Queue
}

// busyTimeoutMillis bounds how long a statement waits for another process's
// lock before failing with SQLITE_BUSY.
const busyTimeoutMillis = 10000

// Open opens (creating if needed) the database at path and brings its schema up
// to date. The path must not contain '?'.
func Open(path string) (*DB, error) {
	if path == "" || strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("sqlite: invalid database path %q", path)
	}
	params := fmt.Sprintf("_busy_timeout=%d&_foreign_keys=1&_mutex=no", busyTimeoutMillis)
	write, err := sql.Open("sqlite3", path+"?"+params+"&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)

	ctx := context.Background()
	if err := migrateRetryingBusy(ctx, write); err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: migrate %s: %w", path, err)
	}

	// Opened after the writer switched the file to WAL, so readers see WAL mode.
	read, err := sql.Open("sqlite3", path+"?"+params+"&_query_only=1")
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
	}
	// Four connections a core: a goroutine that returns from a C call may wait
	// for the scheduler while it still holds its connection, so the pool
	// is sized above GOMAXPROCS (8 measured as good as 32 with 32 requests in
	// flight on two cores; 4 made requests queue for a connection).
	readers := max(8, 4*runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(readers)
	read.SetMaxIdleConns(readers)
	if err := read.PingContext(ctx); err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
	}

	db := &DB{write: write, read: newStmtCache(read)}
	db.queue = newQueue(db)
	return db, nil
}

// migrateRetryingBusy runs migrate, trying again while it fails with
// SQLITE_BUSY, for at most the busy timeout. When several processes open a new
// file at once, switching it to WAL (done as each connection opens) and
// recovering the WAL index can return SQLITE_BUSY at once, without waiting on
// the busy handler; measured before this retry, 4 concurrent Opens of a new
// file failed 16 times in 200.
func migrateRetryingBusy(ctx context.Context, write *sql.DB) error {
	deadline := time.Now().Add(busyTimeoutMillis * time.Millisecond)
	for {
		err := migrate(ctx, write)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		// A few milliseconds, jittered so that racing processes spread out.
		time.Sleep(time.Duration(5+rand.IntN(20)) * time.Millisecond)
	}
}

// Close closes the database. Consumers must have stopped first.
func (db *DB) Close() error {
	return errors.Join(db.read.Close(), db.write.Close())
}

// Jobs returns the job store.
func (db *DB) Jobs() *JobStore { return &JobStore{db: db} }

// Accounts returns the account store.
func (db *DB) Accounts() *AccountStore { return &AccountStore{db: db} }

// Idempotency returns the idempotency record store.
func (db *DB) Idempotency() *IdempotencyStore { return &IdempotencyStore{db: db} }

// Queue returns the durable queue. Every call returns the same queue, so an
// Enqueue wakes the Consume loop of the same process at once.
func (db *DB) Queue() *Queue { return db.queue }

// inWriteTx runs fn in a write transaction (BEGIN IMMEDIATE on the single write
// connection) and commits when fn returns nil.
func (db *DB) inWriteTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	return nil
}
