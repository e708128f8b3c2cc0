// Package lambdaapi runs API routes as Lambda functions behind API Gateway HTTP
// APIs (payload format 2.0), through aws-lambda-go-api-proxy, with the very
// handlers the local process serves.
package lambdaapi

import (
	"context"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/callscribe/callscribe/shared/app"
	"github.com/callscribe/callscribe/shared/httpapi"
)

// EventHandler is the Lambda handler signature for an HTTP API route.
type EventHandler func(ctx context.Context, event events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Handler adapts an http.Handler to API Gateway v2 events.
func Handler(h http.Handler) EventHandler { return httpadapter.NewV2(h).ProxyWithContext }

// ServeRoutes is the whole main of an API route function: read the
// configuration, wire the AWS adapters, serve only the given routes.
func ServeRoutes(routes ...httpapi.Route) {
	cfg, err := app.ConfigFromEnv()
	logger := app.NewLogger(cfg.LogLevel)
	if err != nil {
		logger.Error("invalid configuration", "err", err)
		os.Exit(2)
	}
	backend, err := app.OpenAWS(context.Background(), cfg, logger)
	if err != nil {
		logger.Error("wiring the AWS adapters failed", "err", err)
		os.Exit(1)
	}
	lambda.Start(Handler(backend.APIServer(routes...)))
}
