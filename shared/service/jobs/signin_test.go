package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

func rateLimitWait(t *testing.T, err error) time.Duration {
	t.Helper()
	var ce *callscribe.Error
	if !callscribe.IsCode(err, callscribe.CodeRateLimited) || !errors.As(err, &ce) || ce.RetryAfter <= 0 {
		t.Fatalf("error %v, want RATE_LIMITED with a wait", err)
	}
	return ce.RetryAfter
}

func TestGuessingLocksTheAccountButNotItsOwnersAddress(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const password = "long-enough-password"
	const home, attacker, travel = "192.0.2.10", "198.51.100.7", "203.0.113.5"
	if _, err := e.svc.Signup(ctx, "ann@example.com", password); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Login(ctx, "ann@example.com", password, home); err != nil {
		t.Fatal(err)
	}
	start := e.now
	for i := 0; i < jobs.MaxSignInFailures; i++ {
		_, err := e.svc.Login(ctx, "ANN@example.com", fmt.Sprint("guess-", i, "-xxxxxx"), attacker)
		requireCode(t, err, callscribe.CodeUnauthorized)
		e.now = e.now.Add(time.Second)
	}
	// The guesser is refused before the password is checked, even the right one.
	_, err := e.svc.Login(ctx, "ann@example.com", password, attacker)
	if wait := rateLimitWait(t, err); wait != start.Add(jobs.SignInWindow).Sub(e.now) {
		t.Fatalf("wait %v, want until the first failure leaves the window", wait)
	}
	// A new address is refused too; the owner's usual one is not.
	_, err = e.svc.Login(ctx, "ann@example.com", password, travel)
	rateLimitWait(t, err)
	if _, err := e.svc.Login(ctx, "ann@example.com", password, home); err != nil {
		t.Fatalf("owner's address during the lock: %v", err)
	}
	// The owner's success cleared the account's failures: elsewhere works again.
	if _, err := e.svc.Login(ctx, "ann@example.com", password, travel); err != nil {
		t.Fatalf("after the owner's sign-in: %v", err)
	}
	// Another lock ends on its own when the window has passed.
	for i := 0; i < jobs.MaxSignInFailures; i++ {
		e.svc.Login(ctx, "ann@example.com", "wrong-password-x", attacker)
	}
	_, err = e.svc.Login(ctx, "ann@example.com", password, "203.0.113.99")
	rateLimitWait(t, err)
	e.now = e.now.Add(jobs.SignInWindow)
	if _, err := e.svc.Login(ctx, "ann@example.com", password, "203.0.113.99"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestGuessingAcrossAccountsBlocksTheAddress(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.svc.Signup(ctx, "bob@example.com", "long-enough-password"); err != nil {
		t.Fatal(err)
	}
	const attacker = "198.51.100.7"
	for i := 0; i < jobs.MaxSignInFailuresPerAddress; i++ {
		_, err := e.svc.Login(ctx, fmt.Sprintf("user%d@example.com", i), "long-enough-password", attacker)
		requireCode(t, err, callscribe.CodeUnauthorized)
	}
	_, err := e.svc.Login(ctx, "bob@example.com", "long-enough-password", attacker)
	rateLimitWait(t, err)
	if _, err := e.svc.Login(ctx, "bob@example.com", "long-enough-password", "192.0.2.10"); err != nil {
		t.Fatalf("another address: %v", err)
	}
}

// An unknown email must cost the same password-hash work as a wrong
// password: otherwise the time of a 401 tells which emails have accounts.
// The check counter is the exact assertion; the timing comparison of medians
// is a generous band, so a loaded machine does not make it flaky.
func TestSignInTimingDoesNotRevealAccounts(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.svc.Signup(ctx, "cat@example.com", "long-enough-password"); err != nil {
		t.Fatal(err)
	}
	const n = 15
	attempt := func(i int, email string) time.Duration {
		// A new address and a clock past the guard's window each time, so
		// the failed-attempt guard never refuses before the password check.
		e.now = e.now.Add(jobs.SignInWindow)
		before := jobs.PasswordChecks(e.svc)
		start := time.Now()
		_, err := e.svc.Login(ctx, email, "wrong-password-guess", fmt.Sprintf("198.51.100.%d", i))
		took := time.Since(start)
		requireCode(t, err, callscribe.CodeUnauthorized)
		if got := jobs.PasswordChecks(e.svc) - before; got != 1 {
			t.Fatalf("sign-in as %s made %d password checks, want 1", email, got)
		}
		return took
	}
	attempt(0, "warm-up@example.com") // the dummy hash is made on first use
	var unknown, known []time.Duration
	for i := 1; i <= n; i++ {
		unknown = append(unknown, attempt(i, fmt.Sprintf("nobody%d@example.com", i)))
		known = append(known, attempt(100+i, "cat@example.com"))
	}
	ratio := float64(median(unknown)) / float64(median(known))
	t.Logf("median unknown email %v, known email wrong password %v, ratio %.2f", median(unknown), median(known), ratio)
	if ratio < 0.5 || ratio > 2 {
		t.Fatalf("unknown-email sign-in takes %.2f times as long as a wrong password, want 0.5 to 2", ratio)
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
