package apitest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/transport/openapi/openapivalidate"
)

// Response is one HTTP exchange's outcome. Body is the decoded JSON object
// (numbers as json.Number), nil when the body was not a JSON object.
type Response struct {
	Method, Path string
	Status       int
	Header       http.Header
	Raw          []byte
	Body         map[string]any
}

func (r *Response) String() string {
	raw := string(r.Raw)
	if len(raw) > 600 {
		raw = raw[:600] + "…"
	}
	return fmt.Sprintf("%s %s -> %d %s", r.Method, r.Path, r.Status, raw)
}

// ErrCode is error.code of an error body ("" when absent).
func (r *Response) ErrCode() string {
	e, _ := r.Body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// Str returns a top-level string field ("" when absent or not a string).
func (r *Response) Str(key string) string {
	s, _ := r.Body[key].(string)
	return s
}

// client speaks HTTP to the target. Every response it receives is checked for
// the spec's requestId rule: a JSON object body whose requestId equals the
// X-Request-Id header.
type client struct {
	base    string
	hc      *http.Client
	gateway string // sent as the `apikey` header when set
}

// reportTo is a context whose requests report OpenAPI validation problems
// (openapivalidate.Transport) to t.
func reportTo(t testing.TB) context.Context {
	return openapivalidate.WithReporter(context.Background(), func(msg string) {
		t.Helper()
		t.Errorf("%s", msg)
	})
}

type reqOpt func(*http.Request)

func withBearer(token string) reqOpt {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
}

func withHeader(k, v string) reqOpt { return func(r *http.Request) { r.Header.Set(k, v) } }

func withContentType(ct string) reqOpt { return withHeader("Content-Type", ct) }

// noGateway drops the gateway header for one request.
func noGateway() reqOpt { return func(r *http.Request) { r.Header.Del("apikey") } }

// newRequest builds a request to the service with the gateway key (when the
// suite has one) and the options applied.
func (c *client) newRequest(ctx context.Context, method, path string, body []byte, opts ...reqOpt) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if c.gateway != "" {
		req.Header.Set("apikey", c.gateway)
	}
	for _, o := range opts {
		o(req)
	}
	return req, nil
}

// do sends one request. It never calls t.Fatal, so it is safe from goroutines;
// a transport error is reported with t.Errorf and gives Status 0.
func (c *client) do(t testing.TB, method, path string, body []byte, opts ...reqOpt) *Response {
	t.Helper()
	out := &Response{Method: method, Path: path}
	ctx, cancel := context.WithTimeout(reportTo(t), 60*time.Second)
	defer cancel()
	req, err := c.newRequest(ctx, method, path, body, opts...)
	if err != nil {
		t.Errorf("building %s %s: %v", method, path, err)
		return out
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
		return out
	}
	defer resp.Body.Close()
	out.Status, out.Header = resp.StatusCode, resp.Header
	out.Raw, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("%s %s: reading body: %v", method, path, err)
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(out.Raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		t.Errorf("%s: body is not a JSON object", out)
		return out
	}
	out.Body = obj
	rid, _ := obj["requestId"].(string)
	if rid == "" {
		t.Errorf("%s: body has no requestId string", out)
	} else if h := resp.Header.Get("X-Request-Id"); h != rid {
		t.Errorf("%s: X-Request-Id header %q != body requestId %q", out, h, rid)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q, want application/json", out, ct)
	}
	if out.Status >= 400 {
		e, ok := obj["error"].(map[string]any)
		if !ok {
			t.Errorf("%s: error status without an error object", out)
		} else {
			if code, _ := e["code"].(string); code == "" {
				t.Errorf("%s: error.code missing", out)
			}
			if msg, _ := e["message"].(string); msg == "" {
				t.Errorf("%s: error.message missing", out)
			}
		}
	}
	return out
}

func (c *client) postJSON(t testing.TB, path string, v any, opts ...reqOpt) *Response {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Errorf("marshal: %v", err)
	}
	return c.do(t, http.MethodPost, path, b, append([]reqOpt{withContentType("application/json")}, opts...)...)
}

