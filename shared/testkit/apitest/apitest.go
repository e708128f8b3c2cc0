// Package apitest is the black-box HTTP suite of the callscribe API contract
// (../SPEC.md). It drives a running service over real HTTP only, creating its
// accounts and keys through the dashboard endpoints, so the same suite runs
// against the local binary and against the AWS-emulating stack.
//
// A target is anything with a base URL; optional capabilities (Restarter) are
// discovered by type assertion. Options carry what the target was started with.
package apitest

import (
	"context"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/callscribe/callscribe/shared/transport/openapi/openapivalidate"
)

// Target is a running service.
type Target interface {
	// BaseURL is the service's base address, e.g. http://127.0.0.1:8080 (no trailing slash).
	BaseURL() string
}

// Restarter is a target whose process can be killed abruptly and started again
// on the same state. RunCrashRecovery needs it.
type Restarter interface {
	Target
	// Kill9 kills the service without letting it shut down (SIGKILL) and waits until it is gone.
	Kill9() error
	// Start starts the service again on the same state and waits until it serves.
	Start() error
}

// Options describe how the target was started and tune the suite.
type Options struct {
	// QuotaMinutes is the target's monthly quota per account (QUOTA_MINUTES).
	// Required. The quota tests build files sized from it, so keep it small
	// (5 is a good value): each quota test uses a fresh account.
	QuotaMinutes float64
	// GatewayKey is sent as the `apikey` header on every request when set
	// (a target started with GATEWAY_KEY).
	GatewayKey string
	// FixturesDir holds the audio fixtures (testdata/audio). Default: found by
	// walking up from the working directory.
	FixturesDir string
	// FailLanguage is a language hint the target's engine refuses, failing the
	// job (the test engine fails anything but en/en-*). Default "de".
	FailLanguage string
	// FailCode is error.code of such a failed job. Default "unsupported_language".
	FailCode string
	// PollInterval is the pause between job polls. Default 100ms.
	PollInterval time.Duration
	// JobTimeout bounds how long a job may take to reach a terminal state. Default 60s.
	JobTimeout time.Duration
	// PaginationJobs is how many jobs the pagination test creates. Default 250.
	PaginationJobs int
	// HTTPClient is used for every request. Default: a client with a 60s timeout.
	// Its transport is wrapped to validate every exchange against the OpenAPI
	// document (package openapivalidate) unless SkipOpenAPIValidation is set,
	// and to honour 429 RATE_LIMITED's Retry-After.
	HTTPClient *http.Client
	// SkipOpenAPIValidation turns off the OpenAPI validation of the exchanges.
	SkipOpenAPIValidation bool
	// RateLimitBurst is the target's per-key request burst (RATE_LIMIT_BURST),
	// for the RateLimit test; 0 skips it.
	RateLimitBurst int
}

func (o *Options) defaults() {
	if o.FailLanguage == "" {
		o.FailLanguage = "de"
	}
	if o.FailCode == "" {
		o.FailCode = "unsupported_language"
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 100 * time.Millisecond
	}
	if o.JobTimeout <= 0 {
		o.JobTimeout = 60 * time.Second
	}
	if o.PaginationJobs <= 0 {
		o.PaginationJobs = 250
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
			MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second,
		}}
	}
}

type suite struct {
	target Target
	opts   Options
	c      *client
	// validator checks exchanges and callbacks against the OpenAPI document
	// (nil with Options.SkipOpenAPIValidation).
	validator *openapivalidate.Transport
	// impatient is the suite's client without the polite retries, for the
	// test that wants to see 429 RATE_LIMITED.
	impatient *http.Client
}

func newSuite(t testing.TB, target Target, opts Options) *suite {
	t.Helper()
	opts.defaults()
	if opts.QuotaMinutes <= 0 {
		t.Fatalf("apitest: Options.QuotaMinutes must be the target's QUOTA_MINUTES (> 0)")
	}
	hc := opts.HTTPClient
	var v *openapivalidate.Transport
	if !opts.SkipOpenAPIValidation {
		hc, v = validatingClient(t, target.BaseURL(), hc)
	}
	// The polite retries wrap the validation, so every attempt, a 429 included,
	// is checked against the document.
	return &suite{target: target, opts: opts, c: &client{base: target.BaseURL(), hc: politeClient(hc), gateway: opts.GatewayKey}, validator: v, impatient: hc}
}

