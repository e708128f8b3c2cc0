// Package callback holds the delivery mechanics of the tagDelivered event: the
// payload, the validation of caller-supplied callback fields, the retry timing
// and a Notifier that makes one guarded HTTP attempt per call.
//
// Retries themselves are not here: each attempt is its own queue message (see
// callscribe.Message.Attempt), so a restart between attempts loses nothing. The
// pipeline calls Notifier.Deliver once per message and, on error, enqueues the
// next attempt with Delay: Backoff(attempt, base) until MaxAttempts.
package callback

import (
	"math/rand/v2"
	"time"
)

const (
	// MaxAttempts is how many delivery attempts a tagDelivered message gets
	// before it is abandoned (spec, Events, delivery rule 1).
	MaxAttempts = 3
	// AttemptTimeout bounds one attempt, from dial to the end of the response
	// (spec, Events, delivery rule 2).
	AttemptTimeout = 30 * time.Second
	// DefaultBackoffBase is the base used when CALLBACK_BACKOFF_BASE is unset or
	// a non-positive base is passed to Backoff.
	DefaultBackoffBase = 2 * time.Second
	// MaxBackoff caps a single delay so a large attempt number (or a huge base)
	// cannot overflow or park a message for days.
	MaxBackoff = time.Hour
)

// Backoff returns how long to wait before the attempt that follows attempt,
// where attempt is the 1-based number of the attempt that just failed.
//
// With x = base * 2^(attempt-1), the delay is drawn uniformly from [¾x, 1½x).
// The jitter spreads receivers' retry storms apart, and because the range for
// attempt n+1 starts exactly where the range for attempt n ends, the spacing
// between attempts grows whatever the random draws are (with the default 2s
// base: 1.5–3s before attempt 2, 3–6s before attempt 3). Results never exceed
// MaxBackoff. attempt < 1 is treated as 1; base <= 0 means DefaultBackoffBase.
func Backoff(attempt int, base time.Duration) time.Duration {
	if base <= 0 {
		base = DefaultBackoffBase
	}
	if attempt < 1 {
		attempt = 1
	}
	// Double until the attempt is reached or the cap is hit; a loop rather
	// than a shift so no attempt number can overflow.
	x := base
	for i := 1; i < attempt && x < MaxBackoff; i++ {
		x *= 2
	}
	if x > MaxBackoff || x <= 0 {
		x = MaxBackoff
	}
	lo := x - x/4   // ¾x
	span := x - x/4 // 1½x - ¾x; at least 1 because x >= 1ns
	d := lo + time.Duration(rand.Int64N(int64(span)))
	return min(d, MaxBackoff)
}
