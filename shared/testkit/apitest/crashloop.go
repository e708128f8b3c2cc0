package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// CrashLoop tunes RunCrashLoop.
type CrashLoop struct {
	// Kills is how many times the target is killed with SIGKILL.
	Kills int
	// Clients is how many concurrent clients run the workload.
	Clients int
	// MaxRound bounds the random time between a (re)start and the next kill.
	MaxRound time.Duration
	// Seed drives the workload and the kill points; 0 takes
	// CALLSCRIBE_CRASH_SEED, else the clock. The test logs it, so a failure
	// replays with CALLSCRIBE_CRASH_SEED=<seed>.
	Seed int64
}

// maxOpenJobs bounds the unfinished jobs the loop's clients keep in flight.
const maxOpenJobs = 8

// crashJob is a job the service answered 202 for.
type crashJob struct {
	id      string
	kind    string  // transcription, summary, tags
	seconds float64 // a transcription's audio
	deleted bool    // deleted with 202 (the job had succeeded)
	// deleteUnanswered: a DELETE got no answer (the kill came mid-request),
	// so whether it landed is not known to the client; at the end the job
	// must be either gone or finished, never anything else.
	deleteUnanswered bool
	terminal         string // status seen at the end
}

// RunCrashLoop kills the target with SIGKILL at random points of a mixed
// workload (direct and two-step uploads, summaries, tags, deletes of finished
// jobs), restarting it on the same state each time, and then requires that
// nothing accepted was lost: every job answered 202 reaches a terminal state
// (a deleted one stays deleted), and the account's used minutes are the sum
// of its transcriptions that did not fail, counted once, including any a
// request cut off by a kill stored without answering.
func RunCrashLoop(t *testing.T, target Restarter, opts Options, cfg CrashLoop) {
	s := newSuite(t, target, opts)
	seed := cfg.Seed
	if seed == 0 {
		if v, err := strconv.ParseInt(os.Getenv("CALLSCRIBE_CRASH_SEED"), 10, 64); err == nil {
			seed = v
		} else {
			seed = time.Now().UnixNano()
		}
	}
	t.Logf("crash loop seed %d (replay with CALLSCRIBE_CRASH_SEED=%d): %d kills, %d clients", seed, seed, cfg.Kills, cfg.Clients)
	rng := rand.New(rand.NewSource(seed))
	a := s.newAccount(t)

	var (
		mu       sync.Mutex
		accepted []*crashJob
		ops      = map[string]int{}
	)
	record := func(j *crashJob) {
		mu.Lock()
		accepted = append(accepted, j)
		mu.Unlock()
	}
	w := &crashWorkload{hc: &http.Client{Timeout: 10 * time.Second}, key: a.APIKey, gateway: opts.GatewayKey}
	// Each client has its own generator, seeded from the test's, so a seed
	// replays the same choices (the kill points and scheduling still vary).
	client := func(r *rand.Rand, base string, stop <-chan struct{}) {
		w := *w
		w.base = base
		for {
			select {
			case <-stop:
				return
			default:
			}
			op := r.Intn(10)
			mu.Lock()
			var done, open []*crashJob
			for _, j := range accepted {
				switch {
				case j.deleted:
				case j.terminal == "":
					open = append(open, j)
				case j.kind == "transcription" && j.terminal == "succeeded":
					done = append(done, j)
				}
			}
			if op <= 6 && len(open) >= maxOpenJobs {
				// Enough work queued: the loop is about crashes, not backlog.
				op = 8
			}
			mu.Unlock()
			count := func(name string) {
				mu.Lock()
				ops[name]++
				mu.Unlock()
			}
			switch {
			case op <= 4:
				sec := WAVSeconds(0.5 + float64(r.Intn(4))*0.25)
				data := MakeWAV(sec, 1+r.Intn(2), false)
				var id string
				var err error
				if op <= 2 {
					count("upload")
					id, err = w.upload(data)
				} else {
					count("two-step")
					id, err = w.twoStep(data)
				}
				if err == nil {
					record(&crashJob{id: id, kind: "transcription", seconds: sec})
				}
			case op <= 6 && len(done) > 0:
				kind := []string{"summary", "tags"}[op-5]
				count(kind)
				src := done[r.Intn(len(done))]
				if id, err := w.derive(kind, src.id); err == nil {
					record(&crashJob{id: id, kind: kind})
				}
			case op == 7 && len(done) > 2 && r.Intn(4) == 0:
				count("delete")
				victim := done[r.Intn(len(done))]
				status, _, err := w.call(http.MethodDelete, "/v1/transcriptions/"+victim.id, nil, "")
				mu.Lock()
				switch {
				case err == nil && status == http.StatusAccepted:
					victim.deleted = true
				case err != nil:
					victim.deleteUnanswered = true
				}
				mu.Unlock()
			default:
				// Poll: learn which jobs finished, for derives and deletes.
				count("poll")
				for _, j := range open[:min(len(open), 4)] {
					if status, body, err := w.call(http.MethodGet, "/v1/transcriptions/"+j.id, nil, ""); err == nil && status == http.StatusOK {
						if st, _ := body["status"].(string); st == "succeeded" || st == "failed" {
							mu.Lock()
							j.terminal = st
							mu.Unlock()
						}
					}
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}

	start := time.Now()
	for kill := 1; kill <= cfg.Kills+1; kill++ {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for c := 0; c < cfg.Clients; c++ {
			r := rand.New(rand.NewSource(rng.Int63()))
			wg.Add(1)
			go func() { defer wg.Done(); client(r, target.BaseURL(), stop) }()
		}
		round := time.Duration(rng.Int63n(int64(cfg.MaxRound)/2)) + cfg.MaxRound/2
		time.Sleep(round)
		if kill > cfg.Kills {
			close(stop)
			wg.Wait()
			break
		}
		if err := target.Kill9(); err != nil {
			t.Fatalf("kill -9 #%d: %v", kill, err)
		}
		close(stop)
		wg.Wait()
		if err := target.Start(); err != nil {
			t.Fatalf("restart after kill #%d: %v", kill, err)
		}
		s.c.base = target.BaseURL()
	}
	workload := time.Since(start)

	// Every accepted job reaches a terminal state; deleted ones stay deleted.
	byID := map[string]*crashJob{}
	for _, j := range accepted {
		byID[j.id] = j
		if j.deleted {
			expectError(t, a.Get(t, j.id), http.StatusNotFound, "JOB_NOT_FOUND")
			continue
		}
		if j.deleteUnanswered {
			if r := a.Get(t, j.id); r.Status == http.StatusNotFound {
				expectError(t, r, http.StatusNotFound, "JOB_NOT_FOUND")
				t.Logf("job %s: its DELETE was cut off by a kill and it is gone: the delete landed", j.id)
				j.deleted = true
				continue
			}
		}
		r := s.WaitJob(t, a, j.id)
		if r == nil {
			t.Errorf("accepted %s job %s was lost or never finished", j.kind, j.id)
			continue
		}
		j.terminal = r.Str("status")
		if j.kind == "transcription" && j.terminal == "succeeded" {
			res, _ := r.Body["result"].(map[string]any)
			if d, _ := num(res["duration_seconds"]); math.Abs(d-j.seconds) > 0.01 {
				t.Errorf("%s: duration_seconds %v, want %v", r, d, j.seconds)
			}
		}
	}
	// Minutes: the accepted transcriptions that did not fail, deleted ones
	// included (they had succeeded), plus any stored by a request the kill
	// cut off before it answered.
	usedSec := 0.0
	counts := map[string]int{}
	for _, j := range accepted {
		counts[j.kind+"/"+map[bool]string{true: "deleted", false: j.terminal}[j.deleted]]++
		if j.kind == "transcription" && j.terminal != "failed" {
			usedSec += j.seconds
		}
	}
	unanswered := 0
	for _, it := range collect(t, a, nil, 100) {
		id, _ := it["job_id"].(string)
		if byID[id] != nil {
			continue
		}
		unanswered++
		r := s.WaitJob(t, a, id)
		if r == nil || r.Str("type") != "transcription" || r.Str("status") != "succeeded" {
			continue
		}
		res, _ := r.Body["result"].(map[string]any)
		d, _ := num(res["duration_seconds"])
		usedSec += d
	}
	u := a.Usage(t)
	if !approx(u.Used, round2(usedSec)) {
		t.Errorf("used_minutes %v, want %v: the minutes of the non-failed transcriptions, counted once", u.Used, round2(usedSec))
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("crash loop: %d kills in %v of workload, %d jobs accepted %v, %d stored without an answer, %.2f minutes used; requests sent %v",
		cfg.Kills, workload.Round(time.Millisecond), len(accepted), counts, unanswered, u.Used, ops)
}

// crashWorkload sends the loop's requests with a plain client: a request cut
// off by a kill is an expected outcome here, not a test failure.
type crashWorkload struct {
	hc      *http.Client
	base    string
	key     string
	gateway string
}

func (w *crashWorkload) call(method, path string, body []byte, contentType string) (int, map[string]any, error) {
	req, err := http.NewRequest(method, w.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+w.key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if w.gateway != "" {
		req.Header.Set("apikey", w.gateway)
	}
	resp, err := w.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil && resp.StatusCode != http.StatusNoContent {
		return resp.StatusCode, nil, err
	}
	return resp.StatusCode, out, nil
}

func (w *crashWorkload) accepted(status int, body map[string]any, err error) (string, error) {
	if err != nil {
		return "", err
	}
	id, _ := body["job_id"].(string)
	if status != http.StatusAccepted || id == "" {
		return "", fmt.Errorf("status %d %v", status, body)
	}
	return id, nil
}

func (w *crashWorkload) upload(data []byte) (string, error) {
	body, ct := multipartBody(Upload{Filename: "crash.wav", Data: data})
	return w.accepted(w.call(http.MethodPost, "/v1/transcriptions", body, ct))
}

func (w *crashWorkload) twoStep(data []byte) (string, error) {
	status, up, err := w.call(http.MethodPost, "/v1/transcriptions/uploads", nil, "")
	if err != nil || status != http.StatusCreated {
		return "", fmt.Errorf("create upload: %d %v", status, err)
	}
	url, _ := up["url"].(string)
	raw, _ := up["fields"].(map[string]any)
	fields := map[string]string{}
	for k, v := range raw {
		fields[k] = fmt.Sprint(v)
	}
	if status, _, err := PostPresigned(w.hc, url, fields, data); err != nil || status/100 != 2 {
		return "", fmt.Errorf("presigned upload: %d %v", status, err)
	}
	body, ct := multipartUploadID(&bytes.Buffer{}, fmt.Sprint(up["upload_id"]))
	return w.accepted(w.call(http.MethodPost, "/v1/transcriptions", body, ct))
}

func (w *crashWorkload) derive(kind, transcription string) (string, error) {
	path := map[string]string{"summary": "/v1/summarize", "tags": "/v1/tag"}[kind]
	body, _ := json.Marshal(map[string]string{"transcription_job_id": transcription})
	return w.accepted(w.call(http.MethodPost, path, body, "application/json"))
}

func multipartUploadID(buf *bytes.Buffer, uploadID string) ([]byte, string) {
	mw := multipart.NewWriter(buf)
	_ = mw.WriteField("upload_id", uploadID)
	_ = mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

// Terminator is a target that can also be stopped gracefully.
type Terminator interface {
	Restarter
	// Terminate sends SIGTERM and waits for the process to exit; it returns
	// how long the exit took and an error if the exit status was not 0.
	Terminate() (time.Duration, error)
}

// RunGracefulShutdown sends SIGTERM to a target (started with SHUTDOWN_GRACE=
// grace and a transcription engine slower than grace) while a job is being
// processed, and requires the process to exit within the grace, so a
// supervisor that kills at the grace cuts nothing off, and the interrupted
// job to finish after a restart, its minutes counted once.
func RunGracefulShutdown(t *testing.T, target Terminator, opts Options, grace time.Duration) {
	s := newSuite(t, target, opts)
	a := s.newAccount(t)
	sec := WAVSeconds(1)
	id := a.MustUpload(t, Upload{Filename: "shutdown.wav", Data: MakeWAV(sec, 1, false)})
	if id == "" {
		t.FailNow()
	}
	deadline := time.Now().Add(10 * time.Second)
	for a.Get(t, id).Str("status") != "processing" {
		if time.Now().After(deadline) {
			t.Fatalf("job %s never started processing", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
	took, err := target.Terminate()
	if err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	t.Logf("exited %v after SIGTERM (grace %v)", took.Round(time.Millisecond), grace)
	if took >= grace {
		t.Errorf("the process exited %v after SIGTERM, past its %v grace", took, grace)
	}
	if err := target.Start(); err != nil {
		t.Fatalf("restart: %v", err)
	}
	s.c.base = target.BaseURL()
	if r := s.WaitJob(t, a, id); r != nil && r.Str("status") != "succeeded" {
		t.Errorf("%s: the job interrupted by the shutdown must succeed after the restart", r)
	}
	checkUsage(t, "after the restart", a.Usage(t), round2(s.limitSeconds()), sec, s.limitSeconds())
}
