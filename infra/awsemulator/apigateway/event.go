// Package apigateway is the local AWS stack's stand-in for API Gateway's side
// of a Lambda invocation: it turns an HTTP request into the HTTP API (payload
// format 2.0) event API Gateway would send, and a function's response back into
// HTTP. The local stack and the sample-event generator (functions/events_test.go)
// use it, so both speak exactly what Lambda gets; no deployed function does.
package apigateway

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"
)

// EventFromRequest builds the API Gateway HTTP API (payload 2.0) event API
// Gateway would send for r: lower-cased headers with repeated values joined by
// commas, cookies apart, the body base64-encoded unless it is UTF-8 text, and the
// JWT claims its authorizer verified (nil for routes without one). The local AWS
// stack and the sample-event generator use it, so both speak what Lambda gets.
func EventFromRequest(r *http.Request, routeKey string, pathParams, claims map[string]string) (events.APIGatewayV2HTTPRequest, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return events.APIGatewayV2HTTPRequest{}, fmt.Errorf("reading the request body: %w", err)
	}
	headers := map[string]string{}
	for k, vs := range r.Header {
		if strings.EqualFold(k, "Cookie") {
			continue
		}
		headers[strings.ToLower(k)] = strings.Join(vs, ",")
	}
	if r.Host != "" {
		headers["host"] = r.Host
	}
	var cookies []string
	for _, c := range r.Cookies() {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	var query map[string]string
	if q := r.URL.Query(); len(q) > 0 {
		query = map[string]string{}
		for k, vs := range q {
			query[k] = strings.Join(vs, ",")
		}
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version:               "2.0",
		RouteKey:              routeKey,
		RawPath:               r.URL.EscapedPath(),
		RawQueryString:        r.URL.RawQuery,
		Cookies:               cookies,
		Headers:               headers,
		QueryStringParameters: query,
		PathParameters:        pathParams,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:     routeKey,
			AccountID:    "123456789012",
			Stage:        "$default",
			RequestID:    uuid.NewString(),
			APIID:        "local",
			DomainName:   r.Host,
			DomainPrefix: "local",
			Time:         time.Now().UTC().Format("02/Jan/2006:15:04:05 -0700"),
			TimeEpoch:    time.Now().UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method:    r.Method,
				Path:      r.URL.Path,
				Protocol:  "HTTP/1.1",
				SourceIP:  sourceIP(r),
				UserAgent: r.UserAgent(),
			},
		},
	}
	if claims != nil {
		ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
			JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: claims, Scopes: nil},
		}
	}
	if len(body) > 0 {
		if utf8.Valid(body) && !strings.HasPrefix(headers["content-type"], "multipart/") {
			ev.Body = string(body)
		} else {
			ev.Body = base64.StdEncoding.EncodeToString(body)
			ev.IsBase64Encoded = true
		}
	}
	return ev, nil
}

func sourceIP(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndex(host, ":"); i > 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

// WriteResponse writes a function's API Gateway v2 response as API Gateway does.
func WriteResponse(w http.ResponseWriter, resp events.APIGatewayV2HTTPResponse) error {
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	for _, c := range resp.Cookies {
		w.Header().Add("Set-Cookie", c)
	}
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(resp.Body)
		if err != nil {
			return fmt.Errorf("function returned invalid base64: %w", err)
		}
		body = b
	}
	status := resp.StatusCode
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}