// expectStatus reports (t.Errorf) a status mismatch and returns whether it matched.
func expectStatus(t testing.TB, r *Response, status int) bool {
	t.Helper()
	if r.Status != status {
		t.Errorf("%s: want status %d", r, status)
		return false
	}
	return true
}

// expectError checks status and error.code.
func expectError(t testing.TB, r *Response, status int, code string) {
	t.Helper()
	if r.Status != status || r.ErrCode() != code {
		t.Errorf("%s: want %d %s", r, status, code)
	}
}

// Account is a signed-up account with a dashboard session and one API key.
type Account struct {
	c        *client
	Email    string
	Password string
	ID       string
	Token    string // dashboard session
	APIKey   string
	KeyID    string
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func newEmail() string { return "apitest-" + randHex(6) + "@example.com" }

const testPassword = "correct-horse-battery"

// newAccount signs up, logs in and creates an API key. It must be called from
// the test's own goroutine (it may t.Fatal).
func (s *suite) newAccount(t testing.TB) *Account {
	t.Helper()
	a := &Account{c: s.c, Email: newEmail(), Password: testPassword}
	r := s.c.postJSON(t, "/dashboard/signup", map[string]string{"email": a.Email, "password": a.Password})
	if r.Status != http.StatusCreated || r.Str("account_id") == "" {
		t.Fatalf("signup: %s", r)
	}
	a.ID = r.Str("account_id")
	a.Token = s.login(t, a.Email, a.Password)
	a.APIKey, a.KeyID = a.createKey(t)
	return a
}

func (s *suite) login(t testing.TB, email, password string) string {
	t.Helper()
	r := s.c.postJSON(t, "/dashboard/login", map[string]string{"email": email, "password": password})
	if r.Status != http.StatusOK || r.Str("token") == "" {
		t.Fatalf("login: %s", r)
	}
	return r.Str("token")
}

func (a *Account) createKey(t testing.TB) (key, id string) {
	t.Helper()
	r := a.c.do(t, http.MethodPost, "/dashboard/api-keys", nil, withBearer(a.Token))
	if r.Status != http.StatusCreated || r.Str("api_key") == "" || r.Str("key_id") == "" {
		t.Fatalf("create api key: %s", r)
	}
	checkTime(t, r, "created_at", r.Body["created_at"])
	return r.Str("api_key"), r.Str("key_id")
}

// Upload is one POST /v1/transcriptions form.
type Upload struct {
	Filename    string
	ContentType string // of the file part; default application/octet-stream
	Data        []byte
	NoFile      bool    // omit the file part entirely
	Language    string  // omitted when empty
	Metadata    *string // omitted when nil
	Keyterms    *string // omitted when nil
	RedactPII   *string // omitted when nil
}

func multipartBody(u Upload) ([]byte, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if u.Language != "" {
		_ = mw.WriteField("language", u.Language)
	}
	if u.Metadata != nil {
		_ = mw.WriteField("metadata", *u.Metadata)
	}
	if u.Keyterms != nil {
		_ = mw.WriteField("keyterms", *u.Keyterms)
	}
	if u.RedactPII != nil {
		_ = mw.WriteField("redact_pii", *u.RedactPII)
	}
	if !u.NoFile {
		h := make(textproto.MIMEHeader)
		name := u.Filename
		if name == "" {
			name = "call.wav"
		}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, name))
		ct := u.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h.Set("Content-Type", ct)
		pw, _ := mw.CreatePart(h)
		_, _ = pw.Write(u.Data)
	}
	_ = mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

func (a *Account) Upload(t testing.TB, u Upload) *Response {
	t.Helper()
	body, ct := multipartBody(u)
	return a.c.do(t, http.MethodPost, "/v1/transcriptions", body, withBearer(a.APIKey), withContentType(ct))
}

// MustUpload uploads and requires 202; returns the job id. Goroutine-safe: on
// failure it reports and returns "".
func (a *Account) MustUpload(t testing.TB, u Upload) string {
	t.Helper()
	r := a.Upload(t, u)
	if r.Status != http.StatusAccepted || r.Str("job_id") == "" {
		t.Errorf("upload %q: %s", u.Filename, r)
		return ""
	}
	return r.Str("job_id")
}

