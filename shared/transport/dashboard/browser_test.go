package dashboard

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/callscribe/callmetrics"
	"github.com/callscribe/callscribe/shared/transport/openapi/openapivalidate"
)

// The review's timeline in Chromium (web/e2e/timeline.e2e.mjs), against the
// page this package serves and a stand-in for the service's session routes
// that answers with the fixture jobs in web/e2e/fixtures (checked against the
// OpenAPI document first, so they keep the wire's shape). It needs no running
// service, so it takes seconds; the whole dashboard against both stacks is
// apitest.RunDashboardE2E.

const fixtureSession = "timeline-test-session"

// fixtureJob is one job the stand-in serves, with the WAV its audio link gives.
type fixtureJob struct {
	raw      []byte
	id       string
	name     string
	seconds  float64
	language string
	wav      []byte
}

func loadFixtures(t *testing.T, dir string) map[string]*fixtureJob {
	t.Helper()
	doc, err := openapivalidate.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	jobSchema := doc.Components.Schemas["Job"]
	if jobSchema == nil {
		t.Fatal("the OpenAPI document has no Job schema")
	}
	out := map[string]*fixtureJob{}
	for name, file := range map[string]string{"support-call.wav": "call-with-insights.json", "voicemail.wav": "mono-call-plain.json"} {
		raw, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if err := jobSchema.Value.VisitJSON(doc); err != nil {
			t.Fatalf("%s is not a Job as the OpenAPI document defines it: %v", file, err)
		}
		var job struct {
			ID     string                         `json:"job_id"`
			Result callscribe.TranscriptionResult `json:"result"`
		}
		if err := json.Unmarshal(raw, &job); err != nil {
			t.Fatal(err)
		}
		// The marks the browser checks against the metrics must be the
		// service's figures, so a fixture's metrics are what the pipeline
		// would compute from its transcript.
		if job.Result.Metrics != nil {
			want, _ := json.Marshal(callmetrics.Compute(job.Result.Transcript, job.Result.DurationSeconds))
			got, _ := json.Marshal(job.Result.Metrics)
			if !bytes.Equal(want, got) {
				t.Fatalf("%s: metrics %s are not what callmetrics computes from its transcript: %s", file, got, want)
			}
		}
		language := ""
		if job.Result.Language != nil {
			language = *job.Result.Language
		}
		out[job.ID] = &fixtureJob{raw: raw, id: job.ID, name: name, seconds: job.Result.DurationSeconds, language: language, wav: toneWAV(job.Result.DurationSeconds)}
	}
	return out
}

// toneWAV is seconds of a quiet 440 Hz tone, 8 kHz 16-bit mono: audio the
// player can load, seek and play.
func toneWAV(seconds float64) []byte {
	const rate = 8000
	n := int(math.Round(seconds * rate))
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + 2*n))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1))
	w(uint16(1))
	w(uint32(rate))
	w(uint32(2 * rate))
	w(uint16(2))
	w(uint16(16))
	b.WriteString("data")
	w(uint32(2 * n))
	for i := 0; i < n; i++ {
		w(int16(2000 * math.Sin(2*math.Pi*440*float64(i)/rate)))
	}
	return b.Bytes()
}

// standIn answers the session routes the review page reads, from the
// fixtures, and serves everything else with the dashboard's Handler.
func standIn(jobs map[string]*fixtureJob) http.Handler {
	page := Handler(Options{})
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.Handle("/", page)
	mux.HandleFunc("GET /dashboard/config", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"identity": map[string]any{"kind": "local"}, "requestId": "r"})
	})
	session := func(next http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+fixtureSession {
				w.WriteHeader(http.StatusUnauthorized)
				writeJSON(w, map[string]any{"error": map[string]any{"code": "UNAUTHORIZED", "message": "no session"}, "requestId": "r"})
				return
			}
			next(w, r)
		}
	}
	mux.HandleFunc("GET /dashboard/limits", session(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"max_audio_bytes": 10 << 20, "direct_upload_max_bytes": 10 << 20, "audio_formats": []string{"mp3", "wav"}, "max_metadata_bytes": 4096, "default_page_size": 20, "max_page_size": 100, "requestId": "r"})
	}))
	mux.HandleFunc("GET /dashboard/jobs", session(func(w http.ResponseWriter, r *http.Request) {
		entries := []any{}
		// The review reads its call's list entry (job_id=) and the jobs made from it (source_job_id=, none here).
		if j, ok := jobs[r.URL.Query().Get("job_id")]; ok {
			entries = append(entries, map[string]any{"job_id": j.id, "type": "transcription", "status": "succeeded", "original_filename": j.name, "language": j.language, "audio_seconds": j.seconds, "created_at": "2026-11-20T09:15:00.000Z", "updated_at": "2026-11-20T09:15:40.000Z"})
		}
		writeJSON(w, map[string]any{"transcriptions": entries, "next_cursor": nil, "requestId": "r"})
	}))
	mux.HandleFunc("GET /dashboard/jobs/{id}", session(func(w http.ResponseWriter, r *http.Request) {
		j, ok := jobs[r.PathValue("id")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(j.raw)
	}))
	mux.HandleFunc("GET /dashboard/jobs/{id}/audio", session(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"url": "/fixture-audio/" + r.PathValue("id") + ".wav", "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "requestId": "r"})
	}))
	mux.HandleFunc("GET /fixture-audio/{file}", func(w http.ResponseWriter, r *http.Request) {
		j, ok := jobs[strings.TrimSuffix(r.PathValue("file"), ".wav")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "audio/wav")
		// ServeContent answers Range requests, which the player needs to seek.
		http.ServeContent(w, r, "call.wav", time.Time{}, bytes.NewReader(j.wav))
	})
	return mux
}

func TestReviewTimelineInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	web := "web"
	if _, err := os.Stat(filepath.Join(web, "node_modules", "playwright-core")); err != nil {
		t.Fatalf("playwright-core is not installed in %s: run `make test` (or make deps web)", web)
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Fatalf("Debian's chromium is not installed: run `make test` (it installs it)")
	}
	if _, err := os.Stat(filepath.Join("dist", "app", "index.html")); err != nil {
		t.Fatalf("the dashboard has not been built: run `make web`")
	}
	jobs := loadFixtures(t, filepath.Join(web, "e2e", "fixtures"))
	srv := httptest.NewServer(standIn(jobs))
	defer srv.Close()

	shots := os.Getenv("TIMELINE_SHOTS")
	keep := shots != ""
	if !keep {
		var err error
		if shots, err = os.MkdirTemp("", "timeline-e2e-"); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "e2e/timeline.e2e.mjs")
	cmd.Dir = web
	cmd.Env = append(os.Environ(), "BASE_URL="+srv.URL, "OUT_DIR="+shots, "SESSION_TOKEN="+fixtureSession)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("%s", bytes.TrimSpace(out.Bytes()))
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("running the browser test: %v", err)
		}
		t.Fatalf("the browser test failed; its screenshots are in %s", shots)
	}
	if !keep {
		os.RemoveAll(shots)
	}
}
