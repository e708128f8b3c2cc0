package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Queue is a durable work queue in the database file. Delivery is at least
// once: a message is deleted only after its handler returned nil, and a message
// whose handler never reports back (the process died, or hung past its lease)
// becomes visible again and is delivered again. Handlers are idempotent.
//
// A message is claimed by setting its visible_at (and leased_until) to the end
// of a lease in one UPDATE ... RETURNING, so no two workers, in this process or
// another, hold the same message at once. While its handler runs the lease is
// extended, so only a dead or stuck process lets a lease expire.
type Queue struct {
	db *DB

	mu   sync.Mutex
	wake chan struct{} // closed and replaced by every Enqueue, waking idle workers
}

var _ callscribe.Queue = (*Queue)(nil)

func newQueue(db *DB) *Queue {
	return &Queue{db: db, wake: make(chan struct{})}
}

// Enqueue stores m; it is durable once Enqueue returns nil. m.Delay postpones
// its first delivery.
func (q *Queue) Enqueue(ctx context.Context, m callscribe.Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("sqlite: encode message: %w", err)
	}
	now := time.Now()
	visibleAt := now.Add(max(m.Delay, 0))
	_, err = q.db.write.ExecContext(ctx, `INSERT INTO queue_messages (body, visible_at, enqueued_at) VALUES (?, ?, ?)`,
		string(body), visibleAt.UnixNano(), now.UnixNano())
	if err != nil {
		return fmt.Errorf("sqlite: enqueue %s %s: %w", m.Kind, m.JobID, err)
	}
	q.signal()
	return nil
}

func (q *Queue) signal() {
	q.mu.Lock()
	close(q.wake)
	q.wake = make(chan struct{})
	q.mu.Unlock()
}

func (q *Queue) wakeSignal() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.wake
}

// ConsumeOptions tunes Consume; zero fields take the defaults.
type ConsumeOptions struct {
	// Visibility is the lease a worker takes on a message; it is renewed while
	// the handler runs. A message whose lease runs out (the process died) is
	// delivered again. Default callscribe.QueueLease.
	Visibility time.Duration
	// PollInterval is how often idle workers look for messages that became
	// visible by time (delays, retries) rather than by an Enqueue of this
	// process. Default 250ms.
	PollInterval time.Duration
	// MaxReceives is how many deliveries a message gets before a failure moves
	// it to the dead letters. Default callscribe.QueueMaxReceives.
	MaxReceives int
	// RetryBackoff is how long a failed message stays invisible after its
	// receives-th delivery. Default callscribe.QueueRetryBackoff.
	RetryBackoff func(receives int) time.Duration
	// Logger receives handler failures and dead letters. Default slog.Default().
	Logger *slog.Logger
	// HandBackAfter bounds a shutdown: once ctx is done, handlers in flight
	// have this long to finish; then their context is cancelled and their
	// messages are handed back (visible at once, the delivery not counted),
	// so the next start runs them again. Zero waits for handlers however long
	// they take.
	HandBackAfter time.Duration
}

func (o ConsumeOptions) withDefaults() ConsumeOptions {
	if o.Visibility <= 0 {
		o.Visibility = callscribe.QueueLease
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 250 * time.Millisecond
	}
	if o.MaxReceives <= 0 {
		o.MaxReceives = callscribe.QueueMaxReceives
	}
	if o.RetryBackoff == nil {
		o.RetryBackoff = callscribe.QueueRetryBackoff
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Consume runs workers goroutines, each handling one message at a time, until
// ctx is done. It then stops claiming and returns nil once the handlers in
// flight have finished. Handlers get a context that is not cancelled with ctx,
// so work in progress completes instead of failing half-way, unless it runs
// past HandBackAfter: then the handler is cancelled and its message handed
// back for the next start. A process killed before that loses nothing either:
// RecoverInFlight at the next start redelivers.
func (q *Queue) Consume(ctx context.Context, workers int, h callscribe.MessageHandler, opts ConsumeOptions) error {
	if workers < 1 {
		return fmt.Errorf("sqlite: consume: workers must be at least 1, got %d", workers)
	}
	if h == nil {
		return errors.New("sqlite: consume: nil handler")
	}
	opts = opts.withDefaults()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q.work(ctx, h, opts)
		}()
	}
	wg.Wait()
	return nil
}

