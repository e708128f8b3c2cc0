package jobs

import (
	"sync"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/ratelimit"
)

// Sign-in on the local identity resists password guessing without letting a
// guesser lock the real user out:
//
//   - per account: after MaxSignInFailures failed sign-ins in SignInWindow,
//     further attempts are refused (RATE_LIMITED, with the wait) until the
//     oldest failure leaves the window, except from an address this account
//     has signed in from successfully (kept for trustedAddressFor), so the
//     owner's usual place still gets through while a guesser elsewhere cannot;
//   - per address: after MaxSignInFailuresPerAddress failures in the window,
//     that address is refused whatever account it names (a guesser spreading
//     over many accounts; the bound is higher than the per-account one so an
//     office behind one NAT address is not shut out by a few typos).
//
// A refusal is decided before the password is checked, so a blocked guesser
// learns nothing more. Success clears the account's failures, never the
// address's: signing in to one's own account must not reset a guessing run.
// Cognito (AWS) applies its own lockout; this guard is the local identity's.
const (
	MaxSignInFailures           = 10
	MaxSignInFailuresPerAddress = 30
	SignInWindow                = 15 * time.Minute
	trustedAddressFor           = 30 * 24 * time.Hour
	maxTrustedAccounts          = 10000
)

type signInGuard struct {
	now       func() time.Time
	byAccount *ratelimit.Attempts
	byAddress *ratelimit.Attempts

	mu      sync.Mutex
	trusted map[string]map[string]time.Time // account email -> address -> last success
}

func newSignInGuard(now func() time.Time) *signInGuard {
	return &signInGuard{
		now:       now,
		byAccount: ratelimit.NewAttempts(MaxSignInFailures, SignInWindow, now),
		byAddress: ratelimit.NewAttempts(MaxSignInFailuresPerAddress, SignInWindow, now),
		trusted:   map[string]map[string]time.Time{},
	}
}

// check refuses an attempt that a block covers.
func (g *signInGuard) check(email, address string) error {
	if blocked, wait := g.byAddress.Blocked(address); blocked {
		return callscribe.RateLimited(wait, "Too many failed sign-ins from this address; try again later.")
	}
	if blocked, wait := g.byAccount.Blocked(email); blocked && !g.isTrusted(email, address) {
		return callscribe.RateLimited(wait, "Too many failed sign-ins for this account; try again later.")
	}
	return nil
}

func (g *signInGuard) failed(email, address string) {
	g.byAccount.Fail(email)
	g.byAddress.Fail(address)
}

func (g *signInGuard) succeeded(email, address string) {
	g.byAccount.Clear(email)
	if address == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.trusted) >= maxTrustedAccounts {
		clear(g.trusted)
	}
	if g.trusted[email] == nil {
		g.trusted[email] = map[string]time.Time{}
	}
	g.trusted[email][address] = g.now()
}

func (g *signInGuard) isTrusted(email, address string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	at, ok := g.trusted[email][address]
	return ok && g.now().Sub(at) < trustedAddressFor
}
