package httpapi

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// form builds a multipart body from parts in order; a part with a filename
// is a file part.
type formPart struct{ name, filename, value string }

func (f *fixture) postForm(t *testing.T, parts ...formPart) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		var w io.Writer
		if p.filename != "" {
			w, _ = mw.CreateFormFile(p.name, p.filename)
		} else {
			w, _ = mw.CreateFormField(p.name)
		}
		io.WriteString(w, p.value)
	}
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, "/v1/transcriptions", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+f.apiKey)
	rec := httptest.NewRecorder()
	f.server.ServeHTTP(rec, req)
	return rec
}

func TestUploadRefusesMalformedForms(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	call := string(wav(1, 8000))
	deep := strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
	cases := []struct {
		name   string
		parts  []formPart
		status int
		code   string
	}{
		{"two file parts", []formPart{{"file", "a.wav", call}, {"file", "b.wav", call}}, 400, callscribe.CodeMultipleAudioSources},
		{"file then upload_id", []formPart{{"file", "a.wav", call}, {"upload_id", "", "u-1"}}, 400, callscribe.CodeMultipleAudioSources},
		{"upload_id then file", []formPart{{"upload_id", "", "u-1"}, {"file", "a.wav", call}}, 400, callscribe.CodeMultipleAudioSources},
		// Past the body's limit while no file is being read: the form, not the file, is too large.
		{"12 MiB unknown field", []formPart{{"notes", "", strings.Repeat("x", 12<<20)}, {"file", "a.wav", call}}, 413, callscribe.CodeRequestTooLarge},
		{"unknown fields past their allowance", []formPart{{"file", "a.wav", call}, {"a", "", strings.Repeat("x", maxUnknownFields/2+1)}, {"b", "", strings.Repeat("x", maxUnknownFields/2)}}, 413, callscribe.CodeRequestTooLarge},
		{"file past its limit", []formPart{{"file", "a.wav", strings.Repeat("x", 12<<20)}}, 413, callscribe.CodeFileTooLarge},
		{"deeply nested metadata", []formPart{{"file", "a.wav", call}, {"metadata", "", deep}}, 400, callscribe.CodeInvalidMetadataJSON},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := f.postForm(t, c.parts...)
			if e := decodeError(t, rec); rec.Code != c.status || e.Error.Code != c.code {
				t.Fatalf("got %d %s, want %d %s", rec.Code, rec.Body, c.status, c.code)
			}
		})
	}
	// Unknown fields within their allowance are still ignored.
	rec := f.postForm(t, formPart{"file", "a.wav", call}, formPart{"notes", "", strings.Repeat("x", maxUnknownFields)})
	if rec.Code != http.StatusAccepted {
		t.Fatalf("small unknown field: %d %s", rec.Code, rec.Body)
	}
}

// A path with an empty, "." or ".." segment is answered in the error shape:
// the mux would redirect it to its cleaned form (another resource).
func TestUncleanPathsAreNotRedirected(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	id := "00000000-0000-4000-8000-000000000000"
	cases := []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/v1/transcriptions//export?format=txt", 400, callscribe.CodeMissingJobID},
		{"GET", "/v1/transcriptions//", 404, callscribe.CodeNotFound},
		{"GET", "//v1/transcriptions", 404, callscribe.CodeNotFound},
		{"GET", "/v1//transcriptions", 404, callscribe.CodeNotFound},
		{"GET", "/v1/transcriptions/" + id + "//export?format=txt", 404, callscribe.CodeNotFound},
		{"GET", "/v1/transcriptions/./" + id, 404, callscribe.CodeNotFound},
		{"GET", "/v1/transcriptions/x/../usage", 404, callscribe.CodeNotFound},
		{"DELETE", "/v1/transcriptions//", 404, callscribe.CodeNotFound},
		{"DELETE", "/dashboard/api-keys//", 404, callscribe.CodeNotFound},
		{"GET", "/healthz/.", 404, callscribe.CodeNotFound},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			rec := f.do(t, c.method, c.path, "")
			if e := decodeError(t, rec); rec.Code != c.status || e.Error.Code != c.code {
				t.Fatalf("got %d %s, want %d %s", rec.Code, rec.Body, c.status, c.code)
			}
		})
	}
}

func TestOverlongCursorIsInvalidPagination(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	rec := f.do(t, http.MethodGet, "/v1/transcriptions?cursor="+strings.Repeat("A", maxCursorBytes+1), "")
	if e := decodeError(t, rec); rec.Code != 400 || e.Error.Code != callscribe.CodeInvalidPagination || !strings.Contains(e.Error.Message, fmt.Sprint(maxCursorBytes)) {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
}

// Over MaxRequestHeaderBytes the listening server answers 431 in the error
// shape; net/http's own plain-text 431 is left for heads past MaxHeaderBytes.
func TestOversizedRequestHeadIsAnsweredInTheErrorShape(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer(f.server)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	base := "http://" + ln.Addr().String()
	get := func(query, header string) (*http.Response, errorBody) {
		req, _ := http.NewRequest(http.MethodGet, base+"/v1/transcriptions"+query, nil)
		req.Header.Set("Authorization", "Bearer "+f.apiKey)
		if header != "" {
			req.Header.Set("X-Padding", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		rec := httptest.NewRecorder()
		rec.Code = resp.StatusCode
		io.Copy(rec.Body, resp.Body)
		for k, v := range resp.Header {
			rec.Header()[k] = v
		}
		return resp, decodeError(t, rec)
	}
	resp, e := get("?cursor="+strings.Repeat("A", 100<<10), "")
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge || e.Error.Code != callscribe.CodeRequestHeadersTooLarge {
		t.Fatalf("100 KB cursor: %d %+v", resp.StatusCode, e)
	}
	resp, e = get("", strings.Repeat("x", MaxRequestHeaderBytes))
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge || e.Error.Code != callscribe.CodeRequestHeadersTooLarge {
		t.Fatalf("64 KiB header: %d %+v", resp.StatusCode, e)
	}
	resp, e = get("?cursor="+strings.Repeat("A", 10<<10), "")
	if resp.StatusCode != http.StatusBadRequest || e.Error.Code != callscribe.CodeInvalidPagination {
		t.Fatalf("10 KB cursor: %d %+v", resp.StatusCode, e)
	}
}
