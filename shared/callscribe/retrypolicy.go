package callscribe

import (
	"math/rand/v2"
	"time"
)

// The retry policy: every attempt count, backoff and re-check bound of jobs
// and of tagDelivered callbacks, with why each value is what it is. Values a
// deployment may change keep their configuration (CALLBACK_BACKOFF_BASE,
// CALLBACK_TIMEOUT in package config); their defaults are here.
//
// Jobs. A worker claims a job (the start transition, states.go), which counts
// an attempt, and runs its engine:
//   - a *JobError fails the job at once (no retry);
//   - any other error leaves the job processing and its message is delivered
//     again by the queue (after QueueRetryBackoff on the embedded queue; after
//     the SQS visibility timeout on AWS); the next delivery starts a new attempt;
//   - the start that would make attempt MaxJobAttempts+1 fails the job
//     instead (JobAttemptsExhausted);
//   - a *Pending answer of an asynchronous provider re-queues the message with
//     the provider's delay; that re-check resumes the attempt (not counted),
//     up to MaxProviderRechecks re-checks (ProviderRechecksExhausted).
//
// Callbacks. Each delivery attempt is its own queue message: a failed attempt
// (non-2xx, network error, over CallbackAttemptTimeout) queues the next one
// after CallbackBackoff, until CallbackMaxAttempts (RetryCallback). An address
// the guard refuses is never retried: the refusal would only repeat.
//
// Store writes. DynamoDB cancels a transaction that collides with another on
// the same item instead of queueing it; the store retries it up to
// StoreTransactionAttempts times after StoreConflictBackoff.

// Jobs.
const (
	// MaxJobAttempts bounds how often a worker starts the same job. Three
	// rides out a passing provider or network fault (each retry comes after
	// the queue's backoff) without looping forever on a job that always
	// breaks its engine.
	MaxJobAttempts = 3
	// MaxProviderRechecks bounds how long an asynchronous provider may keep a
	// job running: with Amazon Transcribe's default 15 s re-check delay
	// (awstranscribe.DefaultCheckAfter) about two hours, far beyond the
	// minutes a 10 MiB recording takes, so only a stuck provider job hits it.
	MaxProviderRechecks = 500
)

// JobAttemptsExhausted reports whether a job that has been started attempts
// times (counting the start just made) has used up its attempts and must fail.
func JobAttemptsExhausted(attempts int) bool { return attempts > MaxJobAttempts }

// ProviderRechecksExhausted reports whether a job whose provider work has been
// re-checked rechecks times must stop waiting and fail.
func ProviderRechecksExhausted(rechecks int) bool { return rechecks >= MaxProviderRechecks }

// The embedded stack's queue (package sqlite), which carries job and callback
// messages on a single machine.
const (
	// QueueLease is how long a worker holds a message it took; the lease is
	// renewed every third of it while the handler runs, so only a dead
	// process lets it lapse. Two minutes: a crashed worker's job runs again
	// within two minutes, and one renewal (every 40 s) can be missed without
	// the message being delivered twice.
	QueueLease = 2 * time.Minute
	// QueueMaxReceives is how many deliveries a message gets before a failure
	// moves it to the dead letters: the embedded queue's limit, the SQS
	// queues' redrive maxReceiveCount (template.yaml, checked by its test) and
	// the default of the queues the tests and the AWS emulation create. It must exceed MaxJobAttempts: the
	// delivery after the last attempt is the one that fails the job with a
	// reason, rather than leaving it processing in the dead letters.
	QueueMaxReceives = 5
	// QueueRetryBackoffBase is the delay after a message's first failed
	// delivery; it doubles with each further one.
	QueueRetryBackoffBase = time.Second
	// QueueRetryBackoffCap caps that delay, so a queue configured with more
	// receives than QueueMaxReceives retries a failing message every minute
	// rather than ever more rarely (with the default receives the longest
	// delay is 32 s).
	QueueRetryBackoffCap = time.Minute
)

// QueueRetryBackoff is how long a message whose receives-th delivery failed
// stays invisible: QueueRetryBackoffBase * 2^receives, at most
// QueueRetryBackoffCap (2 s, 4 s, 8 s, ... 60 s).
func QueueRetryBackoff(receives int) time.Duration {
	d := QueueRetryBackoffBase
	for i := 0; i < receives && d < QueueRetryBackoffCap; i++ {
		d *= 2
	}
	return min(d, QueueRetryBackoffCap)
}

