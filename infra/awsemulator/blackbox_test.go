package main

// Black-box test of the AWS emulation: the binary is built once with the
// testengine tag, started as a child process (it starts and stops its own local
// AWS servers), and driven over HTTP by the same suite as the local binary
// (shared/testkit/apitest). Every request therefore goes HTTP -> API Gateway v2 event ->
// the route's Lambda handler -> DynamoDB Local / gofakes3 / local-aws-sqs, and
// every job through the SQS-triggered worker handlers.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/testkit/apitest"
	"github.com/callscribe/callscribe/shared/testkit/awstest"
)

const quotaMinutes = 5

type service struct {
	addr string
	// logPath is the file that captures the process's output.
	logPath string
	// stop sends SIGTERM and waits for the process; the test's cleanup
	// calls it too.
	stop func()
}

func (s *service) BaseURL() string { return "http://" + s.addr }

// binaries are the emulator built once per set of build tags for the
// tests, which run in parallel.
var binaries = apitest.Binaries{Name: "callscribe-awsemulator"}

// One DynamoDB Local (make test's, when it runs one: awstest.WithSharedServers)
// and one local-aws-sqs serve every test's emulation, each under a resource
// prefix of its own (RESOURCE_PREFIX): a JVM apiece cost about 3 CPU-seconds to
// start and as many again to warm up.
var (
	sharedOnce     sync.Once
	sharedServers  *awstest.Servers
	sharedErr      error
	sharedPrefixes atomic.Int64
)

// localServers starts the shared servers on first use.
func localServers(t *testing.T) *awstest.Servers {
	t.Helper()
	sharedOnce.Do(func() {
		sharedServers, sharedErr = awstest.Start(context.Background(), awstest.WithSharedServers(awstest.Options{DynamoDB: true, SQS: true}))
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedServers
}

// testResourcePrefix is a RESOURCE_PREFIX no other test uses.
func testResourcePrefix() string { return fmt.Sprintf("test%d", sharedPrefixes.Add(1)) }

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedServers != nil {
		sharedServers.Stop()
	}
	binaries.Remove()
	os.Exit(code)
}

// startService starts the binary built with the given build tags ("" for the
// one `make run-aws-local` runs) with the test engine selected, unless
// extraEnv says otherwise; it is stopped with SIGTERM when the test ends.
// Each service has its own tables and queues on the shared servers (a
// RESOURCE_PREFIX of its own, unless extraEnv names one) and its own
// in-process S3, so the tests that start one can run in parallel.
func startService(t *testing.T, tags string, extraEnv ...string) *service {
	t.Helper()
	bin := binaries.Build(t, tags)
	servers := localServers(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "service.log")
	s := &service{addr: apitest.FreeAddr(t), logPath: logPath}
	logs, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"LISTEN_ADDR="+s.addr,
		"TRANSCRIBER=test",
		fmt.Sprintf("QUOTA_MINUTES=%d", quotaMinutes),
		"LOG_LEVEL=warn",
		"SESSION_SECRET=",
		"GATEWAY_KEY=",
		"WORKERS=4",
		"CALLBACK_BACKOFF_BASE=50ms",
		"CALLBACK_ALLOW_HOSTS=127.0.0.1",
		"AWS_ENDPOINT_URL_DYNAMODB="+servers.DynamoDBEndpoint,
		"AWS_ENDPOINT_URL_SQS="+servers.SQSEndpoint,
		"RESOURCE_PREFIX="+testResourcePrefix(),
	)
	cmd.Env = append(cmd.Env, extraEnv...)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	var stopOnce sync.Once
	s.stop = func() {
		stopOnce.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
		})
	}
	t.Cleanup(func() {
		s.stop()
		logs.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				if len(b) > 8<<10 {
					b = b[len(b)-8<<10:]
				}
				t.Logf("service log, last 8 KiB:\n%s", b)
			}
		}
	})
	deadline := time.Now().Add(90 * time.Second)
	hc := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-done:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("service exited during start-up:\n%s", b)
		default:
		}
		if resp, err := hc.Get(s.BaseURL() + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("service not healthy after 90s:\n%s", bytes.TrimSpace(b))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestBlackBoxAWSLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary with the local AWS servers")
	}
	// Not in parallel: its browser suites wait on timeouts that the
	// real-engine decodes beside them on two cores could exceed. Serial
	// tests run before the parallel ones start.
	svc := startService(t, "testengine")
	opts := apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: 90 * time.Second, RateLimitBurst: config.DefaultRateLimitBurst}
	apitest.Run(t, svc, opts)
	apitest.RunCallbacks(t, svc, opts)
	t.Run("Probe", func(t *testing.T) { apitest.RunProbe(t, svc, apitest.ProbeOptions{Options: opts, AWS: true}) })
	t.Run("DashboardInABrowser", func(t *testing.T) { apitest.RunDashboardE2E(t, svc, "cognito", true) })
	t.Run("UsageInABrowser", func(t *testing.T) { apitest.RunUsageE2E(t, svc) })
	// Words, sentiment and metrics on a call with known overlap and gaps,
	// through the Lambda handlers and the stored result. The test engine, as
	// in infra/embeddedserver's TestBlackBox: the embedded engine behind the
	// local Amazon Transcribe would take 10 s or more over this call.
	t.Run("TimedCall", func(t *testing.T) {
		apitest.RunTimedCall(t, svc, opts, apitest.SynthesizeTimedCall(t).WithSentiment(), apitest.TestEngineTolerances)
	})
}

