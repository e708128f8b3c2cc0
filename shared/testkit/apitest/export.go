package apitest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// download fetches a file route: status, headers and bytes, without the JSON
// checks of do (a file has no requestId in its body; it has X-Request-Id).
func (c *client) download(t testing.TB, path string, opts ...reqOpt) *Response {
	t.Helper()
	out := &Response{Method: http.MethodGet, Path: path}
	ctx, cancel := context.WithTimeout(reportTo(t), 60*time.Second)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodGet, path, nil, opts...)
	if err != nil {
		t.Fatalf("building GET %s: %v", path, err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	out.Status, out.Header = resp.StatusCode, resp.Header
	if out.Raw, err = io.ReadAll(resp.Body); err != nil {
		t.Fatalf("GET %s: reading body: %v", path, err)
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("%s: no X-Request-Id header", out)
	}
	return out
}

// testExport covers GET /v1/transcriptions/{job_id}/export: each format of a
// finished transcription, and the JSON errors of the others.
func (s *suite) testExport(t *testing.T) {
	a, b := s.newAccount(t), s.newAccount(t)
	id := a.MustUpload(t, Upload{Filename: "export.wav", Data: MakeWAV(1, 2, false)})
	if id == "" {
		t.FailNow()
	}
	s.mustSucceed(t, a, id)
	path := "/v1/transcriptions/" + id + "/export?format="
	for format, want := range map[string]struct{ contentType, prefix string }{
		"txt":  {"text/plain", "["},
		"srt":  {"application/x-subrip", "1\n00:"},
		"vtt":  {"text/vtt", "WEBVTT\n\n00:"},
		"json": {"application/json", "{"},
	} {
		r := s.c.download(t, path+format, withBearer(a.APIKey))
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), want.contentType) || !strings.HasPrefix(string(r.Raw), want.prefix) {
			t.Errorf("%s: want 200 %s starting %q", r, want.contentType, want.prefix)
		}
		if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename="`+id+"."+format+`"` {
			t.Errorf("%s: Content-Disposition %q", r, cd)
		}
	}
	expectError(t, s.c.do(t, http.MethodGet, path+"docx", nil, withBearer(a.APIKey)), http.StatusBadRequest, "INVALID_FORMAT")
	expectError(t, s.c.do(t, http.MethodGet, path+"srt", nil, withBearer(b.APIKey)), http.StatusForbidden, "FORBIDDEN")
	expectError(t, s.c.do(t, http.MethodGet, "/v1/transcriptions/"+newUUID()+"/export?format=srt", nil, withBearer(a.APIKey)), http.StatusNotFound, "JOB_NOT_FOUND")
	expectError(t, s.c.do(t, http.MethodGet, path+"srt", nil), http.StatusUnauthorized, "UNAUTHORIZED")
	sum := a.MustDerive(t, "summary", map[string]any{"transcript_text": "Agent: hello\nUser: my bill is wrong"})
	expectError(t, s.c.do(t, http.MethodGet, "/v1/transcriptions/"+sum+"/export?format=txt", nil, withBearer(a.APIKey)), http.StatusBadRequest, "NOT_A_TRANSCRIPTION")
}
