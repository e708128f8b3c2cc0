package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// stmtCache runs queries through statements prepared once per query text.
// Preparing a statement costs more than running a point read (profiled on
// the pure-Go driver used before, preparation was half of a GET job). The
// queries are a fixed set (a list query differs only by which filters it
// has), so a map by text stays small; past maxCachedStatements (a sign that
// text is being built from data) queries run unprepared rather than grow it.
// database/sql re-prepares a cached statement on each pooled connection as
// needed.
type stmtCache struct {
	db *sql.DB

	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

const maxCachedStatements = 256

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, stmts: map[string]*sql.Stmt{}}
}

// stmt returns the prepared statement for query, or nil when it cannot be
// cached (the caller then runs the query directly).
func (c *stmtCache) stmt(ctx context.Context, query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.stmts[query]; ok {
		return s
	}
	if len(c.stmts) >= maxCachedStatements {
		return nil
	}
	s, err := c.db.PrepareContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil // the direct run reports the error
	}
	c.stmts[query] = s
	return s
}

// Reads run without the caller's cancellation (its values are kept): they
// take microseconds, and with a cancellable context database/sql starts a
// goroutine per query to watch it and the driver registers a callback per
// result set, which together cost more than the read itself. A read never
// waits on the writer (WAL), so there is nothing long to cancel.

// QueryContext is sql.DB's, through the cache.
func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx = context.WithoutCancel(ctx)
	if s := c.stmt(ctx, query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return c.db.QueryContext(ctx, query, args...)
}

// QueryRowContext is sql.DB's, through the cache.
func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx = context.WithoutCancel(ctx)
	if s := c.stmt(ctx, query); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return c.db.QueryRowContext(ctx, query, args...)
}

// ExecContext is sql.DB's, through the cache.
func (c *stmtCache) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := c.stmt(ctx, query); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return c.db.ExecContext(ctx, query, args...)
}

// Close closes the statements and the pool.
func (c *stmtCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for q, s := range c.stmts {
		errs = append(errs, s.Close())
		delete(c.stmts, q)
	}
	return errors.Join(append(errs, c.db.Close())...)
}
