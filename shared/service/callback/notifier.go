package callback

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// DefaultUserAgent identifies the service to callback receivers.
const DefaultUserAgent = "callscribe-callback/1.0"

// maxDrain bounds how much of a receiver's response body is read (and thrown
// away): enough to let the connection be reused after a typical "{}" or error
// page, never enough for a hostile receiver to stream into us.
const maxDrain = 64 << 10

var (
	// ErrAddressRefused is wrapped by Deliver's error when the address being
	// dialled is not public and not allowed by CALLBACK_ALLOW_HOSTS.
	ErrAddressRefused = errors.New("callback address refused")
	// ErrAttemptTimeout is wrapped by Deliver's error when the attempt ran out
	// of its per-attempt timeout (it also wraps context.DeadlineExceeded).
	ErrAttemptTimeout = errors.New("callback attempt timed out")
)

// StatusError is Deliver's error for a response that is not 2xx. A 3xx is
// one of these too: redirects are never followed, since following one would
// let a receiver point us at an address the URL checks never saw.
type StatusError struct {
	StatusCode int
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("callback receiver answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.StatusCode >= 300 && e.StatusCode < 400 {
		msg += " (redirects are not followed)"
	}
	return msg
}

// NotifierConfig configures NewNotifier. The zero value is usable.
type NotifierConfig struct {
	// AllowHosts is the CALLBACK_ALLOW_HOSTS list (see ParseAllowHosts).
	AllowHosts []string
	// Timeout bounds one attempt; zero means callscribe.CallbackAttemptTimeout. Tests shorten it.
	Timeout time.Duration
	// UserAgent is sent with every delivery; "" means DefaultUserAgent.
	UserAgent string
	// TLSConfig overrides TLS settings (nil: system roots). Tests use it to
	// trust an httptest TLS server.
	TLSConfig *tls.Config
	// Now is the clock of the webhook-timestamp header (nil: time.Now).
	Now func() time.Time
}

// Notifier delivers tagDelivered events over HTTP, one attempt per Deliver
// call, refusing to connect to non-public addresses unless allowed. It is safe
// for concurrent use and keeps connections alive between deliveries.
type Notifier struct {
	client    *http.Client
	allow     allowList
	timeout   time.Duration
	userAgent string
	now       func() time.Time
}

var _ callscribe.Notifier = (*Notifier)(nil)

// NewNotifier builds a Notifier. Its HTTP client ignores proxy environment
// variables (a proxy would do the dialling, out of reach of the address
// check), follows no redirects, and checks every address it dials.
func NewNotifier(cfg NotifierConfig) *Notifier {
	n := &Notifier{
		allow:     compileAllowList(cfg.AllowHosts),
		timeout:   cfg.Timeout,
		userAgent: cfg.UserAgent,
		now:       cfg.Now,
	}
	if n.now == nil {
		n.now = time.Now
	}
	if n.timeout <= 0 {
		n.timeout = callscribe.CallbackAttemptTimeout
	}
	if n.userAgent == "" {
		n.userAgent = DefaultUserAgent
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            n.dialContext,
		TLSClientConfig:        cfg.TLSConfig,
		ForceAttemptHTTP2:      true, // a custom dialer or TLS config would otherwise switch HTTP/2 off
		TLSHandshakeTimeout:    10 * time.Second,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	n.client = &http.Client{
		Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return n
}

// dialContext dials with an address check in net.Dialer.Control. Control runs
// after DNS resolution, on the very IP being connected to and before any packet
// is sent, so a name that resolves (or rebinds) to an internal address is
// caught no matter what it resolved to when the job was accepted.
func (n *Notifier) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	// A host the operator listed by name may resolve anywhere; otherwise each
	// dialled address must be public or inside a listed IP/CIDR.
	trusted := n.allow.allowsHost(host)
	d := &net.Dialer{
		Timeout:   n.timeout,
		KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			if trusted {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				// Fail closed: an address we cannot read is an address we cannot vouch for.
				return fmt.Errorf("%w: cannot parse dial address %q", ErrAddressRefused, address)
			}
			if n.allow.allowsIP(ap.Addr()) {
				return nil
			}
			if why := refusedReason(ap.Addr()); why != "" {
				return fmt.Errorf("%w: %s resolves to %s, a %s address", ErrAddressRefused, host, ap.Addr(), why)
			}
			return nil
		},
	}
	return d.DialContext(ctx, network, addr)
}

