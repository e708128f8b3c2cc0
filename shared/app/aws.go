package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/callscribe/callscribe/shared/callback"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/dynamodb"
	"github.com/callscribe/callscribe/shared/httpapi"
	"github.com/callscribe/callscribe/shared/identity"
	"github.com/callscribe/callscribe/shared/jobs"
	"github.com/callscribe/callscribe/shared/pipeline"
	"github.com/callscribe/callscribe/shared/s3"
	"github.com/callscribe/callscribe/shared/sqs"
)

// AWS is the service wired to DynamoDB, S3 and SQS, as one Lambda function sees
// it. OpenAWS builds only clients and stores (cheap, no network); the engines are
// built by Worker, so API functions never load a speech provider.
type AWS struct {
	Config   Config
	Logger   *slog.Logger
	Jobs     *dynamodb.JobStore
	Accounts *dynamodb.AccountStore
	Audio    *s3.AudioStore
	// Queue routes each message kind to its own queue; kinds whose queue URL is
	// not configured (the function does not send them) are refused.
	Queue sqs.Router
	// Service is the use-case layer over these stores, shared by the API
	// handlers and the workers.
	Service *jobs.Service

	deps httpapi.Deps
	api  httpapi.Config
}

// OpenAWS wires the AWS adapters from cfg. SESSION_SECRET is required: it keys
// the list cursors, which must verify on every function instance.
func OpenAWS(ctx context.Context, cfg Config, logger *slog.Logger) (*AWS, error) {
	if cfg.SessionSecret == "" {
		return nil, errors.New("SESSION_SECRET is required on AWS (it signs list cursors)")
	}
	awsCfg, err := awsConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	dynamo := ddb.NewFromConfig(awsCfg, func(o *ddb.Options) {
		if cfg.DynamoDBEndpoint != "" {
			o.BaseEndpoint = aws.String(cfg.DynamoDBEndpoint)
		}
	})
	s3c := awss3.NewFromConfig(awsCfg, func(o *awss3.Options) {
		if cfg.S3Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.S3Endpoint)
			// Local S3 servers have no per-bucket DNS names.
			o.UsePathStyle = true
		}
	})
	sqsc := awssqs.NewFromConfig(awsCfg, func(o *awssqs.Options) {
		if cfg.SQSEndpoint != "" {
			o.BaseEndpoint = aws.String(cfg.SQSEndpoint)
		}
	})

	tables := dynamodb.TableNames{Jobs: cfg.JobsTable, Usage: cfg.UsageTable, Accounts: cfg.AccountsTable, APIKeys: cfg.APIKeysTable}
	retention := time.Duration(cfg.RetentionDays) * 24 * time.Hour
	router := sqs.Router{}
	for kind, url := range map[callscribe.MessageKind]string{
		callscribe.KindTranscribe:      cfg.TranscriptionQueueURL,
		callscribe.KindDerive:          cfg.DerivedQueueURL,
		callscribe.KindDeliverCallback: cfg.CallbackQueueURL,
	} {
		if url != "" {
			router[kind] = sqs.NewQueue(sqsc, url)
		}
	}
	a := &AWS{
		Config:   cfg,
		Logger:   logger,
		Jobs:     dynamodb.NewJobStore(dynamo, tables, retention),
		Accounts: dynamodb.NewAccountStore(dynamo, tables),
		Audio:    s3.NewAudioStore(s3c, cfg.AudioBucket),
		Queue:    router,
	}
	a.Service = jobs.New(jobs.Deps{
		Jobs: a.Jobs, Accounts: a.Accounts, Audio: a.Audio, Queue: router, Uploads: uploadSigner{a.Audio}, AudioLinks: a.Audio, Logger: logger,
	}, jobs.Config{QuotaMinutes: cfg.QuotaMinutes, CallbackAllowHosts: cfg.CallbackAllowHosts})
	a.deps = httpapi.Deps{Service: a.Service, Sessions: CognitoSessions{}, Logger: logger}
	a.api = httpapi.Config{
		GatewayKey: cfg.GatewayKey,
		CursorKey:  identity.DeriveKey([]byte(cfg.SessionSecret), "list-cursor"),
	}
	return a, nil
}

// awsConfig is the default credential chain on AWS. With any endpoint override
// (the local stack) it is built by hand with static dummy credentials: the
// default chain would pick up a developer's real profile, and it reads
// AWS_CA_BUNDLE, which breaks plain-http clients on our machines.
func awsConfig(ctx context.Context, cfg Config) (aws.Config, error) {
	if cfg.DynamoDBEndpoint != "" || cfg.S3Endpoint != "" || cfg.SQSEndpoint != "" {
		return aws.Config{
			Region:           cfg.AWSRegion,
			Credentials:      credentials.NewStaticCredentialsProvider("local", "local", ""),
			HTTPClient:       &http.Client{Timeout: 60 * time.Second},
			RetryMaxAttempts: 3,
		}, nil
	}
	c, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	return c, nil
}

// APIServer returns the HTTP API serving only the given routes.
func (a *AWS) APIServer(routes ...httpapi.Route) *httpapi.Server {
	return httpapi.New(a.deps, a.api, routes...)
}

// FallbackServer answers the requests no route matched (API Gateway's $default),
// knowing the deployment's routes so a wrong method gets 405 (httpapi.NewFallback).
func (a *AWS) FallbackServer(known ...httpapi.Route) *httpapi.Server {
	return httpapi.NewFallback(a.deps, a.api, known...)
}

