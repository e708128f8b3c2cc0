// Package client is the reference Go client of the callscribe API: typed
// methods for every API-key route (transcriptions, summaries, tags, listing,
// deletion, exports, the taxonomy), the dashboard session routes (sign-in,
// usage, API keys), polling with the spec's defaults, one error type, and
// retries that are safe.
//
// # Usage
//
//	c, err := client.New("http://127.0.0.1:8080", client.WithAPIKey(os.Getenv("CALLSCRIBE_API_KEY")))
//	if err != nil { ... }
//	job, err := c.Transcribe(ctx, "call.wav", client.TranscribeOptions{})
//	if err != nil { ... } // *client.Error, *client.JobFailedError, ErrWaitExhausted, ...
//	tr, _ := job.Transcription()
//	for _, seg := range tr.Transcript {
//		fmt.Printf("[%.1f] %s: %s\n", seg.TimeStart, seg.SpeakerAlias, seg.Text)
//	}
//
// Creates return a *CreatedJob at once (the work is asynchronous);
// WaitForJob polls GET /v1/transcriptions/{job_id} every 2 s for up to 60
// attempts with a 30 s timeout per request (the spec's "reference client
// library" defaults, all overridable with WaitOptions) and returns the job
// when it succeeds, a *JobFailedError when it fails, or an error wrapping
// ErrWaitExhausted when it is still in progress after the last poll.
// Transcribe is create + wait. A long call can take longer than those 60
// polls: MaxAttempts NoAttemptLimit waits until the job ends, bounded by the
// context only (context.WithTimeout).
//
// # Credentials
//
// NewFromEnv configures a client as the callscribe CLI does from its
// environment: CALLSCRIBE_BASE_URL (default http://127.0.0.1:8080),
// CALLSCRIBE_API_KEY and CALLSCRIBE_GATEWAY_KEY.
//
// The /v1 routes take a static API key (WithAPIKey). The usage route and the
// API-key management routes take a dashboard session instead: Login returns a
// *Session whose Token goes to WithSessionToken. Login asks the service where
// people sign in (GET /dashboard/config): the service's own /dashboard/login
// locally, or Cognito's InitiateAuth (USER_PASSWORD_AUTH, plain HTTP JSON to
// the configured endpoint) on AWS, as the dashboard page does. A Client never
// changes after New; With returns a copy with more options, so an API-key
// client and a session client can share one http.Client. WithGatewayKey adds
// the `apikey` header an API gateway in front of the service may require.
//
// # Uploads
//
// A file up to the direct-upload threshold (WithDirectUploadMaxBytes, 4 MiB by
// default: what one request carries through API Gateway and Lambda) is sent in
// the create request itself. A larger one goes through the two-step upload:
// CreateUpload (POST /v1/transcriptions/uploads) signs a direct-to-storage
// POST, SendUpload sends the file there, CreateTranscriptionFromUpload creates
// the job from the upload id. If a direct create is refused with 413 (a gateway
// with a smaller limit), the file is sent again in two steps, once. Files are
// streamed with an exact Content-Length (S3 refuses chunked uploads);
// CreateTranscriptionFromReader reads its reader into memory first to learn the
// size (at most 10 MiB + 1 byte: a larger file is refused without sending).
//
// # Errors
//
// Every non-2xx answer is an *Error carrying the HTTP status, the spec's
// error.code and error.message, error.details (Quota decodes QUOTA_EXCEEDED's
// figures) and the requestId to quote to support, usable with errors.As or
// AsError. A body that is not the service's error shape (a proxy's HTML page,
// API Gateway's {"message":...}) still becomes an *Error, with Code
// "HTTP_<status>" and a message saying what came back. IsNotFound,
// IsUnauthorized, IsForbidden, IsQuotaExceeded, IsRateLimited and IsCode test
// the common cases. Errors found before sending (a file over 10 MiB) are
// *Errors with the service's code and Status 0.
//
// # Retries
//
// Idempotent requests (GET and DELETE) are retried after transport errors and
// 5xx answers (500, 502, 503, 504: a gateway's or a cold function's transient
// failures) with exponential backoff and full jitter (DefaultRetryPolicy: 3
// attempts, 500 ms base, 10 s cap), honouring Retry-After. 4xx answers are
// never retried: they say the request itself is wrong, and repeating it will not
// help (429 QUOTA_EXCEEDED included), except 429 RATE_LIMITED, which any
// method retries after its Retry-After (the service refused it before doing
// anything, so even a create is safe to repeat). Creates (POST) are not retried after the
// request may have reached the service, because a retry could create a second
// job and meter its minutes twice; a POST is retried only when the connection
// could not be made at all (nothing was sent). Every method takes a context;
// its cancellation stops requests, backoff pauses and polling at once, and each
// attempt also has the request timeout (WithRequestTimeout, default 30 s;
// raise it for large uploads over slow links).
//
// # Results
//
// Jobs keep their result as the JSON the service sent (Job.Result); the
// accessors Transcription, Summary and Tags decode it into the spec's shapes,
// keeping free-form parts (meta_data) as json.RawMessage. The job types and
// statuses are plain strings with constants (TypeSummary, StatusSucceeded...)
// so a value from a newer service still reads.
//
// # Wire types
//
// The shapes the service sends and takes (JobSummary, TranscriptionResult,
// Segment, SummaryResult, TagsResult, Taxonomy, Usage, CreatedJob,
// CreatedAPIKey, APIKey, Limits, DailyUsage, IdentityConfig, the request bodies...) are
// generated from the OpenAPI document's component schemas by oapi-codegen
// (wire.gen.go; oapi-codegen.yaml, models only, at the version go.mod pins),
// the error codes by gencodes (codes.gen.go). Job is the one hand-written
// wire view: the document's Job is a oneOf discriminated on type, and Job
// decodes the generated variant (TranscriptionJob, SummaryJob, TagsJob) of
// its type. The server's code constants (package callscribe) are generated
// from the same enum: two generated lists from one source, because this
// public package must not import the server's domain.
//
// The package imports only the standard library; its tests run against the
// real service (the local stack started in-process with the test speech
// engine), and only the transport behaviour of retries against an httptest server.
package client
