package functions_test

// The sample events in events/ are fed to their functions' handlers in-process,
// against DynamoDB Local, local-aws-sqs and gofakes3, so they stay valid inputs
// for `sam local invoke <Function> -e events/<name>.json`. Regenerate them with
//
//	go test ./functions -run TestSampleEvents -update-events

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/callscribe/callscribe/infra/awsemulator/apigateway"
	"github.com/callscribe/callscribe/shared/adapters/dynamodb"
	"github.com/callscribe/callscribe/shared/adapters/s3"
	"github.com/callscribe/callscribe/shared/adapters/sqs"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/service/identity"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/stack/awsstack/derivedengines"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/testkit/apitest"
	"github.com/callscribe/callscribe/shared/testkit/awstest"
	"github.com/callscribe/callscribe/shared/testkit/testengine"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/web"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/workers"
)

var updateEvents = flag.Bool("update-events", false, "rewrite events/*.json")

// The samples' credentials: an API key the test stores for sampleAccount, and
// the Cognito sub the dashboard samples carry in their verified JWT claims.
const (
	sampleAPIKey  = "cs_sample_0123456789abcdef0123456789abcdef"
	sampleAccount = "7f9c2f4e-5b1a-4c53-9d0e-3a1b2c4d5e6f"
	sampleJobID   = "5d1e3b9a-8c7f-4e2d-b6a5-0f1e2d3c4b5a"
)

var servers *awstest.Servers

func TestMain(m *testing.M) {
	flag.Parse()
	// The template tests need no servers; start them only when events are tested.
	if !strings.Contains(flag.Lookup("test.run").Value.String(), "Template") {
		awstest.RunMain(m, awstest.Options{DynamoDB: true, SQS: true, S3: true}, func(s *awstest.Servers) { servers = s })
		return
	}
	os.Exit(m.Run())
}

// sample is one event file and what its function must answer.
type sample struct {
	file     string
	function string
	build    func() (any, error) // the event, for -update-events
	status   int                 // API: expected status
	keys     []string            // API: top-level keys of the JSON body
	code     string              // API: expected error.code, if an error
	failures int                 // SQS: expected batch item failures
	// document: the body is a document (the OpenAPI document), which carries
	// its requestId in X-Request-Id only.
	document bool
}

func apiEvent(method, target, routeKey string, pathParams map[string]string, claims map[string]string, body []byte, header http.Header) func() (any, error) {
	return func() (any, error) {
		r := httptest.NewRequest(method, "https://abc123.execute-api.us-east-1.amazonaws.com"+target, bytes.NewReader(body))
		for k, vs := range header {
			r.Header[k] = vs
		}
		r.Header.Set("User-Agent", "curl/8.5.0")
		ev, err := apigateway.EventFromRequest(r, routeKey, pathParams, claims)
		ev.RequestContext.RequestID = "sample-request-id"
		ev.RequestContext.APIID = "abc123"
		ev.RequestContext.Time = "21/Nov/2026:12:00:00 +0000"
		ev.RequestContext.TimeEpoch = 1795262400000
		ev.RequestContext.HTTP.SourceIP = "203.0.113.7"
		return ev, err
	}
}

func sqsEvent(queue string, msgs ...callscribe.Message) func() (any, error) {
	return func() (any, error) {
		var ev events.SQSEvent
		for i, m := range msgs {
			body, err := json.Marshal(m)
			if err != nil {
				return nil, err
			}
			ev.Records = append(ev.Records, events.SQSMessage{
				MessageId:     fmt.Sprintf("0000000%d-1111-2222-3333-444444444444", i+1),
				ReceiptHandle: "sample-receipt-handle",
				Body:          string(body),
				Attributes:    map[string]string{"ApproximateReceiveCount": "1", "SentTimestamp": "1795262400000"},
				MessageAttributes: map[string]events.SQSMessageAttribute{
					sqs.AttrKind:  {DataType: "String", StringValue: ptr(string(m.Kind))},
					sqs.AttrJobID: {DataType: "String", StringValue: ptr(m.JobID)},
				},
				EventSource:    "aws:sqs",
				EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:callscribe-" + queue,
				AWSRegion:      "us-east-1",
			})
		}
		return ev, nil
	}
}

func ptr[T any](v T) *T { return &v }

func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

func multipartUpload() ([]byte, http.Header) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.SetBoundary("callscribe-sample-boundary")
	fw, _ := mw.CreateFormFile("file", "call.wav")
	fw.Write(apitest.MakeWAV(0.5, 2, false))
	mw.WriteField("language", "en")
	mw.WriteField("metadata", `{"crm_id":"A-1001"}`)
	mw.Close()
	h := bearer(sampleAPIKey)
	h.Set("Content-Type", mw.FormDataContentType())
	return buf.Bytes(), h
}

