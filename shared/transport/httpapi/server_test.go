package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/adapters/diskaudio"
	"github.com/callscribe/callscribe/shared/adapters/sqlite"
	"github.com/callscribe/callscribe/shared/audio/decode"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/identity"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

// failingQueue refuses every message, as a broken pipeline would.
type failingQueue struct{ calls int }

func (q *failingQueue) Enqueue(context.Context, callscribe.Message) error {
	q.calls++
	return errors.New("queue unavailable")
}

type recordingQueue struct{ msgs []callscribe.Message }

func (q *recordingQueue) Enqueue(_ context.Context, m callscribe.Message) error {
	q.msgs = append(q.msgs, m)
	return nil
}

type fixture struct {
	server   *Server
	jobs     callscribe.JobStore
	apiKey   string
	account  string
	sessions BearerSessions
	links    *diskaudio.Links
}

func newFixture(t testing.TB, queue callscribe.Queue, wrap func(callscribe.JobStore) callscribe.JobStore) *fixture {
	t.Helper()
	dir := t.TempDir()
	db, err := sqlite.Open(filepath.Join(dir, "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	audio, err := diskaudio.New(filepath.Join(dir, "audio"))
	if err != nil {
		t.Fatal(err)
	}
	var store callscribe.JobStore = db.Jobs()
	if wrap != nil {
		store = wrap(store)
	}
	ctx := context.Background()
	acct := &callscribe.Account{ID: "acct-1", Email: "a@example.com", PasswordHash: "x", CreatedAt: time.Now()}
	if err := db.Accounts().CreateAccount(ctx, acct); err != nil {
		t.Fatal(err)
	}
	secret, prefix, hash, _ := identity.NewAPIKey()
	if err := db.Accounts().CreateAPIKey(ctx, &callscribe.APIKey{ID: "key-1", AccountID: acct.ID, Prefix: prefix, Hash: hash, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	sessions := BearerSessions{Sessions: identity.NewSessions([]byte("s"), time.Hour, time.Now)}
	links := diskaudio.NewLinks(audio, []byte("links"), time.Now)
	service := jobs.New(jobs.Deps{Jobs: store, Accounts: db.Accounts(), Audio: audio, Queue: queue, AudioLinks: links}, jobs.Config{QuotaMinutes: 10})
	srv := New(Deps{Service: service, Sessions: sessions, Issuer: sessions}, Config{CursorKey: []byte("cursor-key"), DirectUploadMaxBytes: 4 << 20})
	return &fixture{server: srv, jobs: db.Jobs(), apiKey: secret, account: acct.ID, sessions: sessions, links: links}
}

// wav returns a canonical 16-bit PCM mono WAV of the given length with a tone.
func wav(seconds float64, rate int) []byte {
	samples := make([]int16, int(seconds*float64(rate)))
	for i := range samples {
		samples[i] = int16((i%40)*500 - 10000)
	}
	return decode.EncodeWAV(rate, samples)
}

func (f *fixture) upload(t testing.TB, audio []byte) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "call.wav")
	fw.Write(audio)
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, "/v1/transcriptions", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+f.apiKey)
	rec := httptest.NewRecorder()
	f.server.ServeHTTP(rec, req)
	return rec
}

func (f *fixture) do(t *testing.T, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.apiKey)
	rec := httptest.NewRecorder()
	f.server.ServeHTTP(rec, req)
	return rec
}

type errorBody struct {
	Error struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
	RequestID string `json:"requestId"`
}

func decodeError(t *testing.T, rec *httptest.ResponseRecorder) errorBody {
	t.Helper()
	var e errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("body %q is not JSON: %v", rec.Body.String(), err)
	}
	if e.RequestID == "" || e.RequestID != rec.Header().Get("X-Request-Id") {
		t.Fatalf("requestId %q does not match X-Request-Id %q", e.RequestID, rec.Header().Get("X-Request-Id"))
	}
	return e
}

