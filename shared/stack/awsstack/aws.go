// Package awsstack wires the service to DynamoDB, S3 and SQS as one Lambda
// function sees it: the AWS SDK configuration is loaded once per execution
// environment, each client is built once from it, and the stores, the queue
// router and the jobs service sit on those clients. It builds no provider: the
// worker functions' engine tables (packages transcriptionengines and
// derivedengines below this one) build theirs from the same configuration and clients, so
// an API function links no speech or LLM SDK at all. It imports no transport
// either: the HTTP handlers' wiring is package lambdaapi's, so the workers
// link no HTTP code.
package awsstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/callscribe/callscribe/shared/adapters/dynamodb"
	"github.com/callscribe/callscribe/shared/adapters/s3"
	"github.com/callscribe/callscribe/shared/adapters/sqs"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/callback"
	"github.com/callscribe/callscribe/shared/service/jobs"
	"github.com/callscribe/callscribe/shared/stack/config"
)

// AWS is the service wired to DynamoDB, S3 and SQS, as one Lambda function sees
// it. Open builds only clients and stores (cheap, no network).
type AWS struct {
	Config config.Config
	Logger *slog.Logger
	// SDK is the AWS SDK configuration, loaded once; S3 the one S3 client
	// (provider factories reuse both rather than load their own).
	SDK      aws.Config
	S3       *awss3.Client
	Jobs     *dynamodb.JobStore
	Accounts *dynamodb.AccountStore
	Audio    *s3.AudioStore
	// Queue routes each message kind to its own queue; kinds whose queue URL is
	// not configured (the function does not send them) are refused.
	Queue sqs.Router
	// Service is the use-case layer over these stores, shared by the API
	// handlers and the workers.
	Service *jobs.Service
	// Webhooks signs callbacks and records their attempts: signing secrets
	// need SIGNING_SECRETS_TABLE (the callback worker and the API-key
	// routes' function), the attempts only the jobs table.
	Webhooks *callback.Webhooks
}

// Open wires the AWS adapters from cfg. SESSION_SECRET is required: it keys
// the list cursors, which must verify on every function instance.
func Open(ctx context.Context, cfg config.Config, logger *slog.Logger) (*AWS, error) {
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

	tables := dynamodb.TableNames{Jobs: cfg.JobsTable, Usage: cfg.UsageTable, Accounts: cfg.AccountsTable, APIKeys: cfg.APIKeysTable, Idempotency: cfg.IdempotencyTable, SigningSecrets: cfg.SigningSecretsTable, Search: cfg.SearchTable}
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
		SDK:      awsCfg,
		S3:       s3c,
		Jobs:     dynamodb.NewJobStore(dynamo, tables, retention),
		Accounts: dynamodb.NewAccountStore(dynamo, tables),
		Audio:    s3.NewAudioStore(s3c, cfg.AudioBucket),
		Queue:    router,
	}
	deps := jobs.Deps{
		Jobs: a.Jobs, Accounts: a.Accounts, Audio: a.Audio, Queue: router, Uploads: uploadSigner{a.Audio}, AudioLinks: a.Audio, Logger: logger,
	}
	// Only the create functions are told the idempotency table; the others
	// never read the Idempotency-Key header.
	if cfg.IdempotencyTable != "" {
		deps.Idempotency = dynamodb.NewIdempotencyStore(dynamo, tables)
	}
	a.Webhooks = callback.NewWebhooks(dynamodb.NewWebhookStore(dynamo, tables), nil)
	a.Service = jobs.New(deps, jobs.Config{QuotaMinutes: cfg.QuotaMinutes, CallbackAllowHosts: cfg.CallbackAllowHosts, RedactPII: cfg.RedactPII})
	return a, nil
}

// awsConfig is the default credential chain on AWS. With any endpoint override
// (the local stack) it is built by hand with static dummy credentials: the
// default chain would pick up a developer's real profile, and it reads
// AWS_CA_BUNDLE, which breaks plain-http clients on our machines.
func awsConfig(ctx context.Context, cfg config.Config) (aws.Config, error) {
	if cfg.DynamoDBEndpoint != "" || cfg.S3Endpoint != "" || cfg.SQSEndpoint != "" || cfg.TranscribeEndpoint != "" {
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

// uploadSigner adapts the S3 store's presigned POST to callscribe.UploadSigner.
type uploadSigner struct{ store *s3.AudioStore }

func (u uploadSigner) SignUpload(ctx context.Context, key string, maxBytes int64, expiry time.Duration) (string, map[string]string, error) {
	return u.store.PresignUpload(ctx, key, maxBytes, expiry)
}
