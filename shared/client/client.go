package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Version is the version of this client library, sent in the User-Agent.
const Version = "0.1.0"

// DefaultUserAgent is the User-Agent header sent unless WithUserAgent replaces it.
const DefaultUserAgent = "callscribe-go/" + Version

// The spec's polling guidance for the reference client library.
const (
	// DefaultPollInterval is the pause between two polls of a job.
	DefaultPollInterval = 2 * time.Second
	// DefaultPollMaxAttempts is how many times a job is polled before giving up.
	DefaultPollMaxAttempts = 60
	// DefaultRequestTimeout bounds each HTTP request (each attempt of it).
	DefaultRequestTimeout = 30 * time.Second
)

// Upload sizes.
const (
	// MaxFileBytes is the service's limit on one audio file (10 MiB), on either
	// upload path.
	MaxFileBytes int64 = 10 << 20
	// DefaultDirectUploadMaxBytes is the largest file sent in the create request
	// itself; larger files take the two-step upload. It is what one request can
	// carry through API Gateway and Lambda on the AWS deployment (4 MiB), so the
	// default works on both stacks.
	DefaultDirectUploadMaxBytes int64 = 4 << 20
)

// RetryPolicy says how idempotent requests (GET, DELETE) are retried after a
// transport error or a 5xx response. MaxAttempts counts the first attempt too;
// 1 (or less) means no retries. Delays grow exponentially from BaseDelay and
// are capped at MaxDelay, with full jitter (a uniformly random delay between 0
// and the capped exponential value). A Retry-After header on the response is
// used instead of the computed delay when it is not longer than MaxDelay; a
// longer one ends the retries and the error carries it in Error.RetryAfter.
type RetryPolicy struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
}

// DefaultRetryPolicy is used unless WithRetryPolicy replaces it: 3 attempts,
// 500 ms base delay, 10 s cap, full jitter.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 3, BaseDelay: 500 * time.Millisecond, MaxDelay: 10 * time.Second}

// NoRetries makes every request a single attempt.
var NoRetries = RetryPolicy{MaxAttempts: 1}

// delay is the full-jitter backoff before retry number n (1 for the first retry).
func (p RetryPolicy) delay(n int) time.Duration {
	ceiling := p.MaxDelay
	if p.BaseDelay > 0 && n < 31 {
		if d := p.BaseDelay << (n - 1); d > 0 && (ceiling <= 0 || d < ceiling) {
			ceiling = d
		}
	}
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

// Client calls the callscribe HTTP API. It is safe for concurrent use. A
// Client is never changed after New: With returns a modified copy, so one
// process can hold an API-key client and a session client side by side.
type Client struct {
	baseURL         *url.URL
	apiKey          string
	sessionToken    string
	gatewayKey      string
	httpClient      *http.Client
	userAgent       string
	retry           RetryPolicy
	directUploadMax int64
	requestTimeout  time.Duration
}

// Option configures a Client (New, With).
type Option func(*Client)

// WithAPIKey sets the static API key sent as `Authorization: Bearer` on the
// API-key routes (/v1/...).
func WithAPIKey(key string) Option { return func(c *Client) { c.apiKey = key } }

// WithSessionToken sets the dashboard session token (from Login) sent as
// `Authorization: Bearer` on the session routes: Usage and the API-key
// management methods.
func WithSessionToken(token string) Option { return func(c *Client) { c.sessionToken = token } }

// WithGatewayKey sets the API gateway key, sent as the `apikey` header on every
// request to the service.
func WithGatewayKey(key string) Option { return func(c *Client) { c.gatewayKey = key } }

// WithHTTPClient sets the http.Client that sends the requests (default: a
// client of its own over http.DefaultTransport). Its Timeout, if any, applies
// on top of the request timeout.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.httpClient = hc
		}
	}
}

// WithUserAgent replaces DefaultUserAgent.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithRetryPolicy replaces DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// WithDirectUploadMaxBytes sets the largest file sent in the create request
// itself (default DefaultDirectUploadMaxBytes); larger files go through the
// two-step upload (POST /v1/transcriptions/uploads) automatically. A value of
// 0 or less restores the default.
func WithDirectUploadMaxBytes(n int64) Option {
	return func(c *Client) {
		if n <= 0 {
			n = DefaultDirectUploadMaxBytes
		}
		c.directUploadMax = n
	}
}

// WithRequestTimeout bounds each HTTP request attempt, reading the response
// included (default DefaultRequestTimeout). 0 or less means no timeout of the
// client's own (the context still applies).
func WithRequestTimeout(d time.Duration) Option { return func(c *Client) { c.requestTimeout = d } }