func (q *Queue) work(ctx context.Context, h callscribe.MessageHandler, opts ConsumeOptions) {
	for ctx.Err() == nil {
		// Taken before claiming, so an Enqueue between an empty claim and the
		// wait below still wakes this worker.
		wake := q.wakeSignal()
		// The claim itself is not cancelled by ctx: a committed claim whose
		// handler never runs would sit out its lease for nothing.
		msg, err := q.claim(context.WithoutCancel(ctx), opts.Visibility)
		if err != nil {
			opts.Logger.Error("queue: claim failed", "error", err)
		}
		if msg != nil {
			q.handle(ctx, msg, h, opts)
			continue
		}
		timer := time.NewTimer(opts.PollInterval)
		select {
		case <-ctx.Done():
		case <-wake:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// claimedMessage is a message under a lease. receives doubles as the lease
// token: every claim increments it, so a worker whose lease was taken over by
// another delivery can no longer change the message.
type claimedMessage struct {
	id       int64
	body     string
	receives int
}

func (q *Queue) claim(ctx context.Context, visibility time.Duration) (*claimedMessage, error) {
	now := time.Now()
	// Idle workers poll often; asking the read pool first keeps those polls
	// off the single write connection that uploads and transitions need.
	var visible int
	err := q.db.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM queue_messages WHERE visible_at <= ?)`, now.UnixNano()).Scan(&visible)
	if err != nil {
		return nil, fmt.Errorf("sqlite: look for messages: %w", err)
	}
	if visible == 0 {
		return nil, nil
	}
	leaseEnd := now.Add(visibility).UnixNano()
	var m claimedMessage
	err = q.db.write.QueryRowContext(ctx, `
		UPDATE queue_messages SET visible_at = ?1, leased_until = ?1, receives = receives + 1
		WHERE id = (SELECT id FROM queue_messages WHERE visible_at <= ?2 ORDER BY visible_at, id LIMIT 1)
		RETURNING id, body, receives`, leaseEnd, now.UnixNano()).Scan(&m.id, &m.body, &m.receives)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: claim message: %w", err)
	}
	return &m, nil
}

func (q *Queue) handle(ctx context.Context, claimed *claimedMessage, h callscribe.MessageHandler, opts ConsumeOptions) {
	// Bookkeeping after the handler must happen even when ctx is done.
	bookkeeping := context.WithoutCancel(ctx)
	log := opts.Logger.With("message_id", claimed.id, "receives", claimed.receives)

	var m callscribe.Message
	if err := json.Unmarshal([]byte(claimed.body), &m); err != nil {
		// No retry can fix a body that does not decode.
		q.deadLetter(bookkeeping, claimed, fmt.Errorf("decode message: %w", err), log)
		return
	}
	log = log.With("kind", m.Kind, "job_id", m.JobID)

	stopRenewing := q.renewLease(bookkeeping, claimed, opts.Visibility, log)
	handlerCtx, finish := handlerContext(ctx, opts.HandBackAfter)
	err := callHandler(handlerCtx, h, m)
	handedBack := finish()
	stopRenewing()

	switch {
	case err != nil && handedBack:
		log.Warn("queue: shutting down; handler cancelled and its message handed back", "error", err)
		if err := q.handBack(bookkeeping, claimed); err != nil {
			log.Error("queue: handing back failed; the message will be delivered when its lease ends", "error", err)
		}
	case err == nil:
		if err := q.ack(bookkeeping, claimed); err != nil {
			log.Error("queue: acknowledge failed; the message will be delivered again", "error", err)
		}
	case claimed.receives >= opts.MaxReceives:
		q.deadLetter(bookkeeping, claimed, err, log)
	default:
		backoff := opts.RetryBackoff(claimed.receives)
		log.Warn("queue: handler failed; will retry", "error", err, "retry_in", backoff)
		if err := q.retryLater(bookkeeping, claimed, backoff, err); err != nil {
			log.Error("queue: scheduling retry failed; the message will be delivered when its lease ends", "error", err)
		}
	}
}

// handlerContext is the context a handler runs under: not cancelled with ctx,
// but cancelled handBackAfter after ctx is done (never, when it is zero).
// finish must be called once the handler returns, whatever it returned: it
// reports whether that cancellation happened, and it unregisters the watch on
// ctx, which otherwise stays registered on the consumer's long-lived context
// for good (a leak of one registration per message handled).
func handlerContext(ctx context.Context, handBackAfter time.Duration) (handler context.Context, finish func() (handedBack bool)) {
	if handBackAfter <= 0 {
		return context.WithoutCancel(ctx), func() bool { return false }
	}
	handler, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var fired atomic.Bool
	stop := context.AfterFunc(ctx, func() {
		time.AfterFunc(handBackAfter, func() {
			fired.Store(true)
			cancel()
		})
	})
	return handler, func() bool {
		stop()
		handedBack := fired.Load()
		cancel()
		return handedBack
	}
}

// callHandler turns a handler panic into an error, so one bad message cannot
// take the process down and is retried, then dead-lettered, like any failure.
func callHandler(ctx context.Context, h callscribe.MessageHandler, m callscribe.Message) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panic: %v", r)
		}
	}()
	return h.HandleMessage(ctx, m)
}

// renewLease extends the lease every third of the visibility until stopped.
func (q *Queue) renewLease(ctx context.Context, claimed *claimedMessage, visibility time.Duration, log *slog.Logger) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// A floor keeps a tiny Visibility from making a zero (panicking) ticker.
		ticker := time.NewTicker(max(visibility/3, time.Millisecond))
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				leaseEnd := time.Now().Add(visibility).UnixNano()
				_, err := q.db.write.ExecContext(ctx, `UPDATE queue_messages SET visible_at = ?1, leased_until = ?1 WHERE id = ?2 AND receives = ?3`,
					leaseEnd, claimed.id, claimed.receives)
				if err != nil {
					log.Error("queue: lease renewal failed", "error", err)
				}
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

func (q *Queue) ack(ctx context.Context, claimed *claimedMessage) error {
	_, err := q.db.write.ExecContext(ctx, `DELETE FROM queue_messages WHERE id = ? AND receives = ?`, claimed.id, claimed.receives)
	return err
}

// handBack makes a message visible at once without counting the delivery:
// being stopped by a shutdown is not the message's failure.
func (q *Queue) handBack(ctx context.Context, claimed *claimedMessage) error {
	_, err := q.db.write.ExecContext(ctx, `UPDATE queue_messages SET visible_at = ?, leased_until = NULL, receives = receives - 1 WHERE id = ? AND receives = ?`,
		time.Now().UnixNano(), claimed.id, claimed.receives)
	return err
}

func (q *Queue) retryLater(ctx context.Context, claimed *claimedMessage, backoff time.Duration, cause error) error {
	_, err := q.db.write.ExecContext(ctx, `UPDATE queue_messages SET visible_at = ?, leased_until = NULL, last_error = ? WHERE id = ? AND receives = ?`,
		time.Now().Add(backoff).UnixNano(), cause.Error(), claimed.id, claimed.receives)
	return err
}

func (q *Queue) deadLetter(ctx context.Context, claimed *claimedMessage, cause error, log *slog.Logger) {
	err := q.db.inWriteTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `
			INSERT INTO dead_letters (id, body, receives, last_error, enqueued_at, died_at)
			SELECT id, body, receives, ?, enqueued_at, ? FROM queue_messages WHERE id = ? AND receives = ?`,
			cause.Error(), time.Now().UnixNano(), claimed.id, claimed.receives)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, errors.New("lease lost before dead-lettering"))
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM queue_messages WHERE id = ?`, claimed.id)
		return err
	})
	if err != nil {
		log.Error("queue: dead-lettering failed; the message will be delivered again", "cause", cause, "error", err)
		return
	}
	log.Error("queue: message dead-lettered after its last delivery failed", "error", cause)
}