// TestBlackBoxAWSLocalRealEngine runs the binary `make run-aws-local` runs (no
// test tags, TRANSCRIBER unset: aws-transcribe against the local Amazon
// Transcribe, which decodes with the embedded engine) on a synthesised call,
// so the aws-transcribe adapter's own code path turns real speech into the
// transcript.
func TestBlackBoxAWSLocalRealEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary with the local AWS servers and the embedded speech engine")
	}
	t.Parallel()
	call := apitest.SynthesizeCall(t, apitest.BillingCall, []string{"calling", "help"}, []string{"charged", "twice"})
	svc := startService(t, "", "TRANSCRIBER=", "SUMMARIZER=", "TAGGER=", "WORKERS=1", "AGENT_CHANNEL=")
	apitest.RunRealCall(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: apitest.RealCallTimeout}, call)
}

// TestBlackBoxAWSLocalRedactionMP3RealEngine runs the binary `make
// run-aws-local` runs on a synthesised call that reads out a card number, a
// phone number and an e-mail address, uploaded as an 8 kHz MP3 with
// redact_pii=true: the aws-transcribe adapter asks the local Amazon Transcribe
// for content redaction, which the stand-in applies to the embedded engine's
// words (the test engine's fixed lines hold no personal data); the pipeline
// tones the audio, stores the toned WAV rendition in S3 and deletes the MP3,
// and playback serves the rendition. The emulation's stores are in memory,
// so the files searched afterwards are the captured debug-level log and the
// service's temporary directory; what the stores hold is read through the API.
//
// The MP3 upload takes every step a WAV upload does (redaction of the
// engine's words through the stand-in, the toned audio in S3) and its own
// besides. A WAV upload's redaction on this stack is checked in process by
// package transcribe (TestContentRedactionOnRealSpeech) and on the embedded
// stack by infra/embeddedserver; each decode here costs some 17 CPU-seconds.
func TestBlackBoxAWSLocalRedactionMP3RealEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary with the local AWS servers and the embedded speech engine")
	}
	t.Parallel()
	call := apitest.SynthesizePIICall(t).MP3(t)
	tmp := t.TempDir()
	svc := startService(t, "", "TRANSCRIBER=", "SUMMARIZER=", "TAGGER=", "WORKERS=1", "AGENT_CHANNEL=",
		"LOG_LEVEL=debug", "TMPDIR="+tmp, "REDACT_PII=")
	apitest.RunRedactedCall(t, svc, apitest.Options{QuotaMinutes: quotaMinutes, JobTimeout: apitest.RealCallTimeout}, call,
		func() []string { return []string{svc.logPath, tmp} })
}

// On a DynamoDB already running (AWS_ENDPOINT_URL_DYNAMODB, as for a
// DynamoDB Local with -dbPath), what the tables hold outlives the emulation:
// started again with the same RESOURCE_PREFIX, it logs the account in and
// serves its keys and jobs.
func TestBlackBoxAWSLocalKeepsTablesOnARunningDynamoDB(t *testing.T) {
	if testing.Short() {
		t.Skip("black-box suite: builds and runs the binary with the local AWS servers")
	}
	t.Parallel()
	prefix := "restart" + testResourcePrefix()
	first := startService(t, "testengine", "RESOURCE_PREFIX="+prefix)
	email, password := "restart@example.com", "long-enough-password"
	call := func(svc *service, method, path, bearer string, body any, want int) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, svc.BaseURL()+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d %v, want %d", method, path, resp.StatusCode, out, want)
		}
		return out
	}
	call(first, http.MethodPost, "/dashboard/signup", "", map[string]string{"email": email, "password": password}, http.StatusCreated)
	token, _ := call(first, http.MethodPost, "/dashboard/login", "", map[string]string{"email": email, "password": password}, http.StatusOK)["token"].(string)
	key, _ := call(first, http.MethodPost, "/dashboard/api-keys", token, nil, http.StatusCreated)["api_key"].(string)
	job, _ := call(first, http.MethodPost, "/v1/summarize", key, map[string]string{"transcript_text": "Agent: thank you for calling. User: my card was charged twice."}, http.StatusAccepted)["job_id"].(string)
	deadline := time.Now().Add(30 * time.Second)
	for call(first, http.MethodGet, "/v1/transcriptions/"+job, key, nil, http.StatusOK)["status"] != "succeeded" {
		if time.Now().After(deadline) {
			t.Fatalf("summary job %s did not succeed within 30 s", job)
		}
		time.Sleep(100 * time.Millisecond)
	}
	first.stop()

	again := startService(t, "testengine", "RESOURCE_PREFIX="+prefix)
	call(again, http.MethodPost, "/dashboard/login", "", map[string]string{"email": email, "password": password}, http.StatusOK)
	got := call(again, http.MethodGet, "/v1/transcriptions/"+job, key, nil, http.StatusOK)
	if got["status"] != "succeeded" || got["result"] == nil {
		t.Errorf("the job after the restart: %v, want it succeeded with its result", got)
	}
	// A prefix of its own sees none of it.
	other := startService(t, "testengine")
	call(other, http.MethodPost, "/dashboard/login", "", map[string]string{"email": email, "password": password}, http.StatusUnauthorized)
}