// Deliver makes one delivery attempt: it POSTs d.Payload as JSON to d.URL,
// with the apikey header when d.APIKey is set and the Standard Webhooks
// headers when d.SigningSecrets has any, and returns nil only for a 2xx
// answer. Errors say what went wrong (refused URL or address, timeout,
// transport failure, status code) without echoing the URL's path or query,
// which may carry the receiver's secrets into our logs.
func (n *Notifier) Deliver(ctx context.Context, d callscribe.CallbackDelivery) error {
	_, err := n.DeliverStatus(ctx, d)
	return err
}

// DeliverStatus is Deliver that also returns the receiver's HTTP status
// code, 0 when no response was received, for the record of the attempt.
func (n *Notifier) DeliverStatus(ctx context.Context, d callscribe.CallbackDelivery) (int, error) {
	// Re-check the URL: CALLBACK_ALLOW_HOSTS may have changed since the job was
	// accepted, and http must not outlive the permission for it.
	// Literal IPs are left to the dialer, the one place that judges addresses
	// at delivery time, so every address refusal carries ErrAddressRefused.
	u, err := checkURL(d.URL, n.allow, false)
	if err != nil {
		return 0, fmt.Errorf("callback URL refused: %w", err)
	}
	if err := checkAPIKey(d.APIKey); err != nil {
		return 0, fmt.Errorf("callback apikey refused: %w", err)
	}
	body, err := json.Marshal(normalizePayload(d.Payload))
	if err != nil {
		return 0, fmt.Errorf("callback: encode payload: %w", err)
	}

	// The caller may impose a shorter deadline of its own; report whichever
	// budget actually applied when the attempt times out.
	budget := n.timeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < budget {
		budget = time.Until(dl).Round(time.Millisecond)
	}
	attemptCtx, cancel := context.WithTimeout(ctx, n.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(attemptCtx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("callback: build request to %s: %w", u.Host, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", n.userAgent)
	if d.APIKey != "" {
		req.Header.Set("apikey", d.APIKey)
	}
	if len(d.SigningSecrets) > 0 {
		// The timestamp is the attempt's, so a receiver's replay window
		// measures this request, not the first attempt minutes earlier.
		ts := n.now().Unix()
		sig, err := Sign(d.SigningSecrets, d.WebhookID, ts, body)
		if err != nil {
			return 0, err
		}
		// Set directly: Header.Set would canonicalise the names, and the
		// standard spells them in lower case (HTTP/2 sends them so anyway).
		req.Header[HeaderWebhookID] = []string{d.WebhookID}
		req.Header[HeaderWebhookTimestamp] = []string{strconv.FormatInt(ts, 10)}
		req.Header[HeaderWebhookSignature] = []string{sig}
	}

	resp, err := n.client.Do(req)
	if err != nil {
		return 0, transportError(attemptCtx, u.Host, budget, err)
	}
	// Read a little of the body so the connection can be reused; the spec says
	// the receiver's body is ignored. A read error here does not change the
	// outcome: the status line already answered.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	_ = resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, &StatusError{StatusCode: resp.StatusCode}
	}
	return resp.StatusCode, nil
}

// transportError turns a client error into one that says what happened,
// keeping the sentinel errors reachable with errors.Is.
func transportError(attempt context.Context, host string, budget time.Duration, err error) error {
	// url.Error's text repeats the full URL; unwrap it and name the host only.
	inner := err
	if ue, ok := errors.AsType[*url.Error](err); ok {
		inner = ue.Err
	}
	switch {
	case errors.Is(err, ErrAddressRefused):
		return fmt.Errorf("POST to %s: %w", host, inner)
	case errors.Is(attempt.Err(), context.Canceled):
		// The caller gave up (shutdown); not the receiver's fault.
		return fmt.Errorf("POST to %s: %w", host, context.Canceled)
	case errors.Is(attempt.Err(), context.DeadlineExceeded):
		// Ours or the caller's deadline: either way the attempt ran out of time.
		return fmt.Errorf("POST to %s: %w after %s: %w", host, ErrAttemptTimeout, budget, context.DeadlineExceeded)
	default:
		return fmt.Errorf("POST to %s failed: %w", host, inner)
	}
}