// IdentityServer serves the given local identity routes (sign-up, sign-in) with issuer. On AWS
// Cognito owns sign-up and sign-in; the local AWS stack uses this as its stand-in,
// issuing the tokens its stand-in JWT authorizer verifies.
func (a *AWS) IdentityServer(issuer httpapi.SessionIssuer, routes ...httpapi.Route) *httpapi.Server {
	deps := a.deps
	deps.Issuer = issuer
	return httpapi.New(deps, a.api, routes...)
}

// Worker builds the pipeline worker with the engines the given message kinds
// need: only the transcription worker loads a speech provider, and the callback
// worker needs no engine at all.
func (a *AWS) Worker(kinds ...callscribe.MessageKind) (*pipeline.Worker, error) {
	w := &pipeline.Worker{
		Jobs: a.Service, Audio: a.Audio, Queue: a.Queue,
		Notifier:            callback.NewNotifier(callback.NotifierConfig{AllowHosts: a.Config.CallbackAllowHosts, Timeout: a.Config.CallbackTimeout}),
		Logger:              a.Logger,
		CallbackBackoffBase: a.Config.CallbackBackoffBase,
		CallbackTimeout:     a.Config.CallbackTimeout,
	}
	needsTranscriber := slices.Contains(kinds, callscribe.KindTranscribe)
	if needsTranscriber || slices.Contains(kinds, callscribe.KindDerive) {
		engines, err := NewEngines(a.Config, needsTranscriber)
		if err != nil {
			return nil, err
		}
		w.Transcriber, w.Summarizer, w.Tagger = engines.Transcriber, engines.Summarizer, engines.Tagger
	}
	return w, nil
}

// SQSEventHandler is the Lambda handler of an SQS-triggered function.
type SQSEventHandler func(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error)

// SQSHandler returns the handler of a worker function consuming the given kinds.
// It reports each failed record as a batch item failure (the event source mapping
// has ReportBatchItemFailures), so one bad message does not redeliver the whole
// batch; SQS redelivers only the failures and, after maxReceiveCount, moves them
// to the dead-letter queue. Redelivery is safe: the Worker is idempotent
// (compare-and-set status transitions).
func (a *AWS) SQSHandler(kinds ...callscribe.MessageKind) (SQSEventHandler, error) {
	w, err := a.Worker(kinds...)
	if err != nil {
		return nil, err
	}
	return SQSBatchHandler(w, a.Logger, kinds...), nil
}

// recordReserve is the time left for a record to be worth starting; a record not
// started is reported failed and comes back, instead of being cut off by the
// function timeout mid-way (which would fail the whole batch).
const recordReserve = 5 * time.Second

// SQSBatchHandler adapts h to SQS events. Messages of a kind outside kinds were
// sent to the wrong queue: they are reported failed so they end in the DLQ for
// inspection instead of being run by a function lacking the engine or permissions.
func SQSBatchHandler(h callscribe.MessageHandler, logger *slog.Logger, kinds ...callscribe.MessageKind) SQSEventHandler {
	return func(ctx context.Context, event events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		fail := func(id string) {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
		for _, rec := range event.Records {
			log := logger.With("messageId", rec.MessageId, "receiveCount", rec.Attributes["ApproximateReceiveCount"])
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < recordReserve {
				log.Warn("not enough time left in this invocation; leaving the message for redelivery")
				fail(rec.MessageId)
				continue
			}
			m, err := sqs.DecodeMessage(rec.Body)
			if err != nil {
				log.Error("undecodable message; it goes to the dead-letter queue after its last receive", "err", err)
				fail(rec.MessageId)
				continue
			}
			log = log.With("requestId", m.RequestID, "jobId", m.JobID, "kind", m.Kind)
			if len(kinds) > 0 && !slices.Contains(kinds, m.Kind) {
				log.Error("message of a kind this worker does not handle; it goes to the dead-letter queue after its last receive")
				fail(rec.MessageId)
				continue
			}
			if err := h.HandleMessage(ctx, m); err != nil {
				log.Warn("message failed; SQS will redeliver it", "err", err)
				fail(rec.MessageId)
			}
		}
		return resp, nil
	}
}

// CognitoSessions authenticates dashboard requests on AWS from the claims API
// Gateway's JWT authorizer verified and attached to the request context. Our code
// never sees an unverified token: API Gateway rejects requests without a valid
// Cognito JWT before invoking the function. A request with no claims (an API key,
// a misconfigured route without the authorizer) is refused all the same.
type CognitoSessions struct{}

// AuthenticateSession implements httpapi.SessionAuthenticator: the account is
// the Cognito user's `sub`.
func (CognitoSessions) AuthenticateSession(r *http.Request) (string, error) {
	rc, ok := core.GetAPIGatewayV2ContextFromContext(r.Context())
	if !ok || rc.Authorizer == nil || rc.Authorizer.JWT == nil {
		return "", identity.ErrInvalidSession
	}
	sub := rc.Authorizer.JWT.Claims["sub"]
	if sub == "" {
		return "", identity.ErrInvalidSession
	}
	return sub, nil
}

// uploadSigner adapts the S3 store's presigned POST to httpapi.UploadSigner.
type uploadSigner struct{ store *s3.AudioStore }

func (u uploadSigner) SignUpload(ctx context.Context, key string, maxBytes int64, expiry time.Duration) (string, map[string]string, error) {
	return u.store.PresignUpload(ctx, key, maxBytes, expiry)
}