// StorageStandInPaths are where the local process serves its stand-ins for
// presigned storage links (diskaudio.UploadPath and diskaudio.AudioPath, whose
// tests check this list: diskaudio's tests import this package, so it cannot
// import diskaudio). They are storage, not the API the document describes.
var StorageStandInPaths = []string{"/local-uploads", "/local-audio"}

// validatingClient returns a copy of hc whose transport validates every
// request to the service and its response against the OpenAPI document.
// Problems of a request sent by client.do or download are reported to that
// request's test (see client.newRequest); the others when t ends.
func validatingClient(t testing.TB, baseURL string, hc *http.Client) (*http.Client, *openapivalidate.Transport) {
	t.Helper()
	v, err := openapivalidate.NewTransport(context.Background(), baseURL, hc.Transport)
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	// The local stack's stand-ins for presigned storage links are storage, not
	// API (on AWS they are S3, another host, which the transport passes anyway).
	v.NotAPI = func(r *http.Request) bool {
		for _, p := range StorageStandInPaths {
			if strings.HasPrefix(r.URL.Path, p) {
				return true
			}
		}
		return false
	}
	t.Cleanup(func() {
		for _, f := range v.Failures() {
			t.Errorf("%s", f)
		}
		t.Logf("OpenAPI: %d exchanges validated against the document; operations none reached: %v", v.Checked(), v.Uncovered())
	})
	c := *hc
	c.Transport = v
	return &c, v
}

// Run drives the service through every row of every status table of the spec.
// It returns when all of its (parallel) subtests have finished.
func Run(t *testing.T, target Target, opts Options) {
	s := newSuite(t, target, opts)
	groups := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"Routing", s.testRouting},
		{"Dashboard", s.testDashboard},
		{"DashboardJobs", s.testDashboardJobs},
		{"Auth", s.testAuth},
		{"Upload", s.testUpload},
		{"UploadFixtures", s.testUploadFixtures},
		{"TwoStepUpload", s.testTwoStepUpload},
		{"Quota", s.testQuota},
		{"QuotaConcurrent", s.testQuotaConcurrent},
		{"QuotaRelease", s.testQuotaRelease},
		{"DailyUsage", s.testDailyUsage},
		{"GetJob", s.testGetJob},
		{"Export", s.testExport},
		{"Metrics", s.testMetrics},
		{"Derive", s.testDerive},
		{"Delete", s.testDelete},
		{"List", s.testList},
		{"Search", s.testSearch},
		{"Pagination", s.testPagination},
		{"RateLimit", s.testRateLimit},
		{"Idempotency", s.testIdempotency},
	}
	t.Run("api", func(t *testing.T) {
		for _, g := range groups {
			t.Run(g.name, func(t *testing.T) {
				t.Parallel()
				g.fn(t)
			})
		}
	})
}

// fixture reads testdata/audio/<name>.
func (s *suite) fixture(t testing.TB, name string) []byte {
	t.Helper()
	dir := s.fixturesDir(t)
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return b
}

func (s *suite) fixturesDir(t testing.TB) string {
	t.Helper()
	if s.opts.FixturesDir != "" {
		return s.opts.FixturesDir
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("getwd: %v", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		cand := filepath.Join(dir, "testdata", "audio")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				s.opts.FixturesDir = cand
				return cand
			}
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("apitest: testdata/audio not found above %s; set Options.FixturesDir", wd)
		}
	}
}

// WaitJob polls GET /v1/transcriptions/{id} as the spec's polling guidance says:
// repeat while queued or processing, stop at succeeded or failed, give up at the
// deadline. Every poll's body is checked against the Job resource rules. It
// returns the terminal body, or nil after reporting (t.Errorf) a timeout or an
// unexpected response. Safe from goroutines.
func (s *suite) WaitJob(t testing.TB, a *Account, id string) *Response {
	t.Helper()
	deadline := time.Now().Add(s.opts.JobTimeout)
	for {
		r := a.Get(t, id)
		if r.Status != http.StatusOK {
			t.Errorf("polling job %s: %s", id, r)
			return nil
		}
		checkJob(t, r, id)
		switch st := r.Str("status"); st {
		case "succeeded", "failed":
			return r
		case "queued", "processing":
		default:
			t.Errorf("polling job %s: unknown status %q", id, st)
			return nil
		}
		if time.Now().After(deadline) {
			t.Errorf("job %s still %s after %s", id, r.Str("status"), s.opts.JobTimeout)
			return nil
		}
		time.Sleep(s.opts.PollInterval)
	}
}

