// Package inventory lists the Lambda functions of the deployment: their names,
// the API routes (by pattern) or queue each serves. The function mains, the
// local AWS stack (infra/awsemulator) and the template and sample-event tests
// all read it, so they cannot disagree about which function serves which route
// or consumes which queue; functions/template_test.go checks template.yaml
// against it. It imports no transport, so a worker that names its entry here
// links no HTTP code: package lambdaapi turns the route patterns into the HTTP
// API's handlers, package lambdaapi/workers the queues into SQS handlers.
package inventory

import "github.com/callscribe/callscribe/shared/callscribe"

// Function is one Lambda function of the deployment. Each main names its value
// (lambdaapi.Serve(inventory.Create)), so a typo does not compile, and
// functions/mains_test.go checks that functions/<name>/main.go serves the value
// whose Name is <name>.
type Function struct {
	// Name is the directory under functions/ and the stem of the template's
	// logical id (e.g. "create" -> CreateFunction).
	Name string
	// Routes are the API routes it serves (API functions), as the HTTP API's
	// route patterns ("POST /v1/transcriptions", httpapi.Route's values);
	// package lambdaapi's tests check that each is a route httpapi serves.
	Routes []string
	// Pages are the web dashboard's files it serves, as API Gateway route keys
	// ("GET /assets/{proxy+}"): the web function (package lambdaapi/web).
	Pages []string
	// Session marks routes behind the Cognito JWT authorizer (dashboard session).
	Session bool
	// Default marks the catch-all ($default route) function: spec-shaped 404/405
	// and MISSING_JOB_ID for paths API Gateway routes nowhere else.
	Default bool
	// Queue is the SQS queue it consumes (workers): "transcription", "derived" or
	// "callback"; Kinds are the message kinds that queue carries.
	Queue string
	Kinds []callscribe.MessageKind
}

// IsWorker reports whether the function is SQS-triggered.
func (f Function) IsWorker() bool { return f.Queue != "" }

// Queue names, shared with template.yaml (<Name>Queue resources) and the local stack.
const (
	QueueTranscription = "transcription"
	QueueDerived       = "derived"
	QueueCallback      = "callback"
)

// The functions of the deployment.
var (
	Create = Function{Name: "create", Routes: []string{"POST /v1/transcriptions"}}
	List   = Function{Name: "list", Routes: []string{"GET /v1/transcriptions"}}
	Get    = Function{Name: "get", Routes: []string{"GET /v1/transcriptions/{job_id}", "GET /v1/transcriptions/{job_id}/export", "GET /v1/transcriptions/{job_id}/deliveries"}}
	Delete = Function{Name: "delete", Routes: []string{"DELETE /v1/transcriptions/{job_id}"}}
	// Usage serves the quota figure and the usage page's daily series: both
	// read only the Usage table.
	Usage     = Function{Name: "usage", Routes: []string{"GET /v1/transcriptions/usage", "GET /dashboard/usage/daily"}, Session: true}
	Summarize = Function{Name: "summarize", Routes: []string{"POST /v1/summarize"}}
	Tag       = Function{Name: "tag", Routes: []string{"POST /v1/tag"}}
	Taxonomy  = Function{Name: "taxonomy", Routes: []string{"GET /v1/tags/taxonomy"}}
	Uploads   = Function{Name: "uploads", Routes: []string{"POST /v1/transcriptions/uploads"}}
	APIKeys   = Function{Name: "apikeys", Routes: []string{"POST /dashboard/api-keys", "GET /dashboard/api-keys", "DELETE /dashboard/api-keys/{key_id}",
		"GET /dashboard/signing-secret", "POST /dashboard/signing-secret/rotate"}, Session: true}
	// Dashboard serves the dashboard's session routes: the API-key routes'
	// handlers behind the Cognito authorizer, plus audio links and limits.
	Dashboard = Function{Name: "dashboard", Routes: []string{
		"GET /dashboard/jobs", "POST /dashboard/jobs", "GET /dashboard/jobs/{job_id}",
		"DELETE /dashboard/jobs/{job_id}", "GET /dashboard/jobs/{job_id}/audio", "GET /dashboard/jobs/{job_id}/export", "GET /dashboard/jobs/{job_id}/deliveries", "POST /dashboard/uploads",
		"POST /dashboard/summarize", "POST /dashboard/tag", "GET /dashboard/taxonomy",
		"GET /dashboard/limits",
	}, Session: true}
	Fallback = Function{Name: "fallback", Default: true}
	// Web serves the dashboard's page and assets, the public config the page
	// reads to sign in through Cognito, and the public OpenAPI document.
	Web = Function{Name: "web", Pages: []string{"GET /", "GET /assets/{proxy+}"}, Routes: []string{"GET /dashboard/config", "GET /openapi.json"}}

	TranscriptionWorker = Function{Name: "transcription-worker", Queue: QueueTranscription, Kinds: []callscribe.MessageKind{callscribe.KindTranscribe}}
	DerivedWorker       = Function{Name: "derived-worker", Queue: QueueDerived, Kinds: []callscribe.MessageKind{callscribe.KindDerive}}
	CallbackWorker      = Function{Name: "callback-worker", Queue: QueueCallback, Kinds: []callscribe.MessageKind{callscribe.KindDeliverCallback}}
)

// Functions is the inventory, in the template's order.
var Functions = []Function{
	Create, List, Get, Delete, Usage, Summarize, Tag, Taxonomy, Uploads, APIKeys, Dashboard, Web, Fallback,
	TranscriptionWorker, DerivedWorker, CallbackWorker,
}

// Lookup finds a function by name.
func Lookup(name string) (Function, bool) {
	for _, f := range Functions {
		if f.Name == name {
			return f, true
		}
	}
	return Function{}, false
}

// Routes lists every API route of the inventory.
func Routes() []string {
	var routes []string
	for _, f := range Functions {
		routes = append(routes, f.Routes...)
	}
	return routes
}
