package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// benchResponseWriter discards the body, as a network would take it.
type benchResponseWriter struct{ h http.Header }

func (w *benchResponseWriter) Header() http.Header         { return w.h }
func (w *benchResponseWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *benchResponseWriter) WriteHeader(int)             {}

func benchmarkRoute(b *testing.B, path string) { benchmarkRouteWith(b, path, 0) }

// benchmarkRouteWith serves the route from parallelism×GOMAXPROCS goroutines
// at once when parallelism > 0 (as wrk's connections do), so waits on the
// store's connection pool or locks show in ns/op as they would over HTTP.
func benchmarkRouteWith(b *testing.B, path string, parallelism int) {
	f := newFixture(b, &recordingQueue{}, nil)
	f.server.deps.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	rec := f.upload(b, wav(1, 8000))
	for range 20 { // a full first page for the list
		f.upload(b, wav(1, 8000))
	}
	var body struct {
		JobID string `json:"job_id"`
	}
	decodeInto(b, rec.Body.Bytes(), &body)
	if path == "" {
		path = "/v1/transcriptions/" + body.JobID
	}
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+f.apiKey)
	b.ReportAllocs()
	b.ResetTimer()
	if parallelism > 0 {
		b.SetParallelism(parallelism)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				w := &benchResponseWriter{h: http.Header{}}
				f.server.ServeHTTP(w, req.Clone(req.Context()))
			}
		})
		return
	}
	for b.Loop() {
		w := &benchResponseWriter{h: http.Header{}}
		f.server.ServeHTTP(w, req)
	}
}

// BenchmarkGetJob and BenchmarkListFirstPage are the handler cost of the two
// hottest reads on the embedded store, without the network (make bench-api
// measures them over HTTP). Profile with -cpuprofile.
func BenchmarkGetJob(b *testing.B)        { benchmarkRoute(b, "") }
func BenchmarkListFirstPage(b *testing.B) { benchmarkRoute(b, "/v1/transcriptions") }

// The same with 16 requests per core in flight (32 on two cores, as make
// bench-api's wrk runs).
func BenchmarkGetJobConcurrent(b *testing.B) { benchmarkRouteWith(b, "", 16) }
func BenchmarkListFirstPageConcurrent(b *testing.B) {
	benchmarkRouteWith(b, "/v1/transcriptions", 16)
}

func decodeInto(t testing.TB, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
}
