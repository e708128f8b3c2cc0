package jobs_test

import (
	"context"
	"errors"
	"fmt"
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
