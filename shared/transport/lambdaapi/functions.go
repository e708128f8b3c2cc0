package lambdaapi

import (
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/callscribe/callscribe/shared/service/identity"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/transport/httpapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/lambdaenv"
)

// Routes is the HTTP API's routes for the inventory's route patterns.
func Routes(patterns []string) []httpapi.Route {
	routes := make([]httpapi.Route, len(patterns))
	for i, p := range patterns {
		routes[i] = httpapi.Route(p)
	}
	return routes
}

// HTTP returns what the HTTP handlers run on in this wiring: the jobs service,
// and dashboard sessions as the deployment authenticates them (the Cognito
// claims API Gateway verified, on AWS; the emulation's own signed tokens, which
// it also issues, in `make run-aws-local`). issuer is nil where sign-in is
// Cognito's.
func HTTP(backend *awsstack.AWS, sessions httpapi.SessionAuthenticator, issuer httpapi.SessionIssuer) (httpapi.Deps, httpapi.Config) {
	cfg := backend.Config
	deps := httpapi.Deps{Service: backend.Service, Webhooks: backend.Webhooks, Logger: backend.Logger, Sessions: sessions, Issuer: issuer}
	return deps, httpapi.Config{
		GatewayKey: cfg.GatewayKey,
		CursorKey:  identity.DeriveKey([]byte(cfg.SessionSecret), "list-cursor"),
		// A Lambda request carries at most 6 MB and API Gateway base64-encodes a
		// binary body (4/3 larger), so a multipart upload fits about 4.4 MB of
		// audio; 4 MiB leaves room for the form. Larger files take the two-step path.
		DirectUploadMaxBytes: 4 << 20,
		Identity:             cognitoIdentity(cfg),
		RateLimit:            httpapi.RateLimit{RPS: cfg.RateLimitRPS, Burst: cfg.RateLimitBurst},
	}
}

// cognitoIdentity is the dashboard's sign-in on AWS: the user pool's app
// client, at the region's cognito-idp endpoint unless COGNITO_ENDPOINT names
// another (the local AWS stack's stand-in).
func cognitoIdentity(cfg config.Config) httpapi.IdentityConfig {
	endpoint := cfg.CognitoEndpoint
	if endpoint == "" {
		endpoint = "https://cognito-idp." + cfg.AWSRegion + ".amazonaws.com/"
	}
	return httpapi.IdentityConfig{Kind: "cognito", Region: cfg.AWSRegion, ClientID: cfg.CognitoClientID, Endpoint: endpoint}
}

// APIHandler is an API function's API Gateway v2 handler over the given
// wiring. On AWS the dashboard session is the Cognito user API Gateway's JWT
// authorizer verified (CognitoSessions).
func APIHandler(f inventory.Function, backend *awsstack.AWS) (EventHandler, error) {
	deps, cfg := HTTP(backend, CognitoSessions{}, nil)
	switch {
	case f.Default:
		// The fallback knows every route of the deployment, so a wrong method gets
		// 405 with Allow (httpapi.NewFallback says the rest).
		return Handler(httpapi.NewFallback(deps, cfg, Routes(inventory.Routes())...)), nil
	case len(f.Routes) > 0:
		return Handler(httpapi.New(deps, cfg, Routes(f.Routes)...)), nil
	}
	return nil, fmt.Errorf("function %s is not an API function", f.Name)
}

// Serve is the whole main of an API function: wire, then start the Lambda
// runtime with the function's handler. Worker functions use package
// lambdaapi/workers, which also builds their providers; the web function
// package lambdaapi/web, which embeds the dashboard.
func Serve(f inventory.Function) {
	backend := lambdaenv.Setup(f.Name)
	h, err := APIHandler(f, backend)
	if err != nil {
		backend.Logger.Error("starting the API handler failed", "err", err)
		os.Exit(1)
	}
	lambda.Start(h)
}
