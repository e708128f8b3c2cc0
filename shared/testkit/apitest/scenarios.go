package apitest

import (
	"math"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"
)

// RunCrashRecovery uploads jobs to a slow target (one worker, a slow engine),
// kills it with SIGKILL while they are queued or processing, starts it again
// on the same state and requires every job to finish, succeeded, with its
// minutes counted exactly once. It also checks that a job deleted while being
// processed is not resurrected when its worker finishes.
func RunCrashRecovery(t *testing.T, target Restarter, opts Options) {
	s := newSuite(t, target, opts)
	a := s.newAccount(t)

	const n = 8
	var ids []string
	var totalSec float64
	dur := map[string]float64{}
	for i := 1; i <= n; i++ {
		sec := WAVSeconds(float64(i) * 0.75)
		id := a.MustUpload(t, Upload{Filename: "crash.wav", Data: MakeWAV(sec, 2, false)})
		if id == "" {
			t.FailNow()
		}
		ids = append(ids, id)
		dur[id] = sec
		totalSec += sec
	}
	// Kill while work is in flight: at least one job must still be unfinished.
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := a.List(t, url.Values{"status": {"processing"}, "limit": {"1"}})
		if len(listItems(t, r)) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	unfinished := 0
	for _, st := range []string{"queued", "processing"} {
		unfinished += len(listItems(t, a.List(t, url.Values{"status": {st}, "limit": {"100"}})))
	}
	if unfinished == 0 {
		t.Fatalf("every job finished before the kill; slow the engine down (TEST_ENGINE_DELAY)")
	}
	if err := target.Kill9(); err != nil {
		t.Fatalf("kill -9: %v", err)
	}
	t.Logf("killed with %d of %d jobs unfinished", unfinished, n)
	if err := target.Start(); err != nil {
		t.Fatalf("restart: %v", err)
	}
	s.c.base = target.BaseURL()

	for _, id := range ids {
		r := s.WaitJob(t, a, id)
		if r == nil {
			continue
		}
		if r.Str("status") != "succeeded" {
			t.Errorf("%s: after the crash the job must still succeed", r)
			continue
		}
		res, _ := r.Body["result"].(map[string]any)
		if d, _ := num(res["duration_seconds"]); math.Abs(d-dur[id]) > 0.01 {
			t.Errorf("%s: duration_seconds %v, want %v", r, d, dur[id])
		}
	}
	u := a.Usage(t)
	checkUsage(t, "after recovery", u, round2(s.limitSeconds()), totalSec, s.limitSeconds())
	listed := collect(t, a, nil, 100)
	if len(listed) != n {
		t.Errorf("after recovery the account lists %d jobs, want %d", len(listed), n)
	}
	checkNewestFirst(t, "after recovery", listed)

	// A job deleted while processing stays deleted.
	victim := a.MustUpload(t, Upload{Filename: "victim.wav", Data: MakeWAV(0.5, 1, false)})
	after := a.MustUpload(t, Upload{Filename: "after.wav", Data: MakeWAV(0.5, 1, false)})
	if victim == "" || after == "" {
		t.FailNow()
	}
	deadline = time.Now().Add(s.opts.JobTimeout)
	for {
		r := a.Get(t, victim)
		if r.Str("status") == "processing" || r.Status != http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	expectStatus(t, a.Delete(t, victim), http.StatusAccepted)
	// With one worker, the next job finishing means the victim's work is over.
	s.WaitJob(t, a, after)
	expectError(t, a.Get(t, victim), http.StatusNotFound, "JOB_NOT_FOUND")
	if items := listItems(t, a.List(t, url.Values{"job_id": {victim}})); len(items) != 0 {
		t.Errorf("job %s deleted while processing came back in the listing", victim)
	}
	usedSec := totalSec + 1.0 // the victim's minutes stay used, plus the job after it

	// Kill -9 in the middle of a stream of uploads: every upload answered 202
	// survives and finishes; a request cut off by the kill may or may not have
	// been stored, but whatever was stored finishes and is metered once.
	before := map[string]bool{}
	for _, it := range collect(t, a, nil, 100) {
		before[it["job_id"].(string)] = true
	}
	const streamSec = 1.0
	data := MakeWAV(streamSec, 1, false)
	var (
		mu       sync.Mutex
		accepted []string
		wg       sync.WaitGroup
		stop     = make(chan struct{})
		enough   = make(chan struct{})
		once     sync.Once
	)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				id, err := s.c.tryUpload(a, Upload{Filename: "stream.wav", Data: data})
				if err != nil {
					return // the service is gone
				}
				mu.Lock()
				accepted = append(accepted, id)
				if len(accepted) >= 6 {
					once.Do(func() { close(enough) })
				}
				mu.Unlock()
			}
		}()
	}
	select {
	case <-enough:
	case <-time.After(20 * time.Second):
		t.Errorf("uploads too slow to reach 6 accepted")
	}
	if err := target.Kill9(); err != nil {
		t.Fatalf("kill -9: %v", err)
	}
	close(stop)
	wg.Wait()
	if err := target.Start(); err != nil {
		t.Fatalf("restart: %v", err)
	}
	s.c.base = target.BaseURL()
	listedNow := map[string]bool{}
	stream := 0
	for _, it := range collect(t, a, nil, 100) {
		id := it["job_id"].(string)
		listedNow[id] = true
		if !before[id] {
			stream++
			if r := s.WaitJob(t, a, id); r != nil && r.Str("status") != "succeeded" {
				t.Errorf("%s: a job stored before the kill must succeed", r)
			}
		}
	}
	for _, id := range accepted {
		if !listedNow[id] {
			t.Errorf("job %s was accepted with 202 before the kill and is lost", id)
		}
	}
	t.Logf("second kill: %d uploads answered 202, %d stored", len(accepted), stream)
	checkUsage(t, "after the second recovery", a.Usage(t), round2(s.limitSeconds()), usedSec+float64(stream)*streamSec, s.limitSeconds())
}

