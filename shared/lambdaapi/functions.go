package lambdaapi

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/callscribe/callscribe/shared/app"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/httpapi"
)

// Function is one Lambda function of the deployment. The table below is the one
// inventory the function mains, the local AWS stack (infra/awslocal) and the
// template and sample-event tests all read, so they cannot disagree about which
// function serves which route or consumes which queue.
type Function struct {
	// Name is the directory under functions/ and the stem of the template's
	// logical id (e.g. "create" -> CreateFunction).
	Name string
	// Routes are the API routes it serves (API functions).
	Routes []httpapi.Route
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

// Functions is the inventory. Order is the template's order.
var Functions = []Function{
	{Name: "create", Routes: []httpapi.Route{httpapi.RouteCreateTranscription}},
	{Name: "list", Routes: []httpapi.Route{httpapi.RouteListJobs}},
	{Name: "get", Routes: []httpapi.Route{httpapi.RouteGetJob}},
	{Name: "delete", Routes: []httpapi.Route{httpapi.RouteDeleteJob}},
	{Name: "usage", Routes: []httpapi.Route{httpapi.RouteUsage}, Session: true},
	{Name: "summarize", Routes: []httpapi.Route{httpapi.RouteSummarize}},
	{Name: "tag", Routes: []httpapi.Route{httpapi.RouteTag}},
	{Name: "taxonomy", Routes: []httpapi.Route{httpapi.RouteTaxonomy}},
	{Name: "uploads", Routes: []httpapi.Route{httpapi.RouteCreateUpload}},
	{Name: "apikeys", Routes: []httpapi.Route{httpapi.RouteCreateAPIKey, httpapi.RouteListAPIKeys, httpapi.RouteRevokeAPIKey}, Session: true},
	{Name: "fallback", Default: true},
	{Name: "transcription-worker", Queue: QueueTranscription, Kinds: []callscribe.MessageKind{callscribe.KindTranscribe}},
	{Name: "derived-worker", Queue: QueueDerived, Kinds: []callscribe.MessageKind{callscribe.KindDerive}},
	{Name: "callback-worker", Queue: QueueCallback, Kinds: []callscribe.MessageKind{callscribe.KindDeliverCallback}},
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

// APIHandler is the function's API Gateway v2 handler (API and fallback functions).
func (f Function) APIHandler(backend *app.AWS) (EventHandler, error) {
	switch {
	case f.Default:
		return Handler(Fallback(backend)), nil
	case len(f.Routes) > 0:
		return Handler(backend.APIServer(f.Routes...)), nil
	}
	return nil, fmt.Errorf("function %s is not an API function", f.Name)
}

// SQSHandler is the function's SQS handler (worker functions).
func (f Function) SQSHandler(backend *app.AWS) (app.SQSEventHandler, error) {
	if !f.IsWorker() {
		return nil, fmt.Errorf("function %s is not a worker", f.Name)
	}
	return backend.SQSHandler(f.Kinds...)
}

// Main is the whole main of a function: read the configuration, wire the AWS
// adapters once per execution environment (reused across invocations), start
// the Lambda runtime with the function's handler.
func Main(name string) {
	cfg, err := app.ConfigFromEnv()
	logger := app.NewLogger(cfg.LogLevel).With("function", name)
	if err != nil {
		logger.Error("invalid configuration", "err", err)
		os.Exit(2)
	}
	f, ok := Lookup(name)
	if !ok {
		logger.Error("unknown function")
		os.Exit(2)
	}
	backend, err := app.OpenAWS(context.Background(), cfg, logger)
	if err != nil {
		logger.Error("wiring the AWS adapters failed", "err", err)
		os.Exit(1)
	}
	if f.IsWorker() {
		h, err := f.SQSHandler(backend)
		if err != nil {
			logger.Error("starting the worker failed", "err", err)
			os.Exit(1)
		}
		lambda.Start(h)
		return
	}
	h, err := f.APIHandler(backend)
	if err != nil {
		logger.Error("starting the API handler failed", "err", err)
		os.Exit(1)
	}
	lambda.Start(h)
}