// Callbacks (tagDelivered).
const (
	// CallbackMaxAttempts is how many delivery attempts a tagDelivered
	// message gets before it is abandoned (spec, Events, delivery rule 1).
	CallbackMaxAttempts = 3
	// CallbackAttemptTimeout bounds one attempt, from dial to the end of the
	// response (spec, Events, delivery rule 2). Default of CALLBACK_TIMEOUT.
	CallbackAttemptTimeout = 30 * time.Second
	// DefaultCallbackBackoffBase is the base of CallbackBackoff: attempts at
	// about 0, 1 and 3 minutes (45–90 s, then 1.5–3 min later), long enough
	// for a receiver to come back from a restart or a deploy, and every delay
	// well inside the 15 minutes SQS can hold a message back (DelaySeconds'
	// limit). Default of CALLBACK_BACKOFF_BASE, and what a non-positive base
	// means; tests and the local black-box suites set a short base.
	DefaultCallbackBackoffBase = time.Minute
	// CallbackBackoffCap caps a single delay so a large attempt number (or a
	// huge base) cannot overflow or park a message for days.
	CallbackBackoffCap = time.Hour
	// MaxDeliveriesPerJob is how many tagDelivered attempts a job's delivery
	// record keeps (the newest): three attempts a delivery, with room for the
	// duplicates at-least-once queues produce.
	MaxDeliveriesPerJob = 20
	// SigningSecretOverlap is how long a rotated-out signing secret keeps
	// signing deliveries beside the new one: a day for the receiver to
	// deploy the new secret.
	SigningSecretOverlap = 24 * time.Hour
)

// RetryCallback reports whether a failed delivery attempt (1-based) is
// followed by another.
func RetryCallback(attempt int) bool { return attempt < CallbackMaxAttempts }

// CallbackBackoff returns how long to wait before the attempt that follows
// attempt, where attempt is the 1-based number of the attempt that just failed.
//
// With x = base * 2^(attempt-1), the delay is drawn uniformly from [¾x, 1½x).
// The jitter spreads receivers' retry storms apart, and because the range for
// attempt n+1 starts exactly where the range for attempt n ends, the spacing
// between attempts grows whatever the random draws are (with the default 1 min
// base: 45–90 s before attempt 2, 1.5–3 min before attempt 3). Results never exceed
// CallbackBackoffCap. attempt < 1 is treated as 1; base <= 0 means
// DefaultCallbackBackoffBase.
func CallbackBackoff(attempt int, base time.Duration) time.Duration {
	if base <= 0 {
		base = DefaultCallbackBackoffBase
	}
	if attempt < 1 {
		attempt = 1
	}
	// Double until the attempt is reached or the cap is hit; a loop rather
	// than a shift so no attempt number can overflow.
	x := base
	for i := 1; i < attempt && x < CallbackBackoffCap; i++ {
		x *= 2
	}
	if x > CallbackBackoffCap || x <= 0 {
		x = CallbackBackoffCap
	}
	lo := x - x/4   // ¾x
	span := x - x/4 // 1½x - ¾x; at least 1 because x >= 1ns
	d := lo + time.Duration(rand.Int64N(int64(span)))
	return min(d, CallbackBackoffCap)
}

// DynamoDB transactions cancelled by a concurrent one (package dynamodb).
const (
	// StoreTransactionAttempts bounds retries of a transaction cancelled by a
	// concurrent transaction on the same item (typically two uploads of one
	// account reserving quota at once). With StoreConflictBackoff growing to
	// 320 ms, 50 uploads racing for one account (the contract suite does
	// that) all get through.
	StoreTransactionAttempts = 25
	// StoreConflictBackoffBase is the delay unit of StoreConflictBackoff: a
	// transaction takes milliseconds, so a few of them apart is enough.
	StoreConflictBackoffBase = 5 * time.Millisecond
	// storeConflictDoublings caps the growth at base * 2^6 = 320 ms.
	storeConflictDoublings = 6
)

// StoreConflictBackoff is the wait before retrying a transaction that
// collided for the attempt-th time: x = StoreConflictBackoffBase *
// 2^min(attempt, 6), drawn from [x/2, 1½x) so the colliding writers spread out.
func StoreConflictBackoff(attempt int) time.Duration {
	d := StoreConflictBackoffBase << min(max(attempt, 0), storeConflictDoublings)
	return d/2 + rand.N(d)
}
