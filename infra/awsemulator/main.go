// Command awsemulator runs callscribe the way it runs on AWS, on one machine
// (`make run-aws-local`): it starts DynamoDB Local, local-aws-sqs and gofakes3
// (shared/testkit/awstest), creates the tables, queues and bucket, and then
//
//   - serves the API on LISTEN_ADDR like API Gateway's HTTP API: each request is
//     matched by method and path template to its Lambda function
//     (shared/transport/lambdaapi/inventory.Functions, the same inventory as
//     template.yaml), turned into an API Gateway v2 event and handed to that
//     function's handler;
//     requests no route matches go to the $default (fallback) function;
//
//   - runs the SQS-triggered workers by polling their local queues and invoking
//     their handlers with SQS events, honouring batch item failures;
//
//   - stands in for Cognito: POST /dashboard/signup and /dashboard/login work as
//     in `make run` (accounts in DynamoDB, sessions signed with SESSION_SECRET),
//     and the local JWT authorizer verifies those session tokens on the usage and
//     api-keys routes and passes the account as the `sub` claim, which is what
//     the functions read on AWS. An invalid token reaches the function without
//     claims and gets the spec's 401; on AWS, API Gateway itself answers
//     {"message":"Unauthorized"} before the function runs.
//
//   - stands in for Amazon Transcribe (package transcribe below this one): with
//     TRANSCRIBER unset it runs the template's default, aws-transcribe, whose
//     adapter talks to a local Transcribe batch API that decodes with the
//     embedded speech engine (TRANSCRIBE_CHECK_AFTER defaults to 1 s here).
//
// It reads the same settings as `make run` (LISTEN_ADDR, QUOTA_MINUTES,
// CALLBACK_ALLOW_HOSTS, CALLBACK_BACKOFF_BASE, TRANSCRIBER, WORKERS, ...). State
// lives in the in-memory local servers and is gone when the process stops; the
// servers are stopped on exit. Lambda's 6 MB request limit is not emulated.
//
// With AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL_SQS set (the SDK's own
// variables) it uses the DynamoDB or SQS server already running there instead
// of starting one, and leaves it running: a DynamoDB Local started with
// -dbPath keeps the tables, and so the accounts and jobs, across restarts.
// RESOURCE_PREFIX (default callscribe) begins the names of its tables, queues
// and bucket, so several emulations can share one server (the tests do).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"sync"
	"syscall"
	"time"

	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/callscribe/callscribe/shared/adapters/dynamodb"
	"github.com/callscribe/callscribe/shared/adapters/s3"
	"github.com/callscribe/callscribe/shared/adapters/sqs"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/service/identity"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/stack/awsstack/derivedengines"
	"github.com/callscribe/callscribe/shared/stack/awsstack/transcriptionengines"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/testkit/awstest"
	"github.com/callscribe/callscribe/shared/transport/httpapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/workers"
)

// providers is every provider the deployed workers offer (the speech and
// insight tables together: one process runs all the workers here), plus the
// deterministic engine in test builds (addTestEngine, see testengine.go).
func providers() engines.Table[*awsstack.AWS] {
	t := transcriptionengines.EngineTable()
	t.Summarizers, t.Taggers = derivedengines.EngineTable().Summarizers, derivedengines.EngineTable().Taggers
	addTestEngine(t)
	return t
}

// defaultResourcePrefix begins the local resources' names (the template lets
// CloudFormation name them on AWS): callscribe_jobs, callscribe-transcription,
// callscribe-audio, ...
const defaultResourcePrefix = "callscribe"

