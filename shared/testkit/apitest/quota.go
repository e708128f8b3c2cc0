package apitest

import (
	"math"
	"net/http"
	"sync"
	"testing"
)

// maxQuotaFileSeconds keeps generated quota files (mono, 8 kHz, 16-bit) under 10 MB.
const maxQuotaFileSeconds = 600

func (s *suite) limitSeconds() float64 { return s.opts.QuotaMinutes * 60 }

func (s *suite) needSmallQuota(t *testing.T) {
	if s.limitSeconds() > maxQuotaFileSeconds {
		t.Skipf("QuotaMinutes=%v is too large to exhaust with 10 MB uploads; start the target with a small QUOTA_MINUTES (e.g. 5)", s.opts.QuotaMinutes)
	}
}

func checkUsage(t testing.TB, what string, got Usage, limitMin, usedSec, limitSec float64) {
	t.Helper()
	want := Usage{Limit: limitMin, Used: round2(usedSec), Remaining: round2(math.Max(0, limitSec-usedSec))}
	if !approx(got.Limit, want.Limit) || !approx(got.Used, want.Used) || !approx(got.Remaining, want.Remaining) {
		t.Errorf("%s: usage %+v, want %+v", what, got, want)
	}
}

// quota429 checks a 429 QUOTA_EXCEEDED and its details.
func (s *suite) quota429(t testing.TB, r *Response, usedSec, fileSec float64) {
	t.Helper()
	expectError(t, r, http.StatusTooManyRequests, "QUOTA_EXCEEDED")
	e, _ := r.Body["error"].(map[string]any)
	d, ok := e["details"].(map[string]any)
	if !ok {
		t.Errorf("%s: QUOTA_EXCEEDED without details", r)
		return
	}
	for key, want := range map[string]float64{
		"limit_minutes": round2(s.limitSeconds()),
		"used_minutes":  round2(usedSec),
		"file_minutes":  round2(fileSec),
	} {
		if got := minutesField(t, r, d, key); !approx(got, want) {
			t.Errorf("%s: details.%s = %v, want %v", r, key, got, want)
		}
	}
}

// testQuota: usage figures, exhaustion to the exact limit, 429 details, derived
// jobs never counted (and accepted when the quota is spent), deleting keeps minutes.
func (s *suite) testQuota(t *testing.T) {
	s.needSmallQuota(t)
	a := s.newAccount(t)
	limitSec := s.limitSeconds()
	limitMin := round2(limitSec)
	checkUsage(t, "fresh account", a.Usage(t), limitMin, 0, limitSec)

	first := math.Floor(limitSec * 2 / 3)
	firstID := a.MustUpload(t, Upload{Filename: "first.wav", Data: MakeWAV(first, 1, false)})
	if firstID == "" {
		t.FailNow()
	}
	checkUsage(t, "after the first upload", a.Usage(t), limitMin, first, limitSec)
	s.mustSucceed(t, a, firstID)
	checkUsage(t, "after the first job succeeded", a.Usage(t), limitMin, first, limitSec)

	over := limitSec - first + 10
	s.quota429(t, a.Upload(t, Upload{Filename: "over.wav", Data: MakeWAV(over, 1, false)}), first, over)
	checkUsage(t, "after a refused upload", a.Usage(t), limitMin, first, limitSec)

	rest := limitSec - first // fills the quota exactly: not over it
	restID := a.MustUpload(t, Upload{Filename: "rest.wav", Data: MakeWAV(rest, 1, false)})
	checkUsage(t, "quota filled exactly", a.Usage(t), limitMin, limitSec, limitSec)
	s.quota429(t, a.Upload(t, Upload{Filename: "one-second.wav", Data: MakeWAV(1, 1, false)}), limitSec, 1)
	if restID != "" {
		s.mustSucceed(t, a, restID)
	}

	// Summaries and tags are never metered, and are accepted with the quota spent.
	var derived []string
	for _, kind := range []string{"summary", "tags"} {
		derived = append(derived,
			a.MustDerive(t, kind, map[string]string{"transcription_job_id": firstID}),
			a.MustDerive(t, kind, map[string]string{"transcript_text": "Agent: hello. User: I want to cancel my plan."}))
	}
	for _, id := range derived {
		if id != "" {
			s.mustSucceed(t, a, id)
		}
	}
	checkUsage(t, "after summary and tags jobs", a.Usage(t), limitMin, limitSec, limitSec)

	// Deleting a job keeps its minutes used.
	expectStatus(t, a.Delete(t, firstID), http.StatusAccepted)
	checkUsage(t, "after deleting a job", a.Usage(t), limitMin, limitSec, limitSec)
	s.quota429(t, a.Upload(t, Upload{Filename: "after-delete.wav", Data: MakeWAV(1, 1, false)}), limitSec, 1)

	// Quota is per account: another account is unaffected.
	b := s.newAccount(t)
	checkUsage(t, "another account", b.Usage(t), limitMin, 0, limitSec)
}