// New returns a client of the service at baseURL, such as
// "http://127.0.0.1:8080" or an API Gateway stage URL (a path prefix is kept).
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return nil, fmt.Errorf("callscribe: base URL %q: %w", baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("callscribe: base URL %q must be an absolute http or https URL", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("callscribe: base URL %q must not have a query or fragment", baseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	c := &Client{
		baseURL:         u,
		httpClient:      &http.Client{},
		userAgent:       DefaultUserAgent,
		retry:           DefaultRetryPolicy,
		directUploadMax: DefaultDirectUploadMaxBytes,
		requestTimeout:  DefaultRequestTimeout,
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// With returns a copy of c with opts applied; c is unchanged.
func (c *Client) With(opts ...Option) *Client {
	cp := *c
	u := *c.baseURL
	cp.baseURL = &u
	for _, o := range opts {
		o(&cp)
	}
	return &cp
}

// BaseURL returns the base URL the client calls, without a trailing slash.
func (c *Client) BaseURL() string { return c.baseURL.String() }

// auth says which credential a route takes.
type auth int

const (
	authNone auth = iota
	authAPIKey
	authSession
)

// request is one call to the service.
type request struct {
	method string
	path   string // escaped, relative to the base URL
	// rawURL, when set, is an absolute URL outside the service (a two-step
	// upload's storage): path is ignored and no gateway key is sent.
	rawURL string
	query  url.Values
	auth   auth
	// body returns a fresh body for each attempt (nil: no body).
	body          func() (io.ReadCloser, error)
	contentLength int64 // -1 when unknown
	contentType   string
	header        http.Header // extra headers
	// idempotent requests are retried after transport errors and 5xx.
	idempotent bool
	// idempotencyKey, on a create, is sent as the Idempotency-Key header and
	// makes the request retryable like an idempotent one (idempotency.go).
	idempotencyKey string
	// timeout overrides the client's request timeout when > 0.
	timeout time.Duration
}

// where names the request in transport errors.
func (r *request) where() string {
	if r.rawURL != "" {
		if u, err := url.Parse(r.rawURL); err == nil {
			return u.Scheme + "://" + u.Host + u.Path
		}
	}
	return r.path
}

// jsonRequest builds a POST with a JSON body.
func jsonRequest(path string, a auth, v any) (*request, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &request{
		method: http.MethodPost, path: path, auth: a, contentType: "application/json",
		body:          func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		contentLength: int64(len(b)),
	}, nil
}

// response is a successful (2xx) response, read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

// maxResponseBytes bounds what is read of any response (exports are the largest).
const maxResponseBytes = 64 << 20

// do sends req, retrying as the policy and the method allow, and returns the
// 2xx response or an error: an *Error for any non-2xx response, the context's
// error when it ended, or a transport error.
func (c *Client) do(ctx context.Context, req *request) (*response, error) {
	attempts := max(c.retry.MaxAttempts, 1)
	for n := 1; ; n++ {
		resp, err := c.attempt(ctx, req)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if n >= attempts || !c.retryable(req, err) {
			return nil, err
		}
		wait := c.retry.delay(n)
		var apiErr *Error
		if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
			if c.retry.MaxDelay > 0 && apiErr.RetryAfter > c.retry.MaxDelay {
				return nil, err // the server asks for a longer pause than the policy allows
			}
			wait = apiErr.RetryAfter
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// retryable: idempotent requests after transport errors and 5xx; any request
// whose connection could not even be made (nothing was sent), and any request
// refused with 429 RATE_LIMITED (the service did nothing with it: the budget
// check comes first), if its body can be sent again. Other 4xx never, but for
// a create with an Idempotency-Key, IDEMPOTENCY_KEY_IN_USE: its first attempt
// is still running, and the retry will get that attempt's answer.
func (c *Client) retryable(req *request, err error) bool {
	idempotent := req.idempotent || req.idempotencyKey != ""
	var apiErr *Error
	if errors.As(err, &apiErr) {
		if apiErr.Status == http.StatusTooManyRequests && apiErr.Code == CodeRateLimited {
			return true
		}
		if apiErr.Code == CodeIdempotencyKeyInUse {
			return req.idempotencyKey != ""
		}
		return idempotent && apiErr.Status >= 500
	}
	if idempotent {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// attempt sends req once.
func (c *Client) attempt(ctx context.Context, req *request) (*response, error) {
	timeout := c.requestTimeout
	if req.timeout > 0 {
		timeout = req.timeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	target := c.baseURL.String() + req.path
	if req.rawURL != "" {
		target = req.rawURL
	}
	if len(req.query) > 0 {
		target += "?" + req.query.Encode()
	}
	var body io.ReadCloser
	if req.body != nil {
		b, err := req.body()
		if err != nil {
			return nil, err
		}
		body = b
	}
	hreq, err := http.NewRequestWithContext(ctx, req.method, target, body)
	if err != nil {
		if body != nil {
			body.Close()
		}
		return nil, err
	}
	if body != nil && req.contentLength >= 0 {
		hreq.ContentLength = req.contentLength
	}
	if req.contentType != "" {
		hreq.Header.Set("Content-Type", req.contentType)
	}
	hreq.Header.Set("Accept", "application/json")
	for k, vs := range req.header {
		hreq.Header[k] = vs
	}
	if req.idempotencyKey != "" {
		hreq.Header.Set("Idempotency-Key", req.idempotencyKey)
	}
	if c.userAgent != "" {
		hreq.Header.Set("User-Agent", c.userAgent)
	}
	if c.gatewayKey != "" && req.rawURL == "" {
		hreq.Header.Set("apikey", c.gatewayKey)
	}
	switch req.auth {
	case authAPIKey:
		if c.apiKey != "" {
			hreq.Header.Set("Authorization", "Bearer "+c.apiKey)
		}
	case authSession:
		if c.sessionToken != "" {
			hreq.Header.Set("Authorization", "Bearer "+c.sessionToken)
		}
	}
	hresp, err := c.httpClient.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("callscribe: %s %s: %w", req.method, req.where(), err)
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, maxResponseBytes))
	if err != nil {
		return nil, fmt.Errorf("callscribe: %s %s: reading the response: %w", req.method, req.where(), err)
	}
	if hresp.StatusCode/100 != 2 {
		return nil, parseError(hresp.StatusCode, hresp.Header, data)
	}
	return &response{status: hresp.StatusCode, header: hresp.Header, body: data}, nil
}

// call sends req and decodes its JSON response into out (when not nil).
func (c *Client) call(ctx context.Context, req *request, out any) error {
	resp, err := c.do(ctx, req)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.body, out); err != nil {
		return fmt.Errorf("callscribe: %s %s: decoding the %d response: %w", req.method, req.path, resp.status, err)
	}
	return nil
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// escape escapes one path segment.
func escape(s string) string { return url.PathEscape(s) }
