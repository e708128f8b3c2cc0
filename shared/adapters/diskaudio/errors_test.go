package diskaudio

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The local upload and audio routes answer every refusal in the API's error
// shape: {error: {code, message}, requestId}, the id also in X-Request-Id.
func TestErrorsCarryARequestID(t *testing.T) {
	store, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	uploads := NewUploads(store, []byte("secret"), time.Now)
	links := NewLinks(store, []byte("secret"), time.Now)
	cases := []struct {
		name    string
		handler http.Handler
		req     *http.Request
		status  int
		code    string
	}{
		{"upload with GET", uploads, httptest.NewRequest(http.MethodGet, UploadPath, nil), http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED"},
		{"upload not multipart", uploads, httptest.NewRequest(http.MethodPost, UploadPath, strings.NewReader("x")), http.StatusBadRequest, "INVALID_REQUEST"},
		{"upload unsigned", uploads, func() *http.Request {
			body := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\nabc\r\n--b--\r\n"
			r := httptest.NewRequest(http.MethodPost, UploadPath, strings.NewReader(body))
			r.Header.Set("Content-Type", "multipart/form-data; boundary=b")
			return r
		}(), http.StatusForbidden, "SIGNATURE_MISMATCH"},
		{"audio with POST", links, httptest.NewRequest(http.MethodPost, AudioPath, nil), http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED"},
		{"audio unsigned", links, httptest.NewRequest(http.MethodGet, AudioPath+"?key=audio/a/b.wav", nil), http.StatusForbidden, "SIGNATURE_MISMATCH"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			c.handler.ServeHTTP(rec, c.req)
			var body struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
				RequestID string `json:"requestId"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", rec.Body, err)
			}
			if rec.Code != c.status || body.Error.Code != c.code || body.Error.Message == "" {
				t.Fatalf("got %d %s, want %d %s", rec.Code, rec.Body, c.status, c.code)
			}
			if body.RequestID == "" || rec.Header().Get("X-Request-Id") != body.RequestID {
				t.Fatalf("requestId %q, X-Request-Id %q", body.RequestID, rec.Header().Get("X-Request-Id"))
			}
		})
	}
}
