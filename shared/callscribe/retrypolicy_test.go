package callscribe

import (
	"testing"
	"time"
)

// samples draws n delays for one attempt.
func samples(attempt int, base time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = CallbackBackoff(attempt, base)
	}
	return out
}

func TestCallbackBackoffStaysWithinDocumentedRange(t *testing.T) {
	const base = 2 * time.Second
	for attempt := 1; attempt <= 6; attempt++ {
		x := base << (attempt - 1)
		lo, hi := x*3/4, x*3/2
		for _, d := range samples(attempt, base, 2000) {
			if d < lo || d >= hi {
				t.Fatalf("CallbackBackoff(%d, %s) = %s, want in [%s, %s)", attempt, base, d, lo, hi)
			}
		}
	}
}

func TestCallbackBackoffSpacingAlwaysGrows(t *testing.T) {
	// The pipeline's retry test expects each gap to be longer than the one
	// before; that must hold for every draw, not just on average.
	const base = 10 * time.Millisecond
	for attempt := 1; attempt < CallbackMaxAttempts+2; attempt++ {
		cur, next := samples(attempt, base, 1000), samples(attempt+1, base, 1000)
		maxCur, minNext := cur[0], next[0]
		for i := range cur {
			maxCur = max(maxCur, cur[i])
			minNext = min(minNext, next[i])
		}
		if minNext <= maxCur {
			t.Fatalf("attempt %d: shortest next delay %s <= longest current delay %s", attempt, minNext, maxCur)
		}
	}
}

func TestCallbackBackoffMeanRoughlyDoubles(t *testing.T) {
	const base, n = time.Second, 4000
	mean := func(attempt int) float64 {
		var sum time.Duration
		for _, d := range samples(attempt, base, n) {
			sum += d
		}
		return float64(sum) / n
	}
	m1, m2, m3 := mean(1), mean(2), mean(3)
	// Uniform on [0.75x, 1.5x) has mean 1.125x; allow generous sampling noise.
	if m1 < 1.05e9 || m1 > 1.2e9 {
		t.Errorf("mean delay after attempt 1 = %.3fs, want about 1.125s", m1/1e9)
	}
	for _, r := range []float64{m2 / m1, m3 / m2} {
		if r < 1.8 || r > 2.2 {
			t.Errorf("mean ratio between consecutive attempts = %.2f, want about 2", r)
		}
	}
}

func TestCallbackBackoffIsJittered(t *testing.T) {
	distinct := map[time.Duration]bool{}
	for _, d := range samples(1, 2*time.Second, 500) {
		distinct[d] = true
	}
	if len(distinct) < 400 {
		t.Fatalf("only %d distinct delays in 500 draws; jitter is missing", len(distinct))
	}
}

func TestCallbackBackoffDefaultsAndCap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		attempt int
		base    time.Duration
		lo, hi  time.Duration
	}{
		{"zero base means default", 1, 0, 45 * time.Second, 90 * time.Second},
		{"negative base means default", 2, -time.Second, 90 * time.Second, 180 * time.Second},
		{"attempt below 1 is attempt 1", 0, time.Second, 750 * time.Millisecond, 1500 * time.Millisecond},
		{"huge attempt is capped", 1000, time.Second, 45 * time.Minute, CallbackBackoffCap + 1},
		{"huge base is capped", 1, 100 * time.Hour, 45 * time.Minute, CallbackBackoffCap + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 200 {
				d := CallbackBackoff(tc.attempt, tc.base)
				if d < tc.lo || d >= tc.hi {
					t.Fatalf("CallbackBackoff(%d, %s) = %s, want in [%s, %s)", tc.attempt, tc.base, d, tc.lo, tc.hi)
				}
			}
		})
	}
}

func TestQueueRetryBackoff(t *testing.T) {
	for receives, want := range map[int]time.Duration{1: 2 * time.Second, 2: 4 * time.Second, 5: 32 * time.Second, 6: time.Minute, 40: time.Minute} {
		if got := QueueRetryBackoff(receives); got != want {
			t.Errorf("QueueRetryBackoff(%d) = %v, want %v", receives, got, want)
		}
	}
}

func TestRetryDecisions(t *testing.T) {
	// A job runs MaxJobAttempts times; the start that would be one more fails it.
	if JobAttemptsExhausted(MaxJobAttempts) || !JobAttemptsExhausted(MaxJobAttempts+1) {
		t.Errorf("JobAttemptsExhausted must allow attempt %d and refuse attempt %d", MaxJobAttempts, MaxJobAttempts+1)
	}
	if ProviderRechecksExhausted(MaxProviderRechecks-1) || !ProviderRechecksExhausted(MaxProviderRechecks) {
		t.Errorf("ProviderRechecksExhausted must allow %d re-checks and stop at %d", MaxProviderRechecks-1, MaxProviderRechecks)
	}
	// A callback gets CallbackMaxAttempts attempts in all.
	if !RetryCallback(CallbackMaxAttempts-1) || RetryCallback(CallbackMaxAttempts) {
		t.Errorf("RetryCallback must retry after attempt %d and not after attempt %d", CallbackMaxAttempts-1, CallbackMaxAttempts)
	}
	// The worker, not the dead letters, must see the delivery that fails a
	// job out of attempts.
	if QueueMaxReceives <= MaxJobAttempts {
		t.Errorf("QueueMaxReceives %d must exceed MaxJobAttempts %d", QueueMaxReceives, MaxJobAttempts)
	}
}

func TestStoreConflictBackoff(t *testing.T) {
	for attempt, x := range map[int]time.Duration{1: 10 * time.Millisecond, 3: 40 * time.Millisecond, 6: 320 * time.Millisecond, 24: 320 * time.Millisecond} {
		for range 200 {
			if d := StoreConflictBackoff(attempt); d < x/2 || d >= x*3/2 {
				t.Fatalf("StoreConflictBackoff(%d) = %s, want in [%s, %s)", attempt, d, x/2, x*3/2)
			}
		}
	}
}