// resourcePrefixPattern keeps a prefix valid in a table, a queue and a bucket
// name alike (S3's rules are the narrowest: lower case, digits and hyphens).
var resourcePrefixPattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,29}$`)

// resourcePrefix checks RESOURCE_PREFIX's value.
func resourcePrefix(prefix string) (string, error) {
	if prefix == "" {
		return defaultResourcePrefix, nil
	}
	if !resourcePrefixPattern.MatchString(prefix) {
		return "", fmt.Errorf("configuration: RESOURCE_PREFIX=%q: want a lower-case letter, then up to 29 lower-case letters, digits or hyphens", prefix)
	}
	return prefix, nil
}

func main() {
	cfg, err := config.ConfigFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	prefix, err := resourcePrefix(os.Getenv("RESOURCE_PREFIX"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defaultTranscriber(&cfg, os.Getenv("TRANSCRIBER"))
	logger := config.NewLogger(cfg.LogLevel)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, prefix, logger); err != nil {
		logger.Error("awsemulator stopped with an error", "err", err)
		os.Exit(1)
	}
	logger.Info("awsemulator stopped")
}

func run(ctx context.Context, cfg config.Config, prefix string, logger *slog.Logger) error {
	started := time.Now()
	servers, err := awstest.Start(ctx, awstest.Options{DynamoDB: true, SQS: true, S3: true,
		DynamoDBAt: cfg.DynamoDBEndpoint, SQSAt: cfg.SQSEndpoint})
	if err != nil {
		return fmt.Errorf("starting the local AWS servers: %w", err)
	}
	defer servers.Stop()
	logger.Info("local AWS servers ready", "dynamodb", servers.DynamoDBEndpoint, "sqs", servers.SQSEndpoint, "s3", servers.S3Endpoint, "ms", time.Since(started).Milliseconds())

	if cfg.SessionSecret == "" {
		// State lives only as long as this process, so a per-run secret is enough.
		buf := make([]byte, 32)
		if _, err := rand.Read(buf); err != nil {
			return err
		}
		cfg.SessionSecret = hex.EncodeToString(buf)
	}
	if err := provision(ctx, servers, prefix, &cfg, sqs.QueueOptions{}); err != nil {
		return err
	}
	if cfg.Transcriber == "aws-transcribe" {
		stopTranscribe, err := startTranscribe(servers, &cfg, logger)
		if err != nil {
			return err
		}
		// Deferred after servers.Stop, so it runs before it: the stand-in
		// reads and writes the S3 stand-in until it stops.
		defer stopTranscribe()
	}
	// Listening first: the Cognito stand-in's endpoint is on this address.
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listening on LISTEN_ADDR=%s: %w", cfg.ListenAddr, err)
	}
	cfg.CognitoEndpoint = "http://" + ln.Addr().String() + cognitoPath
	cfg.CognitoClientID = localClientID
	backend, err := awsstack.Open(ctx, cfg, logger)
	if err != nil {
		ln.Close()
		return err
	}

	sessions := identity.NewSessions([]byte(cfg.SessionSecret), identity.SessionTTL, time.Now)
	// The player streams presigned links from the S3 stand-in's origin.
	gw, err := newGateway(backend, sessions, servers.S3Endpoint, logger)
	if err != nil {
		ln.Close()
		return err
	}
	gw.cognito = &cognitoStandIn{service: backend.Service, sessions: sessions}
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	if err := startWorkers(workCtx, &wg, backend, servers, cfg, logger, providers(), nil); err != nil {
		stopWork()
		ln.Close()
		return err
	}
	srv := httpapi.NewHTTPServer(gw)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	logger.Info("callscribe (AWS emulation) is listening", "url", "http://"+ln.Addr().String(), "transcriber", cfg.Transcriber, "startup_ms", time.Since(started).Milliseconds())

	select {
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		err = srv.Shutdown(shutdownCtx)
		cancel()
	case err = <-serveErr:
	}
	stopWork()
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// provision creates the tables, queues (with queueOpts: tests shorten the
// visibility timeout) and bucket whose names begin with prefix, unless they
// exist, and points cfg at them.
func provision(ctx context.Context, servers *awstest.Servers, prefix string, cfg *config.Config, queueOpts sqs.QueueOptions) error {
	tables := dynamodb.PrefixedTableNames(prefix + "_")
	if err := dynamodb.CreateTables(ctx, ddb.NewFromConfig(servers.DynamoDBConfig()), tables); err != nil {
		return err
	}
	names := []string{prefix + "-" + inventory.QueueTranscription, prefix + "-" + inventory.QueueDerived, prefix + "-" + inventory.QueueCallback}
	qs, err := sqs.CreateQueues(ctx, awssqs.NewFromConfig(servers.SQSConfig()), names, queueOpts)
	if err != nil {
		return err
	}
	s3c := awss3.NewFromConfig(servers.S3Config(), func(o *awss3.Options) { o.UsePathStyle = true })
	bucket := prefix + "-audio"
	if err := s3.CreateBucket(ctx, s3c, bucket); err != nil {
		return err
	}
	cfg.JobsTable, cfg.UsageTable, cfg.AccountsTable, cfg.APIKeysTable = tables.Jobs, tables.Usage, tables.Accounts, tables.APIKeys
	cfg.IdempotencyTable = tables.Idempotency
	cfg.SigningSecretsTable = tables.SigningSecrets
	cfg.SearchTable = tables.Search
	cfg.AudioBucket = bucket
	cfg.TranscriptionQueueURL = qs[names[0]].URL
	cfg.DerivedQueueURL = qs[names[1]].URL
	cfg.CallbackQueueURL = qs[names[2]].URL
	cfg.DynamoDBEndpoint, cfg.SQSEndpoint, cfg.S3Endpoint = servers.DynamoDBEndpoint, servers.SQSEndpoint, servers.S3Endpoint
	cfg.AWSRegion = awstest.Region
	return nil
}

// workerInvoke hands one SQS message to a worker function; a non-nil error
// leaves the message invisible until its visibility timeout, as a failed or
// killed Lambda invocation does.
type workerInvoke func(ctx context.Context, m types.Message) error

// startWorkers polls each worker function's queue (the event source mapping's
// job on AWS) with WORKERS messages in flight per queue, building the
// functions' engines from table. wrap, if not nil, stands between the poller
// and each function, so a test can stop an invocation midway (a Lambda killed
// mid-job) or make it fail.
func startWorkers(ctx context.Context, wg *sync.WaitGroup, backend *awsstack.AWS, servers *awstest.Servers, cfg config.Config, logger *slog.Logger,
	table engines.Table[*awsstack.AWS], wrap func(f inventory.Function, invoke workerInvoke) workerInvoke) error {
	client := awssqs.NewFromConfig(servers.SQSConfig())
	urls := map[string]string{
		inventory.QueueTranscription: cfg.TranscriptionQueueURL,
		inventory.QueueDerived:       cfg.DerivedQueueURL,
		inventory.QueueCallback:      cfg.CallbackQueueURL,
	}
	for _, f := range inventory.Functions {
		if !f.IsWorker() {
			continue
		}
		h, _, err := workers.Handler(f, backend, table)
		if err != nil {
			return fmt.Errorf("function %s: %w", f.Name, err)
		}
		log := logger.With("function", f.Name)
		invoke := workerInvoke(invokeWorker(h, urls[f.Queue]))
		if wrap != nil {
			invoke = wrap(f, invoke)
		}
		p := &sqs.Poller{
			Client:      client,
			QueueURL:    urls[f.Queue],
			Handle:      invoke,
			Concurrency: cfg.Workers,
			OnError:     func(err error) { log.Warn("worker message not acknowledged", "err", err) },
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = p.Run(ctx)
		}()
	}
	return nil
}
