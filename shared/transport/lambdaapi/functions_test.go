package lambdaapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/transport/httpapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi"
	"github.com/callscribe/callscribe/shared/transport/lambdaapi/inventory"
)

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// The inventory names routes by their patterns: each must be a route httpapi
// serves (httpapi.New refuses an unknown one by panicking on its nil handler),
// and a request to it must reach that route's handler through the function's
// API Gateway handler, not the 404/405 of a function that does not serve it.
// No request carries credentials, so none reaches the jobs service.
func TestInventoryRoutesReachTheirHandlers(t *testing.T) {
	backend := &awsstack.AWS{
		Config: config.Config{AWSRegion: "us-east-1", SessionSecret: "inventory-test-session-secret"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	checked := 0
	for _, f := range inventory.Functions {
		if len(f.Routes) == 0 {
			continue
		}
		var h lambdaapi.EventHandler
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("function %s names a route httpapi does not serve (%v): %v", f.Name, p, f.Routes)
				}
			}()
			if len(f.Pages) > 0 {
				// The web function's API routes (its pages are package web's).
				deps, cfg := lambdaapi.HTTP(backend, lambdaapi.CognitoSessions{}, nil)
				h = lambdaapi.Handler(httpapi.New(deps, cfg, lambdaapi.Routes(f.Routes)...))
				return
			}
			var err error
			if h, err = lambdaapi.APIHandler(f, backend); err != nil {
				t.Errorf("function %s: %v", f.Name, err)
			}
		}()
		if h == nil {
			continue
		}
		for _, route := range f.Routes {
			method, pattern, _ := strings.Cut(route, " ")
			path := pathParam.ReplaceAllString(pattern, "0c6f1a52-4a7e-4b8e-9d3c-2f1e0d9c8b7a")
			resp, err := h(context.Background(), events.APIGatewayV2HTTPRequest{
				Version: "2.0", RouteKey: route, RawPath: path,
				Headers: map[string]string{"content-type": "application/json"},
				RequestContext: events.APIGatewayV2HTTPRequestContext{
					RouteKey: route,
					HTTP:     events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path, SourceIP: "203.0.113.7"},
				},
			})
			if err != nil {
				t.Errorf("%s %s: %v", f.Name, route, err)
				continue
			}
			if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
				t.Errorf("%s %s: status %d, the route is not served: %s", f.Name, route, resp.StatusCode, resp.Body)
			}
			checked++
		}
	}
	if checked != len(inventory.Routes()) {
		t.Errorf("checked %d routes, the inventory has %d", checked, len(inventory.Routes()))
	}
}

// A function serves only its own routes: another function's route gets 404,
// so the check above would see a route missing from the function's handler.
func TestAPIHandlerServesOnlyItsRoutes(t *testing.T) {
	backend := &awsstack.AWS{
		Config: config.Config{AWSRegion: "us-east-1", SessionSecret: "inventory-test-session-secret"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	h, err := lambdaapi.APIHandler(inventory.Taxonomy, backend)
	if err != nil {
		t.Fatal(err)
	}
	method, path, _ := strings.Cut(inventory.Summarize.Routes[0], " ")
	resp, err := h(context.Background(), events.APIGatewayV2HTTPRequest{
		Version: "2.0", RawPath: path,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path, SourceIP: "203.0.113.7"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("taxonomy function answered %s with %d, want 404: %s", inventory.Summarize.Routes[0], resp.StatusCode, resp.Body)
	}
}