func (a *Account) Get(t testing.TB, id string) *Response {
	t.Helper()
	return a.c.do(t, http.MethodGet, "/v1/transcriptions/"+id, nil, withBearer(a.APIKey))
}

func (a *Account) Delete(t testing.TB, id string) *Response {
	t.Helper()
	return a.c.do(t, http.MethodDelete, "/v1/transcriptions/"+id, nil, withBearer(a.APIKey))
}

func (a *Account) List(t testing.TB, q url.Values) *Response {
	t.Helper()
	path := "/v1/transcriptions"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return a.c.do(t, http.MethodGet, path, nil, withBearer(a.APIKey))
}

func (a *Account) Derive(t testing.TB, kind string, body any) *Response {
	t.Helper()
	path := "/v1/summarize"
	if kind == "tags" {
		path = "/v1/tag"
	}
	return a.c.postJSON(t, path, body, withBearer(a.APIKey))
}

// MustDerive creates a summary ("summary") or tags ("tags") job and requires 202.
func (a *Account) MustDerive(t testing.TB, kind string, body any) string {
	t.Helper()
	r := a.Derive(t, kind, body)
	if r.Status != http.StatusAccepted || r.Str("job_id") == "" {
		t.Errorf("%s %v: %s", kind, body, r)
		return ""
	}
	if r.Str("type") != kind {
		t.Errorf("%s: type %q, want %q", r, r.Str("type"), kind)
	}
	return r.Str("job_id")
}

// Usage reads the quota state with the dashboard session.
type Usage struct{ Limit, Used, Remaining float64 }

func (a *Account) Usage(t testing.TB) Usage {
	t.Helper()
	r := a.c.do(t, http.MethodGet, "/v1/transcriptions/usage", nil, withBearer(a.Token))
	if r.Status != http.StatusOK {
		t.Errorf("usage: %s", r)
		return Usage{-1, -1, -1}
	}
	return Usage{
		Limit:     minutesField(t, r, r.Body, "limit_minutes"),
		Used:      minutesField(t, r, r.Body, "used_minutes"),
		Remaining: minutesField(t, r, r.Body, "remaining_minutes"),
	}
}

// minutesField reads a number that must carry at most 2 decimals.
func minutesField(t testing.TB, r *Response, obj map[string]any, key string) float64 {
	t.Helper()
	n, ok := obj[key].(json.Number)
	if !ok {
		t.Errorf("%s: %s is not a number", r, key)
		return math.NaN()
	}
	s := n.String()
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 > 2 {
		t.Errorf("%s: %s = %s has more than 2 decimals", r, key, s)
	}
	if strings.ContainsAny(s, "eE") {
		t.Errorf("%s: %s = %s is in exponent form", r, key, s)
	}
	f, _ := n.Float64()
	return f
}

// round2 is seconds -> minutes with 2 decimals, as the service reports them.
func round2(seconds float64) float64 { return math.Round(seconds/60*100) / 100 }

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func num(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func checkUUID(t testing.TB, r *Response, field string, v any) {
	t.Helper()
	s, _ := v.(string)
	if !uuidRE.MatchString(strings.ToLower(s)) {
		t.Errorf("%s: %s = %v is not a UUID", r, field, v)
	}
}

// checkTime requires an ISO 8601 (RFC 3339) timestamp and returns it.
func checkTime(t testing.TB, r *Response, field string, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Errorf("%s: %s = %v is not an ISO 8601 timestamp", r, field, v)
	}
	return ts
}

func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func itoa(i int) string { return strconv.Itoa(i) }

func strp(s string) *string { return &s }

// tryUpload uploads without reporting transport errors (for requests a kill may
// cut off). A response other than 202 is an error too.
func (c *client) tryUpload(a *Account, u Upload) (string, error) {
	body, ct := multipartBody(u)
	req, err := http.NewRequest(http.MethodPost, c.base+"/v1/transcriptions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+a.APIKey)
	req.Header.Set("Content-Type", ct)
	if c.gateway != "" {
		req.Header.Set("apikey", c.gateway)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		JobID string `json:"job_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusAccepted || out.JobID == "" {
		return "", fmt.Errorf("upload: status %d", resp.StatusCode)
	}
	return out.JobID, nil
}