func TestUploadWithFailingQueueFailsJobAndReleasesMinutes(t *testing.T) {
	q := &failingQueue{}
	f := newFixture(t, q, nil)
	rec := f.upload(t, wav(30, 8000))
	if rec.Code != http.StatusBadGateway {
		t.Fatalf("status %d, want 502; body %s", rec.Code, rec.Body)
	}
	e := decodeError(t, rec)
	if e.Error.Code != callscribe.CodeProviderSubmitFailed {
		t.Fatalf("code %q", e.Error.Code)
	}
	jobID, _ := e.Error.Details["job_id"].(string)
	job, err := f.jobs.GetJob(context.Background(), jobID)
	if err != nil {
		t.Fatalf("the stored job is gone: %v", err)
	}
	if job.Status != callscribe.StatusFailed || job.Error == nil || job.Error.Code != callscribe.JobErrSubmitFailed {
		t.Fatalf("job status %s error %+v, want failed/submit_failed", job.Status, job.Error)
	}
	used, _ := f.jobs.UsedSeconds(context.Background(), f.account, callscribe.QuotaMonth(time.Now()))
	if used != 0 {
		t.Fatalf("used %v seconds after a failed submission, want 0", used)
	}
	if q.calls != 1 {
		t.Fatalf("queue called %d times", q.calls)
	}
}

func TestSummarizeWithFailingQueueIs502(t *testing.T) {
	f := newFixture(t, &failingQueue{}, nil)
	rec := f.do(t, http.MethodPost, "/v1/summarize", `{"transcript_text":"Agent: hello\nUser: my bill is wrong"}`)
	if rec.Code != http.StatusBadGateway || decodeError(t, rec).Error.Code != callscribe.CodeProviderSubmitFailed {
		t.Fatalf("status %d body %s", rec.Code, rec.Body)
	}
}

func TestAcceptedUploadQueuesOneMessageWithRequestID(t *testing.T) {
	q := &recordingQueue{}
	f := newFixture(t, q, nil)
	rec := f.upload(t, wav(2, 8000))
	if rec.Code != http.StatusAccepted {
		t.Fatalf("status %d body %s", rec.Code, rec.Body)
	}
	var body map[string]any
	json.Unmarshal(rec.Body.Bytes(), &body)
	if len(q.msgs) != 1 || q.msgs[0].JobID != body["job_id"] || q.msgs[0].Kind != callscribe.KindTranscribe {
		t.Fatalf("messages %+v for body %v", q.msgs, body)
	}
	if q.msgs[0].RequestID != body["requestId"] {
		t.Fatalf("message requestId %q, body %v", q.msgs[0].RequestID, body["requestId"])
	}
}

// brokenStore fails or panics on reads, to check what a 500 reveals.
type brokenStore struct {
	callscribe.JobStore
	panics bool
}

func (b brokenStore) GetJob(context.Context, string) (*callscribe.Job, error) {
	if b.panics {
		panic("boom")
	}
	return nil, errors.New("disk I/O error at /var/secret/path.db")
}

func TestInternalErrorsHideTheirCause(t *testing.T) {
	for _, panics := range []bool{false, true} {
		f := newFixture(t, &recordingQueue{}, func(s callscribe.JobStore) callscribe.JobStore { return brokenStore{s, panics} })
		rec := f.do(t, http.MethodGet, "/v1/transcriptions/6f1c9a4e-8a43-4c1b-9a55-0d6c2d0b4a11", "")
		if rec.Code != http.StatusInternalServerError {
			t.Fatalf("panics=%v: status %d", panics, rec.Code)
		}
		e := decodeError(t, rec)
		if e.Error.Code != callscribe.CodeInternal || strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "boom") {
			t.Fatalf("panics=%v: body leaks or has the wrong code: %s", panics, rec.Body)
		}
	}
}