func samples() []sample {
	upload, uploadHeader := multipartUpload()
	jsonHeader := func() http.Header { h := bearer(sampleAPIKey); h.Set("Content-Type", "application/json"); return h }
	jwt := map[string]string{"sub": sampleAccount, "email": "owner@example.com", "token_use": "id", "iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Sample"}
	job := map[string]string{"job_id": sampleJobID}
	return []sample{
		{file: "create.json", function: "create", status: 202, keys: []string{"job_id", "status", "received_at"},
			build: apiEvent("POST", "/v1/transcriptions", "POST /v1/transcriptions", nil, nil, upload, uploadHeader)},
		{file: "list.json", function: "list", status: 200, keys: []string{"transcriptions", "next_cursor"},
			build: apiEvent("GET", "/v1/transcriptions?limit=10&status=succeeded", "GET /v1/transcriptions", nil, nil, nil, bearer(sampleAPIKey))},
		{file: "get.json", function: "get", status: 404, code: "JOB_NOT_FOUND",
			build: apiEvent("GET", "/v1/transcriptions/"+sampleJobID, "GET /v1/transcriptions/{job_id}", job, nil, nil, bearer(sampleAPIKey))},
		{file: "delete.json", function: "delete", status: 404, code: "JOB_NOT_FOUND",
			build: apiEvent("DELETE", "/v1/transcriptions/"+sampleJobID, "DELETE /v1/transcriptions/{job_id}", job, nil, nil, bearer(sampleAPIKey))},
		{file: "usage.json", function: "usage", status: 200, keys: []string{"limit_minutes", "used_minutes", "remaining_minutes"},
			build: apiEvent("GET", "/v1/transcriptions/usage", "GET /v1/transcriptions/usage", nil, jwt, nil, bearer("eyJraWQiOi.sample.jwt"))},
		{file: "web.config.json", function: "web", status: 200, keys: []string{"identity"},
			build: apiEvent("GET", "/dashboard/config", "GET /dashboard/config", nil, nil, nil, http.Header{})},
		{file: "web.openapi.json", function: "web", status: 200, keys: []string{"openapi", "info", "paths", "components"}, document: true,
			build: apiEvent("GET", "/openapi.json", "GET /openapi.json", nil, nil, nil, http.Header{})},
		{file: "dashboard.json", function: "dashboard", status: 200, keys: []string{"transcriptions", "next_cursor"},
			build: apiEvent("GET", "/dashboard/jobs?limit=20&type=transcription", "GET /dashboard/jobs", nil, jwt, nil, bearer("eyJraWQiOi.sample.jwt"))},
		{file: "dashboard.limits.json", function: "dashboard", status: 200, keys: []string{"max_audio_bytes", "direct_upload_max_bytes", "audio_formats", "max_metadata_bytes", "default_page_size", "max_page_size"},
			build: apiEvent("GET", "/dashboard/limits", "GET /dashboard/limits", nil, jwt, nil, bearer("eyJraWQiOi.sample.jwt"))},
		// The same route with an API key and no verified claims (what a
		// misconfigured route would pass through): refused.
		{file: "usage.apikey.json", function: "usage", status: 401, code: "UNAUTHORIZED",
			build: apiEvent("GET", "/v1/transcriptions/usage", "GET /v1/transcriptions/usage", nil, nil, nil, bearer(sampleAPIKey))},
		{file: "summarize.json", function: "summarize", status: 202, keys: []string{"job_id", "type", "status", "received_at"},
			build: apiEvent("POST", "/v1/summarize", "POST /v1/summarize", nil, nil, []byte(`{"transcript_text":"Agent: Thanks for calling, how can I help?\nCustomer: I was charged twice and want a refund."}`), jsonHeader())},
		{file: "tag.json", function: "tag", status: 202, keys: []string{"job_id", "type", "status", "received_at"},
			build: apiEvent("POST", "/v1/tag", "POST /v1/tag", nil, nil, []byte(`{"transcript_text":"Agent: Thanks for calling, how can I help?\nCustomer: I was charged twice and want a refund."}`), jsonHeader())},
		{file: "taxonomy.json", function: "taxonomy", status: 200, keys: []string{"categories"},
			build: apiEvent("GET", "/v1/tags/taxonomy", "GET /v1/tags/taxonomy", nil, nil, nil, bearer(sampleAPIKey))},
		{file: "uploads.json", function: "uploads", status: 201, keys: []string{"upload_id", "url", "fields", "max_bytes", "expires_at"},
			build: apiEvent("POST", "/v1/transcriptions/uploads", "POST /v1/transcriptions/uploads", nil, nil, nil, bearer(sampleAPIKey))},
		{file: "apikeys.json", function: "apikeys", status: 201, keys: []string{"key_id", "api_key", "created_at"},
			build: apiEvent("POST", "/dashboard/api-keys", "POST /dashboard/api-keys", nil, jwt, nil, bearer("eyJraWQiOi.sample.jwt"))},
		{file: "apikeys.list.json", function: "apikeys", status: 200, keys: []string{"api_keys"},
			build: apiEvent("GET", "/dashboard/api-keys", "GET /dashboard/api-keys", nil, jwt, nil, bearer("eyJraWQiOi.sample.jwt"))},
		{file: "apikeys.revoke.json", function: "apikeys", status: 404,
			build: apiEvent("DELETE", "/dashboard/api-keys/"+sampleJobID, "DELETE /dashboard/api-keys/{key_id}", map[string]string{"key_id": sampleJobID}, jwt, nil, bearer("eyJraWQiOi.sample.jwt"))},
		{file: "fallback.json", function: "fallback", status: 405, code: "METHOD_NOT_ALLOWED",
			build: apiEvent("POST", "/v1/transcriptions/usage", "$default", nil, nil, nil, bearer(sampleAPIKey))},
		{file: "fallback.missing-job-id.json", function: "fallback", status: 400, code: "MISSING_JOB_ID",
			build: apiEvent("GET", "/v1/transcriptions/", "$default", nil, nil, nil, bearer(sampleAPIKey))},
		// Workers: messages for a job that no longer exists are acknowledged
		// (dropped), the idempotent outcome of a redelivery after deletion.
		{file: "transcription-worker.json", function: "transcription-worker",
			build: sqsEvent("transcription", callscribe.Message{Kind: callscribe.KindTranscribe, JobID: sampleJobID, RequestID: "sample-request-id"})},
		{file: "derived-worker.json", function: "derived-worker",
			build: sqsEvent("derived", callscribe.Message{Kind: callscribe.KindDerive, JobID: sampleJobID, RequestID: "sample-request-id"})},
		{file: "callback-worker.json", function: "callback-worker",
			build: sqsEvent("callback", callscribe.Message{Kind: callscribe.KindDeliverCallback, JobID: sampleJobID, Attempt: 2, CallbackMsgID: "3c6e0b8a-9f1d-4e7b-a2c5-8d9e0f1a2b3c", RequestID: "sample-request-id"})},
		// A message of a kind the worker does not handle is reported failed (it
		// ends in the DLQ), the other record of the batch succeeds.
		{file: "callback-worker.misrouted.json", function: "callback-worker", failures: 1,
			build: sqsEvent("callback",
				callscribe.Message{Kind: callscribe.KindDeliverCallback, JobID: sampleJobID, Attempt: 1, CallbackMsgID: "3c6e0b8a-9f1d-4e7b-a2c5-8d9e0f1a2b3c"},
				callscribe.Message{Kind: callscribe.KindTranscribe, JobID: sampleJobID})},
	}
}

