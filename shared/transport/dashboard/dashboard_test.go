package dashboard

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestPageHeadersAndRoutes(t *testing.T) {
	h := Handler(Options{MediaOrigins: []string{"https://audio.example.com"}})
	get := func(method, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec
	}
	rec := get(http.MethodGet, "/")
	csp := rec.Header().Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "media-src 'self' blob: https://audio.example.com", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP allows inline or eval: %q", csp)
	}
	for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
		if rec.Header().Get(k) != v {
			t.Errorf("%s = %q, want %q", k, rec.Header().Get(k), v)
		}
	}
	// The page is there when the dashboard was built (make web), and says how
	// to build it when not; either way never a 500.
	switch rec.Code {
	case http.StatusOK:
		body := rec.Body.String()
		if !strings.Contains(body, `<div id="app">`) || strings.Contains(body, "<script>") || rec.Header().Get("Cache-Control") != "no-cache" {
			t.Errorf("page: %q, Cache-Control %q", body, rec.Header().Get("Cache-Control"))
		}
	case http.StatusServiceUnavailable:
		if !strings.Contains(rec.Body.String(), "make run") {
			t.Errorf("unbuilt page: %q", rec.Body.String())
		}
	default:
		t.Fatalf("GET /: %d", rec.Code)
	}
	if rec := get(http.MethodGet, "/assets/../../dashboard.go"); rec.Code != http.StatusNotFound {
		t.Errorf("a path outside the assets: %d", rec.Code)
	}
	if rec := get(http.MethodGet, "/secrets.txt"); rec.Code != http.StatusNotFound {
		t.Errorf("an unknown path: %d", rec.Code)
	}
	if rec := get(http.MethodPost, "/"); rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: %d %q", rec.Code, rec.Header().Get("Allow"))
	}
}

// The page links its icon as a hashed asset, so browsers ask for that and not
// for /favicon.ico; the link must resolve to an SVG the handler serves.
func TestPageIconIsServed(t *testing.T) {
	h := Handler(Options{})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code == http.StatusServiceUnavailable {
		t.Skip("the dashboard has not been built (make web)")
	}
	m := regexp.MustCompile(`<link rel="icon" type="image/svg\+xml" href="(/assets/[^"]+\.svg)"`).FindStringSubmatch(rec.Body.String())
	if m == nil {
		t.Fatalf("the page links no SVG icon: %s", rec.Body.String())
	}
	icon := httptest.NewRecorder()
	h.ServeHTTP(icon, httptest.NewRequest(http.MethodGet, m[1], nil))
	if icon.Code != http.StatusOK || icon.Header().Get("Content-Type") != "image/svg+xml" || !strings.Contains(icon.Body.String(), "<svg") {
		t.Errorf("GET %s: %d %q", m[1], icon.Code, icon.Header().Get("Content-Type"))
	}
}