func TestParseLimit(t *testing.T) {
	cases := []struct {
		in    string
		want  int
		valid bool
	}{
		{"1", 1, true}, {"10", 10, true}, {"100", 100, true}, {"101", 100, true},
		{"99999999999999999999999", 100, true}, {"007", 7, true},
		{"0", 0, false}, {"-1", 0, false}, {"abc", 0, false}, {"1.5", 0, false}, {"+5", 0, false}, {" 5", 0, false},
	}
	for _, c := range cases {
		got, ok := parseLimit(c.in)
		if ok != c.valid || (ok && got != c.want) {
			t.Errorf("parseLimit(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.valid)
		}
	}
}

func TestCursorIsBoundToAccountAndTamperEvident(t *testing.T) {
	key := identity.NewSigner([]byte("k"))
	pos := callscribe.Position{CreatedAt: time.Date(2026, 11, 21, 10, 0, 0, 123000000, time.UTC), JobID: "6f1c9a4e-8a43-4c1b-9a55-0d6c2d0b4a11"}
	c := encodeCursor(key, "acct-a", pos)
	// The hand-written payload is the JSON of cursorPayload (which decodeCursor reads).
	payload, err := identity.Open([]byte("k"), c)
	want, _ := json.Marshal(cursorPayload{V: 1, A: accountTag("acct-a"), T: pos.CreatedAt.UnixNano(), I: pos.JobID})
	if err != nil || string(payload) != string(want) {
		t.Fatalf("payload %s, %v; want %s", payload, err, want)
	}
	got, err := decodeCursor(key, "acct-a", c)
	if err != nil || !got.CreatedAt.Equal(pos.CreatedAt) || got.JobID != pos.JobID {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	if _, err := decodeCursor(key, "acct-b", c); err == nil {
		t.Fatal("another account's cursor accepted")
	}
	if _, err := decodeCursor(identity.NewSigner([]byte("other")), "acct-a", c); err == nil {
		t.Fatal("cursor signed with another key accepted")
	}
	for i := range c {
		flipped := []byte(c)
		flipped[i] ^= 1
		if _, err := decodeCursor(key, "acct-a", string(flipped)); err == nil {
			t.Fatalf("tampered cursor (byte %d) accepted", i)
		}
	}
}

func TestUnknownRouteAndWrongMethodUseErrorShape(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	rec := f.do(t, http.MethodGet, "/v2/nothing", "")
	if rec.Code != http.StatusNotFound || decodeError(t, rec).Error.Code != callscribe.CodeNotFound {
		t.Fatalf("unknown route: %d %s", rec.Code, rec.Body)
	}
	rec = f.do(t, http.MethodPut, "/v1/transcriptions", "")
	if rec.Code != http.StatusMethodNotAllowed || decodeError(t, rec).Error.Code != callscribe.CodeMethodNotAllowed {
		t.Fatalf("wrong method: %d %s", rec.Code, rec.Body)
	}
	if allow := rec.Header().Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "POST") {
		t.Fatalf("Allow header %q", allow)
	}
}

// TestHeadIsNotServed: HEAD gets the 405 of any method the API does not take
// (Allow: GET), as on AWS, where API Gateway routes only GET to the route's
// function: not the GET handler's answer, which Go's mux would give.
func TestHeadIsNotServed(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	for _, path := range []string{"/healthz", "/openapi.json", "/v1/transcriptions", "/v1/transcriptions/" + "00000000-0000-4000-8000-000000000000"} {
		req := httptest.NewRequest(http.MethodHead, path, nil)
		req.Header.Set("Authorization", "Bearer "+f.apiKey)
		rec := httptest.NewRecorder()
		f.server.ServeHTTP(rec, req)
		if rec.Code != http.StatusMethodNotAllowed || decodeError(t, rec).Error.Code != callscribe.CodeMethodNotAllowed || !strings.Contains(rec.Header().Get("Allow"), "GET") {
			t.Errorf("HEAD %s: %d Allow %q %s", path, rec.Code, rec.Header().Get("Allow"), rec.Body)
		}
	}
	rec := f.do(t, http.MethodHead, "/nothing", "")
	if rec.Code != http.StatusNotFound {
		t.Errorf("HEAD of an unknown path: %d", rec.Code)
	}
	// The AWS fallback (every route known, none served) answers the same.
	fb := NewFallback(f.server.deps, f.server.cfg, RouteHealth, RouteListJobs)
	rec = httptest.NewRecorder()
	fb.ServeHTTP(rec, httptest.NewRequest(http.MethodHead, "/v1/transcriptions", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("fallback HEAD: %d %s", rec.Code, rec.Body)
	}
}

func TestRouteRestrictedServer(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	only := New(f.server.deps, f.server.cfg, RouteGetJob)
	req := httptest.NewRequest(http.MethodPost, "/v1/summarize", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+f.apiKey)
	rec := httptest.NewRecorder()
	only.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound {
		t.Fatalf("a route the function does not serve answered %d", rec.Code)
	}
	req = httptest.NewRequest(http.MethodGet, "/v1/transcriptions/", nil)
	req.Header.Set("Authorization", "Bearer "+f.apiKey)
	rec = httptest.NewRecorder()
	only.ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest || decodeError(t, rec).Error.Code != callscribe.CodeMissingJobID {
		t.Fatalf("empty job id: %d %s", rec.Code, rec.Body)
	}
}

// cancelledStore fails reads with the request context's error, as a store
// call under a cancelled context does.
type cancelledStore struct{ callscribe.JobStore }

func (s cancelledStore) GetJob(ctx context.Context, id string) (*callscribe.Job, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("reading job: %w", ctx.Err())
}

// A client that disconnects mid-request is logged as cancelled, not as an
// internal error.
func TestClientDisconnectIsLoggedAsCancelled(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, func(s callscribe.JobStore) callscribe.JobStore { return cancelledStore{s} })
	var logs bytes.Buffer
	f.server.deps.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest(http.MethodGet, "/v1/transcriptions/6f1c9a4e-8a43-4c1b-9a55-0d6c2d0b4a11", nil).WithContext(ctx)
	req.Header.Set("Authorization", "Bearer "+f.apiKey)
	rec := httptest.NewRecorder()
	time.AfterFunc(20*time.Millisecond, cancel)
	f.server.ServeHTTP(rec, req)
	if rec.Code != StatusClientClosedRequest {
		t.Fatalf("status %d, want %d", rec.Code, StatusClientClosedRequest)
	}
	out := logs.String()
	if strings.Contains(out, `"level":"ERROR"`) || strings.Contains(out, "internal error") || !strings.Contains(out, "request cancelled by the client") || !strings.Contains(out, `"status":499`) {
		t.Fatalf("logs:\n%s", out)
	}
}

// Each API key has its own budget; over it the answer is 429 RATE_LIMITED with
// Retry-After, in the spec's error shape. The dashboard's routes are limited
// per client address, sign-in included.
func TestRequestRateLimits(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	f.server.cfg.RateLimit = RateLimit{RPS: 0.5, Burst: 3}
	f.server.initRateLimits()
	for i := 0; i < 3; i++ {
		if rec := f.do(t, http.MethodGet, "/v1/transcriptions", ""); rec.Code != http.StatusOK {
			t.Fatalf("request %d of the burst: %d %s", i, rec.Code, rec.Body)
		}
	}
	rec := f.do(t, http.MethodGet, "/v1/transcriptions", "")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "2" {
		t.Fatalf("over the budget: %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if e := decodeError(t, rec); e.Error.Code != callscribe.CodeRateLimited || e.Error.Details["retry_after_seconds"] != float64(2) {
		t.Fatalf("error %+v", e.Error)
	}
	// An unknown key is refused as unauthorized, not charged to anyone.
	req := httptest.NewRequest(http.MethodGet, "/v1/transcriptions", nil)
	req.Header.Set("Authorization", "Bearer cs_unknown")
	rec = httptest.NewRecorder()
	f.server.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("unknown key: %d", rec.Code)
	}

	// Dashboard routes: per address. Three from one address pass, the
	// fourth is refused; another address is not.
	dashboard := func(addr string) int {
		req := httptest.NewRequest(http.MethodPost, "/dashboard/login", strings.NewReader(`{"email":"a@example.com","password":"wrong-password"}`))
		req.RemoteAddr = addr
		rec := httptest.NewRecorder()
		f.server.ServeHTTP(rec, req)
		return rec.Code
	}
	for i := 0; i < 3; i++ {
		if code := dashboard("192.0.2.1:1234"); code != http.StatusUnauthorized {
			t.Fatalf("sign-in %d: %d", i, code)
		}
	}
	if code := dashboard("192.0.2.1:5678"); code != http.StatusTooManyRequests {
		t.Fatalf("fourth sign-in from one address: %d", code)
	}
	if code := dashboard("192.0.2.2:1234"); code != http.StatusUnauthorized {
		t.Fatalf("another address: %d", code)
	}
}

// Repeated failed sign-ins lock the account for other addresses: 429 with
// Retry-After, even with the right password.
func TestSignInLockoutAnswers429(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	login := func(password string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/dashboard/login", strings.NewReader(`{"email":"ann@example.com","password":"`+password+`"}`))
		req.RemoteAddr = "198.51.100.7:40000"
		rec := httptest.NewRecorder()
		f.server.ServeHTTP(rec, req)
		return rec
	}
	req := httptest.NewRequest(http.MethodPost, "/dashboard/signup", strings.NewReader(`{"email":"ann@example.com","password":"long-enough-password"}`))
	rec := httptest.NewRecorder()
	f.server.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated {
		t.Fatalf("signup %d %s", rec.Code, rec.Body)
	}
	for i := 0; i < jobs.MaxSignInFailures; i++ {
		if rec := login("wrong-password-" + fmt.Sprint(i)); rec.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i, rec.Code)
		}
	}
	rec = login("long-enough-password")
	retry, _ := strconv.Atoi(rec.Header().Get("Retry-After"))
	if rec.Code != http.StatusTooManyRequests || retry < 1 || retry > int(jobs.SignInWindow.Seconds()) || decodeError(t, rec).Error.Code != callscribe.CodeRateLimited {
		t.Fatalf("locked sign-in: %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
}

// A direct upload is spooled to a temporary file, not held in memory, and the
// file is gone when the request ends, accepted or refused.
func TestUploadSpoolsToATemporaryFileAndRemovesIt(t *testing.T) {
	spool := t.TempDir()
	t.Setenv("TMPDIR", spool)
	f := newFixture(t, &recordingQueue{}, nil)
	if rec := f.upload(t, wav(2, 8000)); rec.Code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	if rec := f.upload(t, make([]byte, jobs.MaxAudioBytes+1)); rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized upload: %d %s", rec.Code, rec.Body)
	}
	if rec := f.upload(t, []byte("not audio at all")); rec.Code != http.StatusUnsupportedMediaType {
		t.Fatalf("bad audio: %d %s", rec.Code, rec.Body)
	}
	left, err := os.ReadDir(spool)
	if err != nil || len(left) != 0 {
		t.Fatalf("temporary files left behind: %v %v", left, err)
	}
}

