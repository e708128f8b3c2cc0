// Package ratelimit holds the in-process limits a public API needs: token
// buckets per caller (API key, client address) and a failed-attempt window for
// sign-in.
//
// Both are per process, in memory. On the local stack that is the whole
// service. On AWS each Lambda instance keeps its own, so the effective limit is
// the configured one times the number of warm instances; API Gateway's stage
// throttling (template.yaml) is the account-wide ceiling in front of them.
package ratelimit

import (
	"math"
	"sync"
	"time"
)

// Limiter is a set of token buckets by key: each key may make Burst requests
// at once and RPS per second after that.
type Limiter struct {
	rps   float64
	burst float64
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

// NewLimiter returns a limiter; nil (which allows everything) when rps <= 0.
// A burst below 1 is taken as 1. now is the clock (time.Now when nil).
func NewLimiter(rps float64, burst int, now func() time.Time) *Limiter {
	if rps <= 0 {
		return nil
	}
	if now == nil {
		now = time.Now
	}
	return &Limiter{rps: rps, burst: math.Max(1, float64(burst)), now: now, buckets: map[string]*bucket{}}
}

// Allow takes a token from key's bucket. When there is none it returns false
// and how long until there is one.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = l.refilled(b, now)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rps * float64(time.Second))
}

func (l *Limiter) refilled(b *bucket, now time.Time) float64 {
	return math.Min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rps)
}

// sweep drops, at most once a minute, the buckets that have refilled: a key
// seen again starts full anyway, so memory stays bounded by the keys active
// in the last minute.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		if l.refilled(b, now) >= l.burst {
			delete(l.buckets, k)
		}
	}
}

// Attempts counts failures per key in a sliding window: once a key has Max
// failures in Window it is blocked until the oldest of them leaves the window.
// A block therefore never outlasts Window after the last failure, so nobody
// can be shut out for longer than that without failing again.
type Attempts struct {
	max    int
	window time.Duration
	now    func() time.Time

	mu        sync.Mutex
	failures  map[string][]time.Time // oldest first, at most max
	lastSweep time.Time
}

// NewAttempts returns a failure window of max failures in window.
func NewAttempts(max int, window time.Duration, now func() time.Time) *Attempts {
	if now == nil {
		now = time.Now
	}
	return &Attempts{max: max, window: window, now: now, failures: map[string][]time.Time{}}
}

// Blocked reports whether key is blocked now and for how long.
func (a *Attempts) Blocked(key string) (bool, time.Duration) {
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.live(key, now)
	if len(f) < a.max {
		return false, 0
	}
	return true, f[0].Add(a.window).Sub(now)
}

// Fail records a failure of key.
func (a *Attempts) Fail(key string) {
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sweep(now)
	f := append(a.live(key, now), now)
	if len(f) > a.max {
		f = f[len(f)-a.max:]
	}
	a.failures[key] = f
}

// Clear forgets key's failures (a successful sign-in).
func (a *Attempts) Clear(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.failures, key)
}

// live returns key's failures still inside the window, storing the trimmed list.
func (a *Attempts) live(key string, now time.Time) []time.Time {
	f := a.failures[key]
	i := 0
	for i < len(f) && !now.Before(f[i].Add(a.window)) {
		i++
	}
	if i == len(f) {
		delete(a.failures, key)
		return nil
	}
	f = f[i:]
	a.failures[key] = f
	return f
}

func (a *Attempts) sweep(now time.Time) {
	if now.Sub(a.lastSweep) < a.window {
		return
	}
	a.lastSweep = now
	for k := range a.failures {
		a.live(k, now)
	}
}