// RunGateway checks a target started with GATEWAY_KEY=opts.GatewayKey:
// requests without that exact `apikey` header get 401, with it they work.
func RunGateway(t *testing.T, target Target, opts Options) {
	if opts.GatewayKey == "" {
		t.Fatalf("RunGateway needs Options.GatewayKey")
	}
	s := newSuite(t, target, opts)
	bare := &client{base: s.c.base, hc: s.c.hc}
	wrong := &client{base: s.c.base, hc: s.c.hc, gateway: opts.GatewayKey + "x"}

	for _, c := range []*client{bare, wrong} {
		r := c.postJSON(t, "/dashboard/signup", map[string]string{"email": newEmail(), "password": testPassword})
		expectError(t, r, http.StatusUnauthorized, "UNAUTHORIZED")
	}
	// The health check and the OpenAPI document need no gateway key.
	for _, path := range []string{"/healthz", "/openapi.json"} {
		if r := bare.download(t, path); r.Status != http.StatusOK {
			t.Errorf("%s: want 200 without the gateway key", r)
		}
	}
	a := s.newAccount(t) // through the gateway
	id := a.MustUpload(t, Upload{Filename: "gw.wav", Data: MakeWAV(0.5, 2, false)})
	if id == "" {
		t.FailNow()
	}
	s.mustSucceed(t, a, id)
	if items := listItems(t, a.List(t, nil)); len(items) != 1 {
		t.Errorf("listing through the gateway: %d items, want 1", len(items))
	}
	if u := a.Usage(t); !approx(u.Used, round2(0.5)) {
		t.Errorf("usage through the gateway: %+v", u)
	}
	for _, c := range []*client{bare, wrong} {
		for _, req := range []struct {
			method, path string
			tok          string
		}{
			{http.MethodGet, "/v1/transcriptions", a.APIKey},
			{http.MethodGet, "/v1/transcriptions/" + id, a.APIKey},
			{http.MethodDelete, "/v1/transcriptions/" + id, a.APIKey},
			{http.MethodGet, "/v1/transcriptions/usage", a.Token},
			{http.MethodGet, "/dashboard/api-keys", a.Token},
		} {
			expectError(t, c.do(t, req.method, req.path, nil, withBearer(req.tok)), http.StatusUnauthorized, "UNAUTHORIZED")
		}
		body, ct := multipartBody(Upload{Filename: "gw.wav", Data: MakeWAV(0.5, 1, false)})
		expectError(t, c.do(t, http.MethodPost, "/v1/transcriptions", body, withBearer(a.APIKey), withContentType(ct)), http.StatusUnauthorized, "UNAUTHORIZED")
		expectError(t, c.postJSON(t, "/v1/summarize", map[string]string{"transcription_job_id": id}, withBearer(a.APIKey)), http.StatusUnauthorized, "UNAUTHORIZED")
	}
	// The refused DELETEs did nothing.
	expectStatus(t, a.Get(t, id), http.StatusOK)
}