// A list page is larger than net/http's response buffer: it must still go out
// with a Content-Length (one write, not chunked), as every JSON answer does.
func TestJSONAnswersCarryTheirContentLength(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	for range 12 {
		if rec := f.upload(t, wav(1, 8000)); rec.Code != http.StatusAccepted {
			t.Fatalf("upload: %d %s", rec.Code, rec.Body)
		}
	}
	srv := httptest.NewServer(f.server)
	defer srv.Close()
	for _, path := range []string{"/v1/transcriptions?limit=12", "/v1/transcriptions/not-a-job", "/healthz"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+f.apiKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) > 0 {
			t.Errorf("%s: Content-Length %d, Transfer-Encoding %v, body %d bytes", path, resp.ContentLength, resp.TransferEncoding, len(body))
		}
		if !json.Valid(body) {
			t.Errorf("%s: body is not JSON: %s", path, body)
		}
	}
}

// A body that cannot be encoded (here a stored result that is not JSON) gets
// the spec's 500 shape, whole, never half a 200.
func TestUnencodableBodyIsAnInternalError(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/v1/transcriptions/x", nil)
	req = req.WithContext(withRequest(req.Context(), "req-enc", slog.New(slog.NewJSONHandler(io.Discard, nil))))
	rec := httptest.NewRecorder()
	rec.Header().Set("X-Request-Id", "req-enc")
	encodeBody(rec, req, http.StatusOK, map[string]any{"result": json.RawMessage(`{"not json`)})
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, body %s", rec.Code, rec.Body)
	}
	if got := rec.Header().Get("Content-Length"); got != strconv.Itoa(rec.Body.Len()) {
		t.Errorf("Content-Length %q for a %d-byte body", got, rec.Body.Len())
	}
	if e := decodeError(t, rec); e.Error.Code != callscribe.CodeInternal || e.Error.Message != internalErrorMessage {
		t.Errorf("error body %+v", e)
	}
}
