package openapivalidate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

func init() {
	// The subtitle exports are text; kin-openapi decodes only text/plain as such.
	openapi3filter.RegisterBodyDecoder("text/vtt", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("application/x-subrip", openapi3filter.PlainBodyDecoder)
}

// Transport is an http.RoundTripper that validates every exchange with the
// service against the OpenAPI document:
//
//   - the request is validated (parameters, body, security). A request the
//     document rejects is allowed (test suites send bad requests on purpose),
//     but its response must then be a documented 4xx of the operation;
//   - the response must have a status documented for the operation, its
//     required headers (X-Request-Id), a documented content type, and a body
//     that matches the schema;
//   - a request no operation of the document matches must get the document's
//     404 NOT_FOUND or 405 METHOD_NOT_ALLOWED (with Allow), or, for a job
//     route without its id, 400 MISSING_JOB_ID or the 401 that precedes it.
//
// Requests to other hosts, or that NotAPI reports as not the API's (presigned
// storage links), pass through unchecked. Problems are reported to the
// reporter in the request's context (WithReporter), else kept for Failures.
type Transport struct {
	// Next sends the requests (http.DefaultTransport when nil).
	Next http.RoundTripper
	// NotAPI reports requests to the service's host that are not API calls.
	NotAPI func(*http.Request) bool

	host    string
	doc     *openapi3.T
	router  routers.Router
	unroute map[int]*openapi3.Response

	mu       sync.Mutex
	failures []string
	checked  int
	covered  map[string]bool // "METHOD /path" of the operations exercised
}

// NewTransport validates exchanges with the service at baseURL.
func NewTransport(ctx context.Context, baseURL string, next http.RoundTripper) (*Transport, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, err
	}
	doc, err := Load(ctx)
	if err != nil {
		return nil, err
	}
	// The document's server is a template ({base_url}); match paths on any host
	// (the host is checked by RoundTrip).
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	resp := func(name string) *openapi3.Response {
		r := doc.Components.Responses[name]
		if r == nil || r.Value == nil {
			panic("openapivalidate: no components.responses." + name)
		}
		return r.Value
	}
	return &Transport{
		Next: next, host: u.Host, doc: doc, router: router,
		unroute: map[int]*openapi3.Response{
			http.StatusBadRequest:       resp("MissingJobId"),
			http.StatusUnauthorized:     resp("Unauthorized"),
			http.StatusNotFound:         resp("RouteNotFound"),
			http.StatusMethodNotAllowed: resp("MethodNotAllowed"),
		},
	}, nil
}

type reporterKey struct{}

// WithReporter makes the Transport report the problems of requests made with
// ctx to report (e.g. a test's Errorf) instead of keeping them.
func WithReporter(ctx context.Context, report func(msg string)) context.Context {
	return context.WithValue(ctx, reporterKey{}, report)
}

// Failures returns the problems that had no reporter, and empties the list.
func (v *Transport) Failures() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	f := v.failures
	v.failures = nil
	return f
}

// Checked is how many exchanges were validated.
func (v *Transport) Checked() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.checked
}

// Uncovered lists the document's operations ("METHOD /path") no exchange
// through the transport has reached yet.
func (v *Transport) Uncovered() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []string
	for _, path := range v.doc.Paths.InMatchingOrder() {
		for method := range v.doc.Paths.Value(path).Operations() {
			if !v.covered[method+" "+path] {
				out = append(out, method+" "+path)
			}
		}
	}
	sort.Strings(out)
	return out
}

func (v *Transport) next() http.RoundTripper {
	if v.Next != nil {
		return v.Next
	}
	return http.DefaultTransport
}

// RoundTrip implements http.RoundTripper.
func (v *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != v.host || (v.NotAPI != nil && v.NotAPI(req)) {
		return v.next().RoundTrip(req)
	}
	// The body is read for validation and sent from memory.
	var reqBody []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		req.ContentLength = int64(len(b))
	}

	ctx := req.Context()
	vreq := req.Clone(context.WithoutCancel(ctx))
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, pathParams, routeErr := v.router.FindRoute(vreq)
	var input *openapi3filter.RequestValidationInput
	var reqErr error
	if routeErr == nil {
		input = &openapi3filter.RequestValidationInput{
			Request: vreq, PathParams: pathParams, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: bearerPresent, MultiError: true},
		}
		reqErr = openapi3filter.ValidateRequest(vreq.Context(), input)
	}

	resp, err := v.next().RoundTrip(req)
	if err != nil {
		return resp, err
	}
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	if err != nil {
		return resp, err
	}

	if routeErr == nil {
		v.mu.Lock()
		if v.covered == nil {
			v.covered = map[string]bool{}
		}
		v.covered[req.Method+" "+route.Path] = true
		v.mu.Unlock()
	}
	var problem string
	switch {
	case routeErr != nil:
		problem = v.checkUnrouted(resp, respBody, routeErr)
	default:
		problem = v.checkResponse(input, reqErr, resp, respBody)
	}
	v.mu.Lock()
	v.checked++
	v.mu.Unlock()
	if problem != "" {
		msg := fmt.Sprintf("OpenAPI: %s %s -> %d: %s\nresponse body: %s", req.Method, req.URL.RequestURI(), resp.StatusCode, withoutDumps(problem), clip(respBody))
		if report, ok := ctx.Value(reporterKey{}).(func(string)); ok {
			report(msg)
		} else {
			v.mu.Lock()
			v.failures = append(v.failures, msg)
			v.mu.Unlock()
		}
	}
	return resp, nil
}