// RecoverInFlight makes every leased message visible at once and returns how
// many there were. Call it at process start, before Consume, when this process
// is the only consumer of the file: the leases belong to a previous process that
// was killed while handling them. Their receive counts stay, so a message that
// keeps crashing the process still ends in the dead letters.
func (q *Queue) RecoverInFlight(ctx context.Context) (int, error) {
	res, err := q.db.write.ExecContext(ctx, `UPDATE queue_messages SET visible_at = ?, leased_until = NULL WHERE leased_until IS NOT NULL`,
		time.Now().UnixNano())
	if err != nil {
		return 0, fmt.Errorf("sqlite: recover in-flight messages: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlite: recover in-flight messages: %w", err)
	}
	if n > 0 {
		q.signal()
	}
	return int(n), nil
}

// DeadLetter is a message that failed its last delivery.
type DeadLetter struct {
	ID        int64
	Message   callscribe.Message
	Receives  int
	LastError string
	Enqueued  time.Time
	Died      time.Time
}

// DeadLetters returns up to limit dead letters, oldest death first, for
// inspection by an operator.
func (q *Queue) DeadLetters(ctx context.Context, limit int) ([]DeadLetter, error) {
	rows, err := q.db.read.QueryContext(ctx, `SELECT id, body, receives, last_error, enqueued_at, died_at FROM dead_letters ORDER BY died_at, id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: dead letters: %w", err)
	}
	defer rows.Close()
	var letters []DeadLetter
	for rows.Next() {
		var (
			d              DeadLetter
			body           string
			enqueued, died int64
		)
		if err := rows.Scan(&d.ID, &body, &d.Receives, &d.LastError, &enqueued, &died); err != nil {
			return nil, fmt.Errorf("sqlite: dead letters: %w", err)
		}
		// A body that does not decode is kept as is in the table; the zero
		// Message here plus LastError tell the operator to look there.
		_ = json.Unmarshal([]byte(body), &d.Message)
		d.Enqueued = time.Unix(0, enqueued).UTC()
		d.Died = time.Unix(0, died).UTC()
		letters = append(letters, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: dead letters: %w", err)
	}
	return letters, nil
}
