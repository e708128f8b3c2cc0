package lambdaapi

import (
	"net/http"

	"github.com/callscribe/callscribe/shared/app"
	"github.com/callscribe/callscribe/shared/httpapi"
)

// Fallback serves the HTTP API's $default route: requests that match no route of
// the template. API Gateway alone would answer them {"message":"Not Found"}; the
// spec wants its error shape with a requestId, 405 with Allow for a known path
// with the wrong method, and MISSING_JOB_ID for a job route with an empty id.
// The routes it knows are the inventory's (httpapi.NewFallback says the rest).
func Fallback(backend *app.AWS) http.Handler {
	return backend.FallbackServer(Routes()...)
}

// Routes lists every API route of the inventory.
func Routes() []httpapi.Route {
	var routes []httpapi.Route
	for _, f := range Functions {
		routes = append(routes, f.Routes...)
	}
	return routes
}