// mustSucceed waits for the job and requires status succeeded.
func (s *suite) mustSucceed(t testing.TB, a *Account, id string) *Response {
	t.Helper()
	r := s.WaitJob(t, a, id)
	if r == nil {
		t.FailNow()
	}
	if r.Str("status") != "succeeded" {
		t.Fatalf("job %s: want succeeded, got %s", id, r)
	}
	return r
}

// checkJob applies the Job resource's rules to a GET body.
func checkJob(t testing.TB, r *Response, id string) {
	t.Helper()
	b := r.Body
	if b["job_id"] != id {
		t.Errorf("%s: job_id %v, want %s", r, b["job_id"], id)
	}
	typ := r.Str("type")
	switch typ {
	case "transcription", "summary", "tags":
	default:
		t.Errorf("%s: type %q is not transcription|summary|tags", r, typ)
	}
	st := r.Str("status")
	_, hasResult := b["result"]
	_, hasError := b["error"]
	if hasResult != (st == "succeeded") {
		t.Errorf("%s: result present=%v with status %s (present only when succeeded)", r, hasResult, st)
	}
	if hasError != (st == "failed") {
		t.Errorf("%s: error present=%v with status %s (present only when failed)", r, hasError, st)
	}
	if v, ok := b["source_job_id"]; ok {
		if typ == "transcription" {
			t.Errorf("%s: source_job_id on a transcription", r)
		}
		checkUUID(t, r, "source_job_id", v)
	}
	if hasError {
		e, ok := b["error"].(map[string]any)
		if !ok {
			t.Errorf("%s: error is not an object", r)
		} else {
			if c, _ := e["code"].(string); c == "" {
				t.Errorf("%s: job error.code missing", r)
			}
			if m, _ := e["message"].(string); m == "" {
				t.Errorf("%s: job error.message missing", r)
			}
		}
	}
	if !hasResult {
		return
	}
	res, ok := b["result"].(map[string]any)
	if !ok {
		t.Errorf("%s: result is not an object", r)
		return
	}
	switch typ {
	case "transcription":
		checkTranscriptionResult(t, r, res)
	case "summary":
		if v, ok := res["topic"]; !ok {
			t.Errorf("%s: summary result has no topic", r)
		} else if _, isStr := v.(string); v != nil && !isStr {
			t.Errorf("%s: topic is neither string nor null", r)
		}
		if s, _ := res["summary"].(string); s == "" {
			t.Errorf("%s: summary result has no summary text", r)
		}
		checkMetaData(t, r, res)
	case "tags":
		tags, ok := res["tags"].(map[string]any)
		if !ok {
			t.Errorf("%s: tags result has no tags object", r)
			break
		}
		for _, cat := range []string{"call_reason", "customer_sentiment", "agent_approach", "call_outcome"} {
			if _, ok := tags[cat]; !ok {
				t.Errorf("%s: tags has no %s", r, cat)
			}
		}
		for cat, vals := range tags {
			arr, ok := vals.([]any)
			if !ok {
				t.Errorf("%s: tags.%s is not an array", r, cat)
				continue
			}
			for _, v := range arr {
				if _, ok := v.(string); !ok {
					t.Errorf("%s: tags.%s holds a non-string %v", r, cat, v)
				}
			}
		}
		checkMetaData(t, r, res)
	}
}

func checkMetaData(t testing.TB, r *Response, res map[string]any) {
	t.Helper()
	v, ok := res["meta_data"]
	if !ok {
		t.Errorf("%s: result has no meta_data (object or null)", r)
		return
	}
	if _, isObj := v.(map[string]any); v != nil && !isObj {
		t.Errorf("%s: meta_data is neither object nor null", r)
	}
}

