// Command coldstart measures what a Lambda cold start costs each function of
// the deployment, on this machine: the bootstrap's size, the number of
// packages it links, and its init time, from exec until the function first
// asks the Runtime API for an invocation (GET /2018-06-01/runtime/invocation/next),
// which is when Lambda's Init phase ends. A fake Runtime API on 127.0.0.1
// answers that request by making the process exit, so each run is one init.
//
// It builds each function as `make build` does (CGO_ENABLED=0, -tags
// lambda.norpc, -trimpath -ldflags=-s -w) but for this machine's GOOS/GOARCH,
// and runs it with the configuration template.yaml gives it, pointed at
// endpoints on 127.0.0.1 that are never called: init builds clients only.
//
//	go run ./infra/bench/cmd/coldstart -runs 20
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	runs := flag.Int("runs", 20, "cold starts per function")
	only := flag.String("functions", "", "comma-separated function names (default: every directory under functions/)")
	flag.Parse()
	if err := run(*runs, *only); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

func run(runs int, only string) error {
	names, err := functionNames(only)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "coldstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	build := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w", "-o", dir+"/", "./functions/...")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building the functions: %w", err)
	}
	api, err := newFakeRuntimeAPI()
	if err != nil {
		return err
	}
	defer api.Close()

	fmt.Printf("%-22s %10s %9s %12s %12s\n", "function", "size (MiB)", "packages", "init median", "init p90")
	for _, name := range names {
		bin := filepath.Join(dir, name)
		info, err := os.Stat(bin)
		if err != nil {
			return err
		}
		list := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc", "./functions/"+name)
		list.Env = append(os.Environ(), "CGO_ENABLED=0")
		deps, err := list.Output()
		if err != nil {
			return fmt.Errorf("go list -deps %s: %w", name, err)
		}
		var times []time.Duration
		for range runs {
			d, err := api.coldStart(bin)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			times = append(times, d)
		}
		slices.Sort(times)
		fmt.Printf("%-22s %10.1f %9d %12s %12s\n", name, float64(info.Size())/(1<<20), bytes.Count(deps, []byte("\n")),
			times[len(times)/2].Round(10*time.Microsecond), times[len(times)*9/10].Round(10*time.Microsecond))
	}
	return nil
}

func functionNames(only string) ([]string, error) {
	if only != "" {
		return strings.Split(only, ","), nil
	}
	entries, err := os.ReadDir("functions")
	if err != nil {
		return nil, fmt.Errorf("run from the repository root: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// fakeRuntimeAPI answers the first /next of each process with a response that
// makes the Lambda runtime library exit (no invocation body), and records when
// that request arrived.
type fakeRuntimeAPI struct {
	ln  net.Listener
	srv *http.Server

	mu      sync.Mutex
	arrived chan time.Time
}

func newFakeRuntimeAPI() (*fakeRuntimeAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	a := &fakeRuntimeAPI{ln: ln, arrived: make(chan time.Time, 1)}
	a.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/runtime/invocation/next") {
			select {
			case a.arrived <- time.Now():
			default:
			}
		}
		// The process is killed once /next arrived; a slow answer keeps it there.
		time.Sleep(2 * time.Second)
		w.WriteHeader(http.StatusInternalServerError)
	})}
	go a.srv.Serve(ln)
	return a, nil
}

func (a *fakeRuntimeAPI) Close() { a.srv.Close() }

// coldStart runs bin once and returns the time from exec to its first /next.
func (a *fakeRuntimeAPI) coldStart(bin string) (time.Duration, error) {
	cmd := exec.Command(bin)
	cmd.Env = append(functionEnv(), "AWS_LAMBDA_RUNTIME_API="+a.ln.Addr().String())
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case at := <-a.arrived:
		cmd.Process.Kill()
		<-exited
		return at.Sub(start), nil
	case err := <-exited:
		return 0, fmt.Errorf("exited before asking for an invocation (%v): %s", err, stderr.String())
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
		return 0, fmt.Errorf("no /next within 30 s: %s", stderr.String())
	}
}

// functionEnv is the configuration template.yaml gives every function, with
// endpoints on 127.0.0.1 (static local credentials, nothing dialled at init).
func functionEnv() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"AWS_LAMBDA_FUNCTION_NAME=coldstart", "AWS_LAMBDA_FUNCTION_VERSION=1", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512",
		"AWS_REGION=us-east-1", "SESSION_SECRET=coldstart-session-secret-of-32-bytes",
		"JOBS_TABLE=jobs", "USAGE_TABLE=usage", "ACCOUNTS_TABLE=accounts", "API_KEYS_TABLE=keys", "AUDIO_BUCKET=audio",
		"TRANSCRIPTION_QUEUE_URL=http://127.0.0.1:9/q/t", "DERIVED_QUEUE_URL=http://127.0.0.1:9/q/d", "CALLBACK_QUEUE_URL=http://127.0.0.1:9/q/c",
		"AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:9", "AWS_ENDPOINT_URL_S3=http://127.0.0.1:9", "AWS_ENDPOINT_URL_SQS=http://127.0.0.1:9",
		"TRANSCRIBER=aws-transcribe", "SUMMARIZER=bedrock", "TAGGER=bedrock", "LOG_LEVEL=error",
	}
}
