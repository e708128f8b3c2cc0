package httpapi

import (
	"fmt"
	"net"
	"net/http"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/ratelimit"
)

// RateLimit is a token bucket: Burst requests at once, RPS per second after.
// The spec leaves request rates open; we limit each API key (after it is
// authenticated, so one client cannot spend another's budget) and, on the
// dashboard's session and sign-in routes, each client address. Over the
// budget: 429 RATE_LIMITED with Retry-After. Per process: see package
// ratelimit for what that means on AWS.
type RateLimit struct {
	RPS   float64
	Burst int
}

func (s *Server) initRateLimits() {
	s.perKey = ratelimit.NewLimiter(s.cfg.RateLimit.RPS, s.cfg.RateLimit.Burst, nil)
	s.perAddress = ratelimit.NewLimiter(s.cfg.RateLimit.RPS, s.cfg.RateLimit.Burst, nil)
}

// allowKey spends one request of an API key's budget, answering 429 when
// there is none.
func (s *Server) allowKey(w http.ResponseWriter, r *http.Request, keyID string) bool {
	ok, wait := s.perKey.Allow(keyID)
	if !ok {
		writeError(w, r, callscribe.RateLimited(wait, fmt.Sprintf("Too many requests for this API key (limit %g per second).", s.cfg.RateLimit.RPS)))
	}
	return ok
}

// allowAddress does the same for the client's address.
func (s *Server) allowAddress(w http.ResponseWriter, r *http.Request) bool {
	ok, wait := s.perAddress.Allow(clientAddress(r))
	if !ok {
		writeError(w, r, callscribe.RateLimited(wait, fmt.Sprintf("Too many requests from this address (limit %g per second).", s.cfg.RateLimit.RPS)))
	}
	return ok
}

// clientAddress is the caller's IP: the connection's peer locally; on AWS the
// Lambda adapter sets RemoteAddr from API Gateway's sourceIp.
func clientAddress(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
