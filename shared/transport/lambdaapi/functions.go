package lambdaapi

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/transport/httpapi"
)

// Function is one Lambda function of the deployment. The values below are the
// one inventory that the function mains, the local AWS stack (infra/awsemulator)
// and the template and sample-event tests all read, so they cannot disagree
// about which function serves which route or consumes which queue. Each main
// names its value (lambdaapi.Serve(lambdaapi.Create)), so a typo does not
// compile, and the template test checks that functions/<name>/main.go serves
// the value whose Name is <name>.
type Function struct {
	// Name is the directory under functions/ and the stem of the template's
	// logical id (e.g. "create" -> CreateFunction).
	Name string
	// Routes are the API routes it serves (API functions).
	Routes []httpapi.Route
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
	Create    = Function{Name: "create", Routes: []httpapi.Route{httpapi.RouteCreateTranscription}}
	List      = Function{Name: "list", Routes: []httpapi.Route{httpapi.RouteListJobs}}
	Get       = Function{Name: "get", Routes: []httpapi.Route{httpapi.RouteGetJob, httpapi.RouteExportJob}}
	Delete    = Function{Name: "delete", Routes: []httpapi.Route{httpapi.RouteDeleteJob}}
	Usage     = Function{Name: "usage", Routes: []httpapi.Route{httpapi.RouteUsage}, Session: true}
	Summarize = Function{Name: "summarize", Routes: []httpapi.Route{httpapi.RouteSummarize}}
	Tag       = Function{Name: "tag", Routes: []httpapi.Route{httpapi.RouteTag}}
	Taxonomy  = Function{Name: "taxonomy", Routes: []httpapi.Route{httpapi.RouteTaxonomy}}
	Uploads   = Function{Name: "uploads", Routes: []httpapi.Route{httpapi.RouteCreateUpload}}
	APIKeys   = Function{Name: "apikeys", Routes: []httpapi.Route{httpapi.RouteCreateAPIKey, httpapi.RouteListAPIKeys, httpapi.RouteRevokeAPIKey}, Session: true}
	// Dashboard serves the dashboard's session routes: the API-key routes'
	// handlers behind the Cognito authorizer, plus audio links and limits.
	Dashboard = Function{Name: "dashboard", Routes: []httpapi.Route{
		httpapi.RouteDashboardListJobs, httpapi.RouteDashboardCreateJob, httpapi.RouteDashboardGetJob,
		httpapi.RouteDashboardDeleteJob, httpapi.RouteDashboardJobAudio, httpapi.RouteDashboardExportJob, httpapi.RouteDashboardCreateUpload,
		httpapi.RouteDashboardSummarize, httpapi.RouteDashboardTag, httpapi.RouteDashboardTaxonomy,
		httpapi.RouteDashboardLimits,
	}, Session: true}
	Fallback = Function{Name: "fallback", Default: true}
	// Web serves the dashboard's page and assets, the public config the page
	// reads to sign in through Cognito, and the public OpenAPI document.
	Web = Function{Name: "web", Pages: []string{"GET /", "GET /assets/{proxy+}"}, Routes: []httpapi.Route{httpapi.RouteDashboardConfig, httpapi.RouteOpenAPI}}

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
func Routes() []httpapi.Route {
	var routes []httpapi.Route
	for _, f := range Functions {
		routes = append(routes, f.Routes...)
	}
	return routes
}

// APIHandler is an API function's API Gateway v2 handler over the given
// wiring. On AWS the dashboard session is the Cognito user API Gateway's JWT
// authorizer verified (CognitoSessions).
func APIHandler(f Function, backend *awsstack.AWS) (EventHandler, error) {
	deps, cfg := backend.HTTP(CognitoSessions{}, nil)
	switch {
	case f.Default:
		// The fallback knows every route of the deployment, so a wrong method gets
		// 405 with Allow (httpapi.NewFallback says the rest).
		return Handler(httpapi.NewFallback(deps, cfg, Routes()...)), nil
	case len(f.Routes) > 0:
		return Handler(httpapi.New(deps, cfg, f.Routes...)), nil
	}
	return nil, fmt.Errorf("function %s is not an API function", f.Name)
}

// Setup is the start of every function's main: read the configuration and
// wire the AWS adapters once per execution environment (reused across
// invocations). It exits the process on failure, as a Lambda init must.
func Setup(f Function) *awsstack.AWS {
	cfg, err := config.ConfigFromEnv()
	logger := config.NewLogger(cfg.LogLevel).With("function", f.Name)
	if err != nil {
		logger.Error("invalid configuration", "err", err)
		os.Exit(2)
	}
	backend, err := awsstack.Open(context.Background(), cfg, logger)
	if err != nil {
		logger.Error("wiring the AWS adapters failed", "err", err)
		os.Exit(1)
	}
	return backend
}

// Serve is the whole main of an API function: wire, then start the Lambda
// runtime with the function's handler. Worker functions use package
// lambdaapi/workers, which also builds their providers; the web function
// package lambdaapi/web, which embeds the dashboard.
func Serve(f Function) {
	backend := Setup(f)
	h, err := APIHandler(f, backend)
	if err != nil {
		backend.Logger.Error("starting the API handler failed", "err", err)
		os.Exit(1)
	}
	lambda.Start(h)
}
