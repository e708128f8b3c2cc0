// Package httpapi serves the v1 API and the dashboard identity endpoints with
// net/http and Go 1.22 route patterns. The same handler runs in the local process
// and behind API Gateway in Lambda (through aws-lambda-go-api-proxy).
package httpapi

import (
	"log/slog"
	"net/http"
	"path"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/callback"
	"github.com/callscribe/callscribe/shared/service/identity"
	"github.com/callscribe/callscribe/shared/service/jobs"
	"github.com/callscribe/callscribe/shared/service/ratelimit"
)

// Sizes of request bodies the handlers read. The audio and metadata limits are
// the service's (package jobs); these bound what decoding may read around them.
const (
	// maxMultipartOverhead allows the form's other fields and part headers.
	maxMultipartOverhead = 1 << 20
	// maxJSONBody bounds summarize/tag and dashboard bodies.
	maxJSONBody = 2 << 20
)

// SessionAuthenticator resolves the dashboard session of a request to its
// account. Locally it verifies our signed tokens; on AWS it reads the Cognito
// claims API Gateway's JWT authorizer attached.
type SessionAuthenticator interface {
	AuthenticateSession(r *http.Request) (accountID string, err error)
}

// SessionIssuer issues dashboard sessions (local identity only).
type SessionIssuer interface {
	Issue(accountID string) (token string, expiresAt time.Time)
}

// Config holds the HTTP layer's own settings.
type Config struct {
	GatewayKey string // when set, the `apikey` header must equal it
	// CursorKey signs pagination cursors (tamper-evident, opaque).
	CursorKey []byte
	// Identity tells the dashboard where people sign in (GET /dashboard/config).
	Identity IdentityConfig
	// DirectUploadMaxBytes is the largest file one request can carry in this
	// deployment (a Lambda request body is at most 6 MB, base64-encoded by API
	// Gateway); larger files take the two-step upload. 0 means the 10 MiB limit.
	DirectUploadMaxBytes int64
	// RateLimit is each API key's and, on the dashboard routes, each client
	// address's request budget (ratelimit.go); zero RPS turns it off.
	RateLimit RateLimit
}

