// Command local runs the whole callscribe service in one process on the embedded
// stack (`make run`): the HTTP API on LISTEN_ADDR, state under DATA_DIR.
package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/stack/embedded"
)

// providers is the local table, plus the deterministic engine in test builds
// (addTestEngine, see testengine.go).
func providers() engines.Table[config.Config] {
	t := embedded.EngineTable()
	addTestEngine(t)
	return t
}

// The collector's defaults when GOGC and GOMEMLIMIT are not set. The Go heap
// of this process is small: about 4 MiB while it serves the API (the speech
// models live in C memory), about 20 MiB more while two workers hold decoded
// calls. A percentage alone cannot fit both: at Go's default of 100, or the 50
// used before, a 4 MiB heap is collected every 2-4 MiB of allocation, dozens
// of cycles a second under API load (16% of a GET's CPU, profiled); raised,
// it lets the heap double past the workers' audio. So the percentage is high
// and a soft memory limit caps the heap instead: collections are rare while
// the heap is small, and as frequent as needed to stay near the limit while
// calls are decoded (figures: README, make bench-api).
const (
	gcPercent   = 800
	memoryLimit = 48 << 20 // bytes of Go memory (heap, stacks, runtime), not C's
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	cfg, err := config.ConfigFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	logger := config.NewLogger(cfg.LogLevel)
	if addr := os.Getenv("PPROF_ADDR"); addr != "" {
		// Go's profiler on a listener of its own (never the API's), for
		// profiling under load: go tool pprof http://ADDR/debug/pprof/profile.
		go func() {
			if err := http.ListenAndServe(addr, pprofMux()); err != nil {
				logger.Error("PPROF_ADDR: the profiler stopped", "err", err)
			}
		}()
	}
	local, err := embedded.Open(cfg, logger, providers())
	if err != nil {
		logger.Error("starting the local stack failed", "err", err)
		os.Exit(1)
	}
	defer local.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = local.Run(ctx, func(addr string) {
		logger.Info("callscribe is listening", "url", "http://"+addr, "dataDir", cfg.DataDir, "transcriber", cfg.Transcriber, "workers", cfg.Workers)
		fmt.Fprintf(os.Stderr, `
callscribe is running at http://%[1]s  (data in %[2]s)

Open the dashboard to sign up, get an API key and upload calls:
  http://%[1]s/

Or with curl, get an API key:
  curl -s -X POST http://%[1]s/dashboard/signup -d '{"email":"you@example.com","password":"a-long-password"}'
  TOKEN=$(curl -s -X POST http://%[1]s/dashboard/login -d '{"email":"you@example.com","password":"a-long-password"}' | sed -E 's/.*"token":"([^"]+)".*/\1/')
  curl -s -X POST http://%[1]s/dashboard/api-keys -H "Authorization: Bearer $TOKEN"

Then upload a call:
  curl -s http://%[1]s/v1/transcriptions -H "Authorization: Bearer $API_KEY" -F file=@call.wav

Or with the command-line client, from the repository's checkout:
  go build -o callscribe ./infra/callscribe
%[3]s  ./callscribe signup --email you@example.com
  ./callscribe keys create --save
  ./callscribe transcribe --wait call.wav

`, addr, cfg.DataDir, cliBaseURLLine(addr))
	})
	if err != nil {
		logger.Error("service stopped with an error", "err", err)
		os.Exit(1)
	}
	logger.Info("callscribe stopped")
}

// cliBaseURLLine is the quick start's export line, when the CLI's default
// (http://127.0.0.1:8080) is not where this server listens.
func cliBaseURLLine(addr string) string {
	if addr == "127.0.0.1:8080" {
		return ""
	}
	return "  export CALLSCRIBE_BASE_URL=http://" + addr + "\n"
}

// pprofMux serves net/http/pprof's handlers, and nothing else.
func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