// testQuotaRelease: a failed job's minutes are released.
func (s *suite) testQuotaRelease(t *testing.T) {
	s.needSmallQuota(t)
	a := s.newAccount(t)
	limitSec := s.limitSeconds()
	limitMin := round2(limitSec)
	sec := math.Floor(limitSec * 2 / 3)
	id := a.MustUpload(t, Upload{Filename: "german.wav", Data: MakeWAV(sec, 2, false), Language: s.opts.FailLanguage})
	if id == "" {
		t.FailNow()
	}
	r := s.WaitJob(t, a, id)
	if r == nil {
		t.FailNow()
	}
	if r.Str("status") != "failed" {
		t.Fatalf("%s: a job with language %q must fail", r, s.opts.FailLanguage)
	}
	e, _ := r.Body["error"].(map[string]any)
	if e["code"] != s.opts.FailCode {
		t.Errorf("%s: error.code want %s", r, s.opts.FailCode)
	}
	checkUsage(t, "after the job failed", a.Usage(t), limitMin, 0, limitSec)
	// The whole quota is available again.
	full := a.MustUpload(t, Upload{Filename: "full.wav", Data: MakeWAV(limitSec, 1, false)})
	checkUsage(t, "after using the released minutes", a.Usage(t), limitMin, limitSec, limitSec)
	if full != "" {
		s.mustSucceed(t, a, full)
	}
	checkUsage(t, "after the full job succeeded", a.Usage(t), limitMin, limitSec, limitSec)
}

// testQuotaConcurrent: 20 concurrent uploads across the limit never push used past it.
func (s *suite) testQuotaConcurrent(t *testing.T) {
	s.needSmallQuota(t)
	a := s.newAccount(t)
	limitSec := s.limitSeconds()
	const n = 20
	fileSec := math.Floor(limitSec / 12.5) // about 12 of the 20 fit
	if fileSec < 1 {
		fileSec = 1
	}
	fit := int(math.Floor(limitSec / fileSec))
	wantAccepted := min(fit, n)
	data := MakeWAV(fileSec, 1, false)

	var (
		mu       sync.Mutex
		accepted []string
		refused  int
		wg       sync.WaitGroup
		start    = make(chan struct{})
	)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r := a.Upload(t, Upload{Filename: "concurrent.wav", Data: data})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case r.Status == http.StatusAccepted:
				accepted = append(accepted, r.Str("job_id"))
			case r.Status == http.StatusTooManyRequests && r.ErrCode() == "QUOTA_EXCEEDED":
				refused++
				e, _ := r.Body["error"].(map[string]any)
				d, _ := e["details"].(map[string]any)
				if used, ok := num(d["used_minutes"]); !ok || used > s.opts.QuotaMinutes || used+round2(fileSec) <= s.opts.QuotaMinutes+1e-9 {
					t.Errorf("%s: refused while used_minutes %v + file %v fits the limit %v", r, d["used_minutes"], round2(fileSec), s.opts.QuotaMinutes)
				}
			default:
				t.Errorf("concurrent upload: %s; want 202 or 429 QUOTA_EXCEEDED", r)
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(accepted) != wantAccepted || refused != n-wantAccepted {
		t.Errorf("concurrent uploads of %vs against a %vs quota: %d accepted, %d refused; want %d accepted", fileSec, limitSec, len(accepted), refused, wantAccepted)
	}
	u := a.Usage(t)
	if u.Used > s.opts.QuotaMinutes+1e-9 {
		t.Errorf("used %v is past the limit %v", u.Used, s.opts.QuotaMinutes)
	}
	checkUsage(t, "after concurrent uploads", u, round2(limitSec), float64(len(accepted))*fileSec, limitSec)
	for _, id := range accepted {
		if r := s.WaitJob(t, a, id); r != nil && r.Str("status") != "succeeded" {
			t.Errorf("%s: want succeeded", r)
		}
	}
	checkUsage(t, "after the concurrent jobs finished", a.Usage(t), round2(limitSec), float64(len(accepted))*fileSec, limitSec)
}
