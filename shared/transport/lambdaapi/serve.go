// Package lambdaapi runs the API functions: API routes behind API Gateway HTTP
// APIs (payload format 2.0, through aws-lambda-go-api-proxy, with the very
// handlers the local process serves). The deployment's inventory is package
// lambdaapi/inventory; the SQS-triggered workers are package lambdaapi/workers,
// which does not import this package, so no worker links the HTTP transport.
package lambdaapi

import (
	"context"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
)

// EventHandler is the Lambda handler signature for an HTTP API route.
type EventHandler func(ctx context.Context, event events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Handler adapts an http.Handler to API Gateway v2 events.
func Handler(h http.Handler) EventHandler { return httpadapter.NewV2(h).ProxyWithContext }