// localStack creates fresh tables, queues and a bucket and returns the
// configuration pointing OpenAWS at them.
func localStack(t *testing.T) config.Config {
	t.Helper()
	ctx := context.Background()
	prefix := fmt.Sprintf("ev%d_", time.Now().UnixNano())
	tables := dynamodb.PrefixedTableNames(prefix)
	if err := dynamodb.CreateTables(ctx, ddb.NewFromConfig(servers.DynamoDBConfig()), tables); err != nil {
		t.Fatal(err)
	}
	qs, err := sqs.CreateQueues(ctx, awssqs.NewFromConfig(servers.SQSConfig()), []string{prefix + "transcription", prefix + "derived", prefix + "callback"}, sqs.QueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bucket := strings.ReplaceAll(strings.TrimSuffix(prefix, "_"), "_", "-") + "-audio"
	s3c := awss3.NewFromConfig(servers.S3Config(), func(o *awss3.Options) { o.UsePathStyle = true })
	if err := s3.CreateBucket(ctx, s3c, bucket); err != nil {
		t.Fatal(err)
	}
	return config.Config{
		QuotaMinutes: 5, RetentionDays: 30, SessionSecret: "sample-session-secret-0123456789abcdef",
		Transcriber: "test", Summarizer: "builtin", Tagger: "builtin",
		CallbackBackoffBase: 10 * time.Millisecond, CallbackTimeout: 2 * time.Second,
		JobsTable: tables.Jobs, UsageTable: tables.Usage, AccountsTable: tables.Accounts, APIKeysTable: tables.APIKeys, IdempotencyTable: tables.Idempotency, SearchTable: tables.Search,
		AudioBucket:           bucket,
		TranscriptionQueueURL: qs[prefix+"transcription"].URL, DerivedQueueURL: qs[prefix+"derived"].URL, CallbackQueueURL: qs[prefix+"callback"].URL,
		DynamoDBEndpoint: servers.DynamoDBEndpoint, S3Endpoint: servers.S3Endpoint, SQSEndpoint: servers.SQSEndpoint, AWSRegion: awstest.Region,
		LogLevel: 8, // errors only
	}
}

// testProviders are the workers' tables with the deterministic engine as
// TRANSCRIBER=test, so the transcription sample runs without AWS Transcribe.
func testProviders() engines.Table[*awsstack.AWS] {
	t := derivedengines.EngineTable()
	t.Transcribers = map[string]engines.Factory[*awsstack.AWS, callscribe.Transcriber]{
		"test": func(a *awsstack.AWS) (callscribe.Transcriber, func(), error) {
			return &testengine.Engine{AgentChannel: a.Config.AgentChannel}, nil, nil
		},
	}
	return t
}

func TestSampleEvents(t *testing.T) {
	all := samples()
	if *updateEvents {
		for _, s := range all {
			ev, err := s.build()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.MarshalIndent(ev, "", "  ")
			if err := os.WriteFile(filepath.Join("..", "events", s.file), append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Every function has at least one sample, and every file is covered.
	covered := map[string]bool{}
	for _, s := range all {
		covered[s.function] = true
	}
	for _, f := range inventory.Functions {
		if !covered[f.Name] {
			t.Errorf("function %s has no sample event", f.Name)
		}
	}
	files, _ := filepath.Glob(filepath.Join("..", "events", "*.json"))
	known := map[string]bool{}
	for _, s := range all {
		known[s.file] = true
	}
	for _, f := range files {
		if !known[filepath.Base(f)] {
			t.Errorf("events/%s is not checked by this test", filepath.Base(f))
		}
	}

	cfg := localStack(t)
	backend, err := awsstack.Open(context.Background(), cfg, config.NewLogger(cfg.LogLevel))
	if err != nil {
		t.Fatal(err)
	}
	// The samples' API key, stored as the dashboard would.
	if err := backend.Accounts.CreateAPIKey(context.Background(), &callscribe.APIKey{
		ID: "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d", AccountID: sampleAccount, Prefix: sampleAPIKey[:8],
		Hash: identity.HashAPIKey(sampleAPIKey), CreatedAt: time.Now().UTC(),
	}); err != nil {
		t.Fatal(err)
	}

	for _, s := range all {
		t.Run(s.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "events", s.file))
			if err != nil {
				t.Fatalf("%v (regenerate with -update-events)", err)
			}
			f, ok := inventory.Lookup(s.function)
			if !ok {
				t.Fatalf("no function %s", s.function)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if f.IsWorker() {
				var ev events.SQSEvent
				if err := json.Unmarshal(data, &ev); err != nil {
					t.Fatal(err)
				}
				h, _, err := workers.Handler(f, backend, testProviders())
				if err != nil {
					t.Fatal(err)
				}
				resp, err := h(ctx, ev)
				if err != nil {
					t.Fatalf("handler error: %v", err)
				}
				if len(resp.BatchItemFailures) != s.failures {
					t.Fatalf("batch item failures %+v, want %d", resp.BatchItemFailures, s.failures)
				}
				return
			}
			var ev events.APIGatewayV2HTTPRequest
			if err := json.Unmarshal(data, &ev); err != nil {
				t.Fatal(err)
			}
			var h lambdaapi.EventHandler
			if len(f.Pages) > 0 {
				h = web.Handler(f, backend)
			} else if h, err = lambdaapi.APIHandler(f, backend); err != nil {
				t.Fatal(err)
			}
			resp, err := h(ctx, ev)
			if err != nil {
				t.Fatalf("handler error: %v", err)
			}
			var body map[string]any
			if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
				t.Fatalf("status %d, body is not JSON: %q", resp.StatusCode, resp.Body)
			}
			if resp.StatusCode != s.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, s.status, resp.Body)
			}
			// The spec: every success and error body carries requestId, also
			// sent as X-Request-Id.
			if s.document {
				if resp.Headers["X-Request-Id"] == "" {
					t.Errorf("no X-Request-Id header")
				}
			} else if id, _ := body["requestId"].(string); id == "" || resp.Headers["X-Request-Id"] != id {
				t.Errorf("requestId %q, X-Request-Id %q: %s", body["requestId"], resp.Headers["X-Request-Id"], resp.Body)
			}
			for _, k := range s.keys {
				if _, ok := body[k]; !ok {
					t.Errorf("body lacks %q: %s", k, resp.Body)
				}
			}
			if s.code != "" {
				e, _ := body["error"].(map[string]any)
				if e["code"] != s.code {
					t.Errorf("error.code %v, want %s: %s", e["code"], s.code, resp.Body)
				}
			}
		})
	}
}