// IdentityConfig says where dashboard users sign up and sign in: "local" (the
// service's own /dashboard/signup and /dashboard/login) or "cognito" (the
// user pool's InitiateAuth and SignUp, called by the page with the app client
// id; Endpoint is the cognito-idp endpoint, overridable for the local AWS stack).
type IdentityConfig struct {
	Kind     string `json:"kind"`
	Region   string `json:"region,omitempty"`
	ClientID string `json:"client_id,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
}

// Deps are what the handlers call. Every decision about jobs, uploads, quota and
// accounts is the Service's; the handlers authenticate, decode, call it and
// encode. Sessions authenticates dashboard sessions (our signed tokens locally,
// Cognito claims on AWS); Issuer is nil where sign-in is not ours (Cognito).
type Deps struct {
	Service *jobs.Service
	// Webhooks serves the signing secret and the delivery record routes.
	Webhooks *callback.Webhooks
	Sessions SessionAuthenticator
	Issuer   SessionIssuer
	Logger   *slog.Logger
	// NewID makes request ids (random UUIDs when nil).
	NewID func() string
}

// Server is the HTTP API.
type Server struct {
	deps Deps
	cfg  Config
	mux  *http.ServeMux
	// emptyJobID holds handlers by "METHOD path" for job routes whose empty id
	// sits mid-path ("/v1/transcriptions//export", "/dashboard/jobs//audio"): the mux would redirect
	// that path to its cleaned form (the GET of a job named "export") before
	// any pattern could match it, so ServeHTTP looks these up first.
	emptyJobID map[string]http.HandlerFunc
	// perKey and perAddress are the request-rate limiters (ratelimit.go).
	perKey, perAddress *ratelimit.Limiter
	// cursors signs and opens pagination cursors with cfg.CursorKey.
	cursors *identity.Signer
}

// Route names a registered pattern, so a Lambda function can serve only its own.
type Route string

// The routes of the service.
const (
	RouteCreateTranscription Route = "POST /v1/transcriptions"
	RouteListJobs            Route = "GET /v1/transcriptions"
	RouteUsage               Route = "GET /v1/transcriptions/usage"
	RouteGetJob              Route = "GET /v1/transcriptions/{job_id}"
	RouteDeleteJob           Route = "DELETE /v1/transcriptions/{job_id}"
	RouteExportJob           Route = "GET /v1/transcriptions/{job_id}/export"
	RouteSummarize           Route = "POST /v1/summarize"
	RouteTag                 Route = "POST /v1/tag"
	RouteTaxonomy            Route = "GET /v1/tags/taxonomy"
	RouteCreateUpload        Route = "POST /v1/transcriptions/uploads"
	RouteSignup              Route = "POST /dashboard/signup"
	RouteLogin               Route = "POST /dashboard/login"
	RouteCreateAPIKey        Route = "POST /dashboard/api-keys"
	RouteListAPIKeys         Route = "GET /dashboard/api-keys"
	RouteRevokeAPIKey        Route = "DELETE /dashboard/api-keys/{key_id}"
	// The account's webhook signing secret, beside its API keys.
	RouteSigningSecret       Route = "GET /dashboard/signing-secret"
	RouteRotateSigningSecret Route = "POST /dashboard/signing-secret/rotate"
	RouteJobDeliveries       Route = "GET /v1/transcriptions/{job_id}/deliveries"
	RouteHealth              Route = "GET /healthz"
	// RouteOpenAPI serves the OpenAPI document (package openapi) with no
	// authentication, like RouteHealth.
	RouteOpenAPI Route = "GET /openapi.json"

	// The dashboard's session routes: the API-key routes' own handlers behind
	// the dashboard session instead of an API key, so ownership, quota,
	// validation and error codes cannot differ between the two.
	RouteDashboardListJobs     Route = "GET /dashboard/jobs"
	RouteDashboardCreateJob    Route = "POST /dashboard/jobs"
	RouteDashboardGetJob       Route = "GET /dashboard/jobs/{job_id}"
	RouteDashboardDeleteJob    Route = "DELETE /dashboard/jobs/{job_id}"
	RouteDashboardJobAudio     Route = "GET /dashboard/jobs/{job_id}/audio"
	RouteDashboardExportJob    Route = "GET /dashboard/jobs/{job_id}/export"
	RouteDashboardDeliveries   Route = "GET /dashboard/jobs/{job_id}/deliveries"
	RouteDashboardCreateUpload Route = "POST /dashboard/uploads"
	RouteDashboardSummarize    Route = "POST /dashboard/summarize"
	RouteDashboardTag          Route = "POST /dashboard/tag"
	RouteDashboardTaxonomy     Route = "GET /dashboard/taxonomy"
	RouteDashboardLimits       Route = "GET /dashboard/limits"
	RouteDashboardDailyUsage   Route = "GET /dashboard/usage/daily"
	// RouteDashboardConfig needs no session: the page reads it to sign in.
	RouteDashboardConfig Route = "GET /dashboard/config"
)

// New builds the server. With no routes given it serves all of them; a Lambda
// function passes its own route(s) so a misrouted request gets 404.
func New(deps Deps, cfg Config, routes ...Route) *Server {
	s := newServer(deps, cfg)
	handlers := map[Route]http.HandlerFunc{
		RouteCreateTranscription: s.apiKey(s.createTranscription),
		RouteListJobs:            s.apiKey(s.listJobs),
		RouteUsage:               s.session(s.usage),
		RouteGetJob:              s.apiKey(s.getJob),
		RouteDeleteJob:           s.apiKey(s.deleteJob),
		RouteExportJob:           s.apiKey(s.exportJob),
		RouteSummarize:           s.apiKey(s.derive(callscribe.TypeSummary)),
		RouteTag:                 s.apiKey(s.derive(callscribe.TypeTags)),
		RouteTaxonomy:            s.apiKey(s.taxonomy),
		RouteCreateUpload:        s.apiKey(s.createUpload),
		RouteSignup:              s.credentialsHandler(s.signup),
		RouteLogin:               s.credentialsHandler(s.login),
		RouteCreateAPIKey:        s.session(s.createAPIKey),
		RouteListAPIKeys:         s.session(s.listAPIKeys),
		RouteRevokeAPIKey:        s.session(s.revokeAPIKey),
		RouteSigningSecret:       s.session(s.signingSecret),
		RouteRotateSigningSecret: s.session(s.rotateSigningSecret),
		RouteJobDeliveries:       s.apiKey(s.jobDeliveries),
		RouteHealth:              s.health,
		RouteOpenAPI:             s.openAPIDocument,

		RouteDashboardListJobs:     s.session(s.listJobs),
		RouteDashboardCreateJob:    s.session(s.createTranscription),
		RouteDashboardGetJob:       s.session(s.getJob),
		RouteDashboardDeleteJob:    s.session(s.deleteJob),
		RouteDashboardJobAudio:     s.session(s.jobAudio),
		RouteDashboardExportJob:    s.session(s.exportJob),
		RouteDashboardDeliveries:   s.session(s.jobDeliveries),
		RouteDashboardCreateUpload: s.session(s.createUpload),
		RouteDashboardSummarize:    s.session(s.derive(callscribe.TypeSummary)),
		RouteDashboardTag:          s.session(s.derive(callscribe.TypeTags)),
		RouteDashboardTaxonomy:     s.session(s.taxonomy),
		RouteDashboardLimits:       s.session(s.limits),
		RouteDashboardDailyUsage:   s.session(s.dailyUsage),
		RouteDashboardConfig:       s.dashboardConfig,
	}
	if len(routes) == 0 {
		for r := range handlers {
			routes = append(routes, r)
		}
	}
	for _, r := range routes {
		s.handle(r, handlers[r])
	}
	return s
}

// NewFallback builds the server of a deployment's catch-all route (API
// Gateway's $default): requests that no route of the deployment matched. It
// serves none of the known routes: a request matching one (routed here anyway)
// gets 404 NOT_FOUND, so the fallback needs nothing but API-key lookups. What it
// adds over API Gateway's bare {"message":"Not Found"} is the spec's shape with a
// requestId: 405 METHOD_NOT_ALLOWED with Allow for a known path with the wrong
// method, MISSING_JOB_ID for a job route with an empty id (API Gateway does not
// match an empty {job_id}), 401 for a wrong gateway key, 404 NOT_FOUND otherwise.
func NewFallback(deps Deps, cfg Config, known ...Route) *Server {
	s := newServer(deps, cfg)
	for _, r := range known {
		s.handle(r, s.notFound)
	}
	return s
}

// Request ids (and job ids) are random UUIDs: drawing their bytes from a
// buffered pool of crypto/rand output spares a getrandom system call per
// request; the ids are no less random. It must be enabled before any
// concurrent use, hence at package initialisation.
func init() { uuid.EnableRandPool() }

func newServer(deps Deps, cfg Config) *Server {
	if deps.Logger == nil {
		deps.Logger = slog.Default()
	}
	if deps.NewID == nil {
		deps.NewID = func() string { return uuid.NewString() }
	}
	s := &Server{deps: deps, cfg: cfg, mux: http.NewServeMux(), emptyJobID: map[string]http.HandlerFunc{},
		cursors: identity.NewSigner(cfg.CursorKey)}
	s.initRateLimits()
	return s
}

// handle registers one route, and for the job routes the empty-id forms that
// are a malformed client call (MISSING_JOB_ID, after API-key auth).
func (s *Server) handle(r Route, h http.HandlerFunc) {
	s.mux.HandleFunc(string(r), h)
	switch r {
	case RouteGetJob:
		s.mux.HandleFunc("GET /v1/transcriptions/{$}", s.apiKey(s.missingJobID))
	case RouteDeleteJob:
		s.mux.HandleFunc("DELETE /v1/transcriptions/{$}", s.apiKey(s.missingJobID))
		s.mux.HandleFunc("DELETE /v1/transcriptions", s.apiKey(s.missingJobID))
	case RouteDashboardGetJob:
		s.mux.HandleFunc("GET /dashboard/jobs/{$}", s.session(s.missingJobID))
	case RouteDashboardDeleteJob:
		s.mux.HandleFunc("DELETE /dashboard/jobs/{$}", s.session(s.missingJobID))
		s.mux.HandleFunc("DELETE /dashboard/jobs", s.session(s.missingJobID))
	case RouteExportJob:
		s.emptyJobID["GET /v1/transcriptions//export"] = s.apiKey(s.missingJobID)
	case RouteDashboardExportJob:
		s.emptyJobID["GET /dashboard/jobs//export"] = s.session(s.missingJobID)
	case RouteDashboardJobAudio:
		s.emptyJobID["GET /dashboard/jobs//audio"] = s.session(s.missingJobID)
	case RouteJobDeliveries:
		s.emptyJobID["GET /v1/transcriptions//deliveries"] = s.apiKey(s.missingJobID)
	case RouteDashboardDeliveries:
		s.emptyJobID["GET /dashboard/jobs//deliveries"] = s.session(s.missingJobID)
	}
}

// ServeHTTP runs the request-scoped middleware, then the mux; unknown routes and
// wrong methods get the spec's error shape instead of net/http's plain text.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	requestID := s.deps.NewID()
	log := requestLogger(s.deps.Logger, requestID)
	ctx := withRequest(r.Context(), requestID, log)
	r = r.WithContext(ctx)
	w.Header().Set("X-Request-Id", requestID)
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			log.Error("panic in handler", "panic", p, "method", r.Method, "path", r.URL.Path)
			if !rec.wrote {
				writeError(rec, r, callscribe.Errorf(callscribe.CodeInternal, "An internal error occurred."))
			}
		}
		log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "duration_ms", time.Since(start).Milliseconds())
	}()

	if s.cfg.GatewayKey != "" && !publicPaths[r.URL.Path] && !constantTimeEqual(r.Header.Get("apikey"), s.cfg.GatewayKey) {
		writeError(rec, r, callscribe.Errorf(callscribe.CodeUnauthorized, "Missing or invalid gateway key (apikey header)."))
		return
	}
	if r.Method == http.MethodHead {
		// Go's mux would serve HEAD with a GET route's handler; the API takes no
		// HEAD (API Gateway routes GET only, so on AWS it reaches the fallback),
		// and its Allow lists never offer it: 405 on both stacks.
		s.noRoute(rec, r)
		return
	}
	if h, ok := s.emptyJobID[r.Method+" "+r.URL.Path]; ok {
		h(rec, r)
		return
	}
	if !CanonicalPath(r) {
		// The mux would answer a redirect to the cleaned path (an HTML
		// body, and a different resource: "/v1/transcriptions//x" is
		// not job "x"). No route has an empty segment, a "." or a "..".
		s.notFound(rec, r)
		return
	}
	if _, pattern := s.mux.Handler(r); pattern == "" {
		s.noRoute(rec, r)
		return
	}
	s.mux.ServeHTTP(rec, r)
}

// CanonicalPath reports whether the request's path is in the form
// http.ServeMux routes without redirecting: no empty segment ("//"), no "."
// or ".." segment. A mux in front of the API (the local stack's, the AWS
// emulation's gateway) hands any other path to the API, which answers it in
// the error shape instead of redirecting.
func CanonicalPath(r *http.Request) bool {
	p := r.URL.EscapedPath()
	return p != "" && p[0] == '/' && cleanPath(p) == p
}

// cleanPath is http.ServeMux's canonical form of a path: path.Clean keeping
// a trailing slash.
func cleanPath(p string) string {
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// noRoute answers a request no route takes: 405 with Allow when the path is
// served with other methods, else 404.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	if allow := s.allowedMethods(r); len(allow) > 0 {
		w.Header().Set("Allow", joinComma(allow))
		writeError(w, r, callscribe.Errorf(callscribe.CodeMethodNotAllowed, "Method %s is not allowed on %s.", r.Method, r.URL.Path))
		return
	}
	s.notFound(w, r)
}

func (s *Server) allowedMethods(r *http.Request) []string {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" {
			allow = append(allow, m)
		}
	}
	return allow
}

func joinComma(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// publicPaths need no gateway key: the health check and the API's own document.
var publicPaths = map[string]bool{"/healthz": true, "/openapi.json": true}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, http.StatusOK, map[string]any{"status": "ok"})
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, callscribe.Errorf(callscribe.CodeNotFound, "No route for %s %s.", r.Method, r.URL.Path))
}

func (s *Server) missingJobID(w http.ResponseWriter, r *http.Request, _ string) {
	writeError(w, r, callscribe.Errorf(callscribe.CodeMissingJobID, "The job_id path parameter is required."))
}

// statusRecorder remembers the status for the access log and whether a body was written.
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status = code
		r.wrote = true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController and MaxBytesReader reach the real writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