// checkResponse validates the response of a documented operation.
func (v *Transport) checkResponse(input *openapi3filter.RequestValidationInput, reqErr error, resp *http.Response, body []byte) string {
	var problems []string
	if reqErr != nil && (resp.StatusCode < 400 || resp.StatusCode >= 500) {
		problems = append(problems, fmt.Sprintf("the document rejects the request, but the response is not a 4xx; request: %v", reqErr))
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: input,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(input.Request.Context(), out); err != nil {
		problems = append(problems, "response: "+err.Error())
		if reqErr != nil {
			problems = append(problems, fmt.Sprintf("(the document also rejects the request: %v)", reqErr))
		}
	}
	if resp.Header.Get("X-Request-Id") == "" {
		problems = append(problems, "no X-Request-Id header")
	}
	return strings.Join(problems, "\n")
}

// checkUnrouted: a request matching no operation gets one of the document's
// answers for that (components.responses RouteNotFound, MethodNotAllowed,
// MissingJobId, Unauthorized), with its headers and body.
func (v *Transport) checkUnrouted(resp *http.Response, body []byte, routeErr error) string {
	want, ok := v.unroute[resp.StatusCode]
	if !ok || (resp.StatusCode == http.StatusMethodNotAllowed) != errors.Is(routeErr, routers.ErrMethodNotAllowed) {
		return fmt.Sprintf("undocumented operation (%v) answered with status %d", routeErr, resp.StatusCode)
	}
	var problems []string
	for name, h := range want.Headers {
		if h.Value != nil && h.Value.Required && resp.Header.Get(name) == "" {
			problems = append(problems, "no "+name+" header")
		}
	}
	media := want.Content.Get(resp.Header.Get("Content-Type"))
	if media == nil {
		return fmt.Sprintf("content type %q is not documented", resp.Header.Get("Content-Type"))
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		problems = append(problems, "body is not JSON: "+err.Error())
	} else if err := media.Schema.Value.VisitJSON(value, openapi3.EnableJSONSchema2020(), openapi3.VisitAsResponse(), openapi3.MultiErrors()); err != nil {
		problems = append(problems, "body: "+err.Error())
	}
	return strings.Join(problems, "\n")
}

// bearerPresent satisfies the document's bearer schemes (API key, dashboard
// session) when the request carries a bearer credential: whether it is valid
// is the server's to say, with a documented 401.
func bearerPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	s := in.SecurityScheme
	if s == nil || s.Type != "http" || !strings.EqualFold(s.Scheme, "bearer") {
		return in.NewError(fmt.Errorf("unsupported security scheme %q", in.SecuritySchemeName))
	}
	scheme, token, ok := strings.Cut(in.RequestValidationInput.Request.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return in.NewError(errors.New("no bearer credential"))
	}
	return nil
}

// withoutDumps drops the schema and value dumps kin-openapi appends to each
// schema error ("Schema:" and "Value:" followed by indented JSON): the message
// before them says what is wrong, and the response body is shown anyway.
func withoutDumps(msg string) string {
	var out []string
	skipping, indent := false, 0
	for _, line := range strings.Split(msg, "\n") {
		trimmed := strings.TrimSpace(line)
		lead := len(line) - len(strings.TrimLeft(line, " \t"))
		if trimmed == "Schema:" || trimmed == "Value:" {
			skipping, indent = true, lead
			continue
		}
		if skipping && (trimmed == "" || lead > indent) {
			continue
		}
		skipping = false
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func clip(b []byte) string {
	if len(b) > 800 {
		return string(b[:800]) + "…"
	}
	return string(b)
}

// ValidateWebhook validates a request the service sent to a receiver (the
// tagDelivered callback) against the document's webhook of that name: its
// header parameters and its JSON body. body is the request's body, already read.
func (v *Transport) ValidateWebhook(ctx context.Context, name string, req *http.Request, body []byte) error {
	item := v.doc.Webhooks[name]
	if item == nil {
		return fmt.Errorf("the document has no webhook %q", name)
	}
	op := item.GetOperation(req.Method)
	if op == nil {
		return fmt.Errorf("webhook %s: method %s is not documented", name, req.Method)
	}
	vreq := req.Clone(ctx)
	vreq.Body = io.NopCloser(bytes.NewReader(body))
	return openapi3filter.ValidateRequest(ctx, &openapi3filter.RequestValidationInput{
		Request: vreq,
		Route:   &routers.Route{Spec: v.doc, Path: name, PathItem: item, Method: req.Method, Operation: op},
		Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: bearerPresent},
	})
}
