package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/callscribe/callscribe/infra/awsemulator/apigateway"
	"github.com/callscribe/callscribe/shared/service/identity"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/transport/httpapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/web"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/workers"
)

// gateway stands in for API Gateway's HTTP API: route table from the function
// inventory, payload format 2.0 events, a $default route, and a JWT authorizer
// replaced by verification of the local session tokens.
type gateway struct {
	routes   *http.ServeMux // only real routes; a miss goes to $default
	fallback lambdaapi.EventHandler
	// local serves what only the emulation has (the Cognito stand-in's sign-up
	// and sign-in, and its health check) on the paths in localPaths, wrong
	// methods included, so those get 405 like every other known path.
	local      http.Handler
	localPaths map[string]bool
	// cognito stands in for the user pool's cognito-idp endpoint, which the
	// dashboard page signs in through (cognito.go).
	cognito http.Handler
	logger  *slog.Logger
}

func newGateway(backend *awsstack.AWS, sessions *identity.Sessions, audioOrigin string, logger *slog.Logger) (*gateway, error) {
	g := &gateway{routes: http.NewServeMux(), logger: logger}
	for _, f := range inventory.Functions {
		if f.IsWorker() {
			continue
		}
		var h lambdaapi.EventHandler
		var err error
		if len(f.Pages) > 0 {
			h = web.Handler(f, backend, audioOrigin)
		} else if h, err = lambdaapi.APIHandler(f, backend); err != nil {
			return nil, fmt.Errorf("function %s: %w", f.Name, err)
		}
		for _, page := range f.Pages {
			// API Gateway's greedy {proxy+} is Go's {proxy...}; "GET /" is the root only.
			pattern := strings.Replace(page, "{proxy+}", "{proxy...}", 1)
			if pattern == "GET /" {
				pattern = "GET /{$}"
			}
			g.routes.Handle(pattern, g.invoke(f, page, h, sessions))
		}
		if f.Default {
			g.fallback = h
			continue
		}
		for _, r := range f.Routes {
			g.routes.Handle(r, g.invoke(f, r, h, sessions))
		}
	}
	// The Cognito stand-in (local sign-up and sign-in issue session tokens) and
	// the emulation's own health check (API Gateway has no such route).
	localRoutes := []httpapi.Route{httpapi.RouteSignup, httpapi.RouteLogin, httpapi.RouteHealth}
	local := httpapi.BearerSessions{Sessions: sessions}
	deps, cfg := lambdaapi.HTTP(backend, local, local)
	g.local = httpapi.New(deps, cfg, localRoutes...)
	g.localPaths = map[string]bool{}
	for _, r := range localRoutes {
		_, path, _ := strings.Cut(string(r), " ")
		g.localPaths[path] = true
	}
	return g, nil
}

func (g *gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// API Gateway routes a path as sent; the mux would redirect one it cleans
	// ("//", ".", ".."), so such a path matches no route: $default answers it.
	if !httpapi.CanonicalPath(r) {
		g.call(w, r, "$default", nil, nil, g.fallback, "fallback")
		return
	}
	if h, pattern := g.routes.Handler(r); pattern != "" {
		h.ServeHTTP(w, r)
		return
	}
	if g.localPaths[r.URL.Path] {
		g.local.ServeHTTP(w, r)
		return
	}
	if g.cognito != nil && r.URL.Path == cognitoPath {
		g.cognito.ServeHTTP(w, r)
		return
	}
	g.call(w, r, "$default", nil, nil, g.fallback, "fallback")
}

// invoke turns a matched request into its function's event. For routes behind
// the authorizer, a valid local session becomes the verified `sub` claim.
func (g *gateway) invoke(f inventory.Function, route string, h lambdaapi.EventHandler, sessions *identity.Sessions) http.Handler {
	_, path, _ := strings.Cut(route, " ")
	var params []string
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			params = append(params, strings.TrimSuffix(strings.Trim(seg, "{}"), "+")) // {proxy+} is "proxy"
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var pathParams map[string]string
		if len(params) > 0 {
			pathParams = map[string]string{}
			for _, p := range params {
				pathParams[p] = r.PathValue(p)
			}
		}
		var claims map[string]string
		if f.Session {
			if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
				if account, err := sessions.Verify(strings.TrimSpace(token)); err == nil {
					claims = map[string]string{"sub": account, "token_use": "id"}
				}
			}
		}
		g.call(w, r, route, pathParams, claims, h, f.Name)
	})
}

func (g *gateway) call(w http.ResponseWriter, r *http.Request, routeKey string, pathParams, claims map[string]string, h lambdaapi.EventHandler, function string) {
	ev, err := apigateway.EventFromRequest(r, routeKey, pathParams, claims)
	if err != nil {
		http.Error(w, `{"message":"Bad Request"}`, http.StatusBadRequest)
		return
	}
	resp, err := h(r.Context(), ev)
	if err != nil {
		// What API Gateway answers when the integration fails.
		g.logger.Error("function invocation failed", "function", function, "err", err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"message":"Internal Server Error"}`))
		return
	}
	if err := apigateway.WriteResponse(w, resp); err != nil {
		g.logger.Warn("writing the function's response failed", "function", function, "err", err)
	}
}

// invokeWorker adapts a worker's SQS handler to the poller: one received
// message becomes a one-record SQS event; a reported batch item failure leaves
// the message for redelivery, as the event source mapping does.
func invokeWorker(h workers.SQSEventHandler, queueURL string) func(context.Context, types.Message) error {
	arn := "arn:aws:sqs:us-east-1:000000000000:" + queueURL[strings.LastIndex(queueURL, "/")+1:]
	return func(ctx context.Context, m types.Message) (err error) {
		// A panicking Lambda invocation fails that invocation only: the
		// runtime reports the error and SQS redelivers the message after its
		// visibility timeout. The emulator must not die of it either.
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("worker function panicked: %v", r)
			}
		}()
		rec := events.SQSMessage{
			MessageId:         aws.ToString(m.MessageId),
			ReceiptHandle:     aws.ToString(m.ReceiptHandle),
			Body:              aws.ToString(m.Body),
			Md5OfBody:         aws.ToString(m.MD5OfBody),
			Attributes:        m.Attributes,
			MessageAttributes: map[string]events.SQSMessageAttribute{},
			EventSource:       "aws:sqs",
			EventSourceARN:    arn,
			AWSRegion:         "us-east-1",
		}
		for k, v := range m.MessageAttributes {
			rec.MessageAttributes[k] = events.SQSMessageAttribute{DataType: aws.ToString(v.DataType), StringValue: v.StringValue}
		}
		resp, err := h(ctx, events.SQSEvent{Records: []events.SQSMessage{rec}})
		if err != nil {
			return err
		}
		if len(resp.BatchItemFailures) > 0 {
			return fmt.Errorf("message %s reported as a batch item failure", rec.MessageId)
		}
		return nil
	}
}
