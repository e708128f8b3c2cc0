package lambdaapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/app"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/httpapi"
)

// Fallback serves the HTTP API's $default route: requests that match no route of
// the template. API Gateway alone would answer them {"message":"Not Found"}; the
// spec wants its error shape, 405 with Allow for a known path with the wrong
// method, and MISSING_JOB_ID for a job route with an empty id (API Gateway does
// not match an empty {job_id}, so those arrive here too).
//
// It never serves a real route: a request matching one (API Gateway routed it
// here anyway) gets 404, so this function needs no more than API-key lookups.
func Fallback(backend *app.AWS) http.Handler {
	// The job routes' server answers their empty-id forms (after API-key auth),
	// unknown paths (404 NOT_FOUND) and a wrong gateway key (401) exactly as the
	// local process does.
	missing := backend.APIServer(httpapi.RouteGetJob, httpapi.RouteDeleteJob)
	probe := http.NewServeMux()
	for _, f := range Functions {
		for _, r := range f.Routes {
			probe.Handle(string(r), http.NotFoundHandler())
		}
	}
	probe.Handle(string(httpapi.RouteHealth), http.NotFoundHandler())
	gatewayKey := backend.Config.GatewayKey
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if emptyJobID(r) || (gatewayKey != "" && r.Header.Get("apikey") != gatewayKey) {
			missing.ServeHTTP(w, r)
			return
		}
		if _, pattern := probe.Handler(r); pattern != "" {
			writeError(w, http.StatusNotFound, callscribe.CodeNotFound, "No route for "+r.Method+" "+r.URL.Path+".")
			return
		}
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			p := r.Clone(r.Context())
			p.Method = m
			if _, pattern := probe.Handler(p); pattern != "" {
				allow = append(allow, m)
			}
		}
		if len(allow) == 0 {
			missing.ServeHTTP(w, r) // 404 NOT_FOUND in the spec's shape
			return
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, callscribe.CodeMethodNotAllowed, "Method "+r.Method+" is not allowed on "+r.URL.Path+".")
	})
}

// emptyJobID is a job route called without its id.
func emptyJobID(r *http.Request) bool {
	switch r.URL.Path {
	case "/v1/transcriptions/":
		return r.Method == http.MethodGet || r.Method == http.MethodDelete
	case "/v1/transcriptions":
		return r.Method == http.MethodDelete
	}
	return false
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", uuid.NewString())
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": message}})
}