func checkTranscriptionResult(t testing.TB, r *Response, res map[string]any) {
	t.Helper()
	if v, ok := res["language"]; !ok {
		t.Errorf("%s: result.language missing (string or null)", r)
	} else if _, isStr := v.(string); v != nil && !isStr {
		t.Errorf("%s: result.language is neither string nor null", r)
	}
	if _, ok := num(res["duration_seconds"]); !ok {
		t.Errorf("%s: result.duration_seconds is not a number", r)
	}
	if v, ok := res["words_count"]; !ok {
		t.Errorf("%s: result.words_count missing (integer or null)", r)
	} else if v != nil {
		if n, ok := num(v); !ok || n != float64(int64(n)) || n < 0 {
			t.Errorf("%s: words_count %v is not a non-negative integer", r, v)
		}
	}
	segs, ok := res["transcript"].([]any)
	if !ok {
		t.Errorf("%s: result.transcript is not an array", r)
		return
	}
	for i, sv := range segs {
		seg, ok := sv.(map[string]any)
		if !ok {
			t.Errorf("%s: segment %d is not an object", r, i)
			continue
		}
		if _, ok := seg["text"].(string); !ok {
			t.Errorf("%s: segment %d text is not a string", r, i)
		}
		ts, ok1 := num(seg["time_start"])
		te, ok2 := num(seg["time_end"])
		if !ok1 || !ok2 || ts < 0 || te < ts {
			t.Errorf("%s: segment %d times %v..%v", r, i, seg["time_start"], seg["time_end"])
		}
		if id, ok := num(seg["speaker_id"]); !ok || (id != 0 && id != 1) {
			t.Errorf("%s: segment %d speaker_id %v is not 0 or 1", r, i, seg["speaker_id"])
		}
		if a, _ := seg["speaker_alias"].(string); a != "Agent" && a != "User" {
			t.Errorf("%s: segment %d speaker_alias %q is not Agent or User", r, i, a)
		}
		checkSegmentWords(t, r, i, seg, ts, te)
		checkSegmentSentiment(t, r, i, seg)
	}
}

// checkSegmentWords checks a segment's optional words: one per word of its
// text, in order, timed inside the segment without going back, each with a
// confidence that is null or in [0, 1], and the segment's confidence (when
// present) the mean of its words' confidences.
func checkSegmentWords(t testing.TB, r *Response, i int, seg map[string]any, ts, te float64) {
	t.Helper()
	// Times go through JSON as the engine computed them; the slack is for
	// float arithmetic, not for sloppy engines.
	const slack = 1e-9
	text, _ := seg["text"].(string)
	if v, ok := seg["words"]; ok {
		words, ok := v.([]any)
		if !ok {
			t.Errorf("%s: segment %d words is not an array", r, i)
			return
		}
		fields := strings.Fields(text)
		if len(words) != len(fields) {
			t.Errorf("%s: segment %d has %d words for the %d of its text %q", r, i, len(words), len(fields), text)
		}
		prevEnd := ts
		var sum float64
		scored := 0
		for j, wv := range words {
			w, ok := wv.(map[string]any)
			if !ok {
				t.Errorf("%s: segment %d word %d is not an object", r, i, j)
				continue
			}
			// The text's words may carry punctuation the words do not.
			if s, _ := w["text"].(string); strings.TrimSpace(s) == "" {
				t.Errorf("%s: segment %d word %d has no text", r, i, j)
			} else if j < len(fields) && trimPunct(s) != trimPunct(fields[j]) {
				t.Errorf("%s: segment %d word %d is %q, its text's is %q", r, i, j, s, fields[j])
			}
			start, ok1 := num(w["start"])
			end, ok2 := num(w["end"])
			if !ok1 || !ok2 || start < prevEnd-slack || end < start || end > te+slack {
				t.Errorf("%s: segment %d (%v..%v) word %d %v at %v..%v: out of order or outside the segment (previous word ends %v)",
					r, i, ts, te, j, w["text"], w["start"], w["end"], prevEnd)
			}
			if ok2 {
				prevEnd = end
			}
			c, present := w["confidence"]
			if !present {
				t.Errorf("%s: segment %d word %d has no confidence (number or null)", r, i, j)
			} else if c != nil {
				if f, ok := num(c); !ok || f < 0 || f > 1 {
					t.Errorf("%s: segment %d word %d confidence %v is not in [0, 1]", r, i, j, c)
				} else {
					sum += f
					scored++
				}
			}
		}
		if c, ok := seg["confidence"]; ok && c != nil && scored > 0 {
			if f, ok := num(c); !ok || math.Abs(f-sum/float64(scored)) > 1e-6 {
				t.Errorf("%s: segment %d confidence %v, the mean of its words' is %v", r, i, c, sum/float64(scored))
			}
		}
	}
	if c, ok := seg["confidence"]; ok && c != nil {
		if f, ok := num(c); !ok || f < 0 || f > 1 {
			t.Errorf("%s: segment %d confidence %v is not in [0, 1]", r, i, c)
		}
	}
}

func trimPunct(s string) string { return strings.TrimFunc(s, unicode.IsPunct) }
