package ratelimit

import (
	"fmt"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestLimiterBurstThenRate(t *testing.T) {
	c := &clock{time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
	l := NewLimiter(2, 5, c.now)
	for i := 0; i < 5; i++ {
		if ok, _ := l.Allow("k"); !ok {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	ok, wait := l.Allow("k")
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("sixth request: ok=%v wait=%v, want refused for 500ms", ok, wait)
	}
	if ok, _ := l.Allow("other"); !ok {
		t.Fatal("another key shares the bucket")
	}
	c.t = c.t.Add(500 * time.Millisecond)
	if ok, _ := l.Allow("k"); !ok {
		t.Fatal("a token refilled after 1/rps is refused")
	}
	if ok, _ := l.Allow("k"); ok {
		t.Fatal("two requests on one refilled token")
	}
	// A long pause refills to the burst, not beyond.
	c.t = c.t.Add(time.Hour)
	n := 0
	for ok, _ := l.Allow("k"); ok; ok, _ = l.Allow("k") {
		n++
	}
	if n != 5 {
		t.Fatalf("after an hour %d requests pass, want the burst of 5", n)
	}
}

func TestLimiterOffAndSweep(t *testing.T) {
	var off *Limiter = NewLimiter(0, 10, nil)
	if ok, _ := off.Allow("k"); !ok || off != nil {
		t.Fatal("rps 0 must turn limiting off")
	}
	c := &clock{time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
	l := NewLimiter(10, 10, c.now)
	for i := 0; i < 1000; i++ {
		l.Allow(fmt.Sprint(i))
	}
	c.t = c.t.Add(2 * time.Minute)
	l.Allow("new")
	if len(l.buckets) != 1 {
		t.Fatalf("%d buckets kept after every key refilled, want 1", len(l.buckets))
	}
}

func TestAttemptsBlockForTheRestOfTheWindowOnly(t *testing.T) {
	c := &clock{time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
	a := NewAttempts(3, 15*time.Minute, c.now)
	start := c.t
	for i := 0; i < 3; i++ {
		if blocked, _ := a.Blocked("ann"); blocked {
			t.Fatalf("blocked after %d failures", i)
		}
		a.Fail("ann")
		c.t = c.t.Add(time.Minute)
	}
	blocked, wait := a.Blocked("ann")
	if !blocked || wait != start.Add(15*time.Minute).Sub(c.t) {
		t.Fatalf("after 3 failures: blocked=%v wait=%v", blocked, wait)
	}
	if blocked, _ := a.Blocked("bob"); blocked {
		t.Fatal("another key is blocked")
	}
	// The oldest failure leaves the window: one more attempt is allowed.
	c.t = start.Add(15 * time.Minute)
	if blocked, _ := a.Blocked("ann"); blocked {
		t.Fatal("still blocked when the first failure left the window")
	}
	a.Fail("ann")
	if blocked, _ := a.Blocked("ann"); !blocked {
		t.Fatal("a failure at the limit again must block")
	}
	a.Clear("ann")
	if blocked, _ := a.Blocked("ann"); blocked {
		t.Fatal("blocked after Clear")
	}
	// Memory: keys whose failures all left the window are dropped.
	for i := 0; i < 100; i++ {
		a.Fail(fmt.Sprint(i))
	}
	c.t = c.t.Add(time.Hour)
	a.Fail("late")
	if len(a.failures) != 1 {
		t.Fatalf("%d keys kept, want 1", len(a.failures))
	}
}
