package openapivalidate

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// stub answers every request with the status, headers and body the test sets.
type stub struct {
	status int
	header map[string]string
	body   string
}

func (s *stub) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	for k, v := range s.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(s.status)
	_, _ = io.WriteString(w, s.body)
}

const errJSON = `{"error":{"code":"%s","message":"m"},"requestId":"r1"}`

func TestTransportFindsWhatTheDocumentDoesNotAllow(t *testing.T) {
	json := map[string]string{"Content-Type": "application/json", "X-Request-Id": "r1"}
	jsonAllow := map[string]string{"Content-Type": "application/json", "X-Request-Id": "r1", "Allow": "GET"}
	for _, c := range []struct {
		name, method, path, auth, body string
		resp                           stub
		wantProblem                    string // "" when the exchange is valid
	}{
		{"health ok", "GET", "/healthz", "", "", stub{200, json, `{"status":"ok","requestId":"r1"}`}, ""},
		{"undocumented field", "GET", "/healthz", "", "", stub{200, json, `{"status":"ok","requestId":"r1","extra":1}`}, "extra"},
		{"missing requestId", "GET", "/healthz", "", "", stub{200, json, `{"status":"ok"}`}, "requestId"},
		{"no X-Request-Id", "GET", "/healthz", "", "", stub{200, map[string]string{"Content-Type": "application/json"}, `{"status":"ok","requestId":"r1"}`}, "X-Request-Id"},
		{"undocumented status", "GET", "/v1/tags/taxonomy", "Bearer k", "", stub{418, json, strings.Replace(errJSON, "%s", "UNAUTHORIZED", 1)}, "status is not supported"},
		{"code under the wrong status", "GET", "/v1/transcriptions/00000000-0000-4000-8000-000000000000", "Bearer k", "", stub{404, json, strings.Replace(errJSON, "%s", "FORBIDDEN", 1)}, "FORBIDDEN"},
		{"documented error", "GET", "/v1/transcriptions/00000000-0000-4000-8000-000000000000", "Bearer k", "", stub{404, json, strings.Replace(errJSON, "%s", "JOB_NOT_FOUND", 1)}, ""},
		{"quota details required", "POST", "/v1/summarize", "Bearer k", `{"transcript_text":"x"}`, stub{502, json, strings.Replace(errJSON, "%s", "PROVIDER_SUBMIT_FAILED", 1)}, "details"},
		{"rejected request answered 2xx", "POST", "/v1/summarize", "", `{"transcript_text":"x"}`, stub{202, json, `{"job_id":"00000000-0000-4000-8000-000000000000","type":"summary","status":"queued","received_at":"2026-01-01T00:00:00.000Z","requestId":"r1"}`}, "not a 4xx"},
		{"rejected request answered 401", "POST", "/v1/summarize", "", `{"transcript_text":"x"}`, stub{401, json, strings.Replace(errJSON, "%s", "UNAUTHORIZED", 1)}, ""},
		{"unknown path answered 200", "GET", "/v1/nope", "", "", stub{200, json, `{"requestId":"r1"}`}, "undocumented operation"},
		{"unknown path answered 404", "GET", "/v1/nope", "", "", stub{404, json, strings.Replace(errJSON, "%s", "NOT_FOUND", 1)}, ""},
		{"wrong method answered 405", "PUT", "/v1/transcriptions", "", "", stub{405, jsonAllow, strings.Replace(errJSON, "%s", "METHOD_NOT_ALLOWED", 1)}, ""},
		{"wrong method without Allow", "PUT", "/v1/transcriptions", "", "", stub{405, json, strings.Replace(errJSON, "%s", "METHOD_NOT_ALLOWED", 1)}, "Allow"},
		{"wrong content type", "GET", "/healthz", "", "", stub{200, map[string]string{"Content-Type": "text/html", "X-Request-Id": "r1"}, `<p>ok</p>`}, "Content-Type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := c.resp
			srv := httptest.NewServer(&resp)
			defer srv.Close()
			v, err := NewTransport(context.Background(), srv.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			ctx := WithReporter(context.Background(), func(msg string) { got = append(got, msg) })
			var body io.Reader
			if c.body != "" {
				body = strings.NewReader(c.body)
			}
			req, _ := http.NewRequestWithContext(ctx, c.method, srv.URL+c.path, body)
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			r, err := (&http.Client{Transport: v}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			r.Body.Close()
			switch {
			case c.wantProblem == "" && len(got) > 0:
				t.Errorf("want no problem, got %q", got)
			case c.wantProblem != "" && (len(got) != 1 || !strings.Contains(got[0], c.wantProblem)):
				t.Errorf("want one problem mentioning %q, got %q", c.wantProblem, got)
			}
			if v.Checked() != 1 {
				t.Errorf("checked %d", v.Checked())
			}
			if un := v.Uncovered(); len(un) < 28 {
				t.Errorf("uncovered operations %v", un)
			}
		})
	}
}

func TestValidateWebhook(t *testing.T) {
	v, err := NewTransport(context.Background(), "http://127.0.0.1:1", nil)
	if err != nil {
		t.Fatal(err)
	}
	valid := `{"status":"succeeded","call_uuid":"c","data":{"tags":[{"agent_approach":["empathetic"],"call_outcome":["resolved"],"customer_sentiment":[]}],"request_id":"r","msg_id":"00000000-0000-4000-8000-000000000000"}}`
	for _, c := range []struct {
		body     string
		ok       bool
		unsigned bool
	}{
		{valid, true, false},
		{valid, false, true}, // deliveries are always signed
		{strings.Replace(valid, `"customer_sentiment":[]`, `"customer_sentiment":null`, 1), false, false},
		{strings.Replace(valid, `"status":"succeeded"`, `"status":"done"`, 1), false, false},
		{strings.Replace(valid, `"call_uuid":"c",`, `"call_uuid":"c","extra":1,`, 1), false, false},
		{strings.Replace(valid, `"msg_id":"00000000-0000-4000-8000-000000000000"`, `"msg_id":"x"`, 1), false, false},
	} {
		req, _ := http.NewRequest(http.MethodPost, "http://receiver.example/hook", strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("apikey", "k")
		if !c.unsigned {
			req.Header.Set("webhook-id", "00000000-0000-4000-8000-000000000000")
			req.Header.Set("webhook-timestamp", "1764264000")
			req.Header.Set("webhook-signature", "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4= v1,bm90IGEgcmVhbCBzaWduYXR1cmU=")
		}
		err := v.ValidateWebhook(context.Background(), "tagDelivered", req, []byte(c.body))
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok=%v", c.body, err, c.ok)
		}
	}
}

func TestWithoutDumps(t *testing.T) {
	in := "response body doesn't match\nSchema:\n  {\n    \"type\": \"object\"\n  }\n\nValue:\n  {}\nnext error"
	if got := withoutDumps(in); got != "response body doesn't match\nnext error" {
		t.Errorf("%q", got)
	}
}
