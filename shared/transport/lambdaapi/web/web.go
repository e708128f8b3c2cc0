// Package web runs the web function: the dashboard's page and hashed assets
// (embedded by package dashboard) and the public config the page reads to
// sign in through Cognito. Only the web function imports it, so no other
// function carries the page.
package web

import (
	"net/http"
	"net/url"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/transport/dashboard"
	"github.com/callscribe/callscribe/shared/transport/httpapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/lambdaenv"
)

// Handler serves f's pages and API routes over backend. The page may stream
// audio from the bucket's presigned URLs, POST two-step uploads to the bucket
// and call the Cognito endpoint, and reach nothing else.
func Handler(f inventory.Function, backend *awsstack.AWS, mediaOrigins ...string) lambdaapi.EventHandler {
	deps, cfg := lambdaapi.HTTP(backend, lambdaapi.CognitoSessions{}, nil)
	var connect []string
	if u, err := url.Parse(cfg.Identity.Endpoint); err == nil && u.Host != "" {
		connect = append(connect, u.Scheme+"://"+u.Host)
	}
	if len(mediaOrigins) == 0 && backend.Config.AudioBucket != "" {
		mediaOrigins = []string{"https://" + backend.Config.AudioBucket + ".s3." + backend.Config.AWSRegion + ".amazonaws.com"}
	}
	mux := http.NewServeMux()
	// The audio store is also where the two-step upload POSTs the file.
	connect = append(connect, mediaOrigins...)
	mux.Handle("/", dashboard.Handler(dashboard.Options{MediaOrigins: mediaOrigins, ConnectOrigins: connect}))
	api := httpapi.New(deps, cfg, lambdaapi.Routes(f.Routes)...)
	for _, r := range f.Routes {
		mux.Handle(r, api)
	}
	return lambdaapi.Handler(mux)
}

// Serve is the whole main of the web function.
func Serve(f inventory.Function) {
	backend := lambdaenv.Setup(f.Name)
	if len(f.Pages) == 0 {
		backend.Logger.Error("the web function serves no pages")
		os.Exit(1)
	}
	lambda.Start(Handler(f, backend))
}
