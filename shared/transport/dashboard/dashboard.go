// Package dashboard serves the web dashboard: the single page built from web/
// (TypeScript, Vite) into dist/app and embedded in the binary, so the service
// serves it offline with nothing loaded from elsewhere. The page talks to the
// service only through its documented routes (the /dashboard/ session routes,
// the local sign-in, the spec's usage route) and keeps its routes in the URL
// fragment, so the server has exactly one page and a few hashed assets.
//
// Every response carries a strict Content-Security-Policy: scripts, styles,
// fonts and API calls from this origin only, no inline script or style, no
// framing (frame-ancestors 'none'), no plugins; media may also come from the
// audio store's origin (S3 on AWS), which MediaOrigins names, and calls may
// go to the Cognito endpoint (ConnectOrigins). The session is a
// bearer token the page keeps in sessionStorage, never a cookie, so there is
// no cross-site request to forge; transcript text and file names are set as
// text, never as HTML.
package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed all:dist
var dist embed.FS

// Options configure the page's policy.
type Options struct {
	// MediaOrigins are extra origins the audio player may stream from (the
	// audio bucket's presigned URLs on AWS). Locally links are same-origin.
	MediaOrigins []string
	// ConnectOrigins are extra origins the page may call: the Cognito
	// endpoint where the dashboard signs in on AWS, and the audio bucket that
	// receives two-step uploads.
	ConnectOrigins []string
}

// Handler serves GET / (the page) and GET /assets/... (hashed, immutable).
func Handler(opts Options) http.Handler {
	app, _ := fs.Sub(dist, "dist/app")
	csp := strings.Join([]string{
		"default-src 'none'",
		"script-src 'self'",
		"style-src 'self'",
		"img-src 'self' data:",
		"font-src 'self'",
		"connect-src " + strings.Join(append([]string{"'self'"}, opts.ConnectOrigins...), " "),
		"media-src " + strings.Join(append([]string{"'self'", "blob:"}, opts.MediaOrigins...), " "),
		"form-action 'self'",
		"base-uri 'none'",
		"frame-ancestors 'none'",
	}, "; ")
	files := http.FileServerFS(app)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		clean := path.Clean("/" + r.URL.Path)
		if clean == "/" || clean == "/index.html" {
			page, err := fs.ReadFile(app, "index.html")
			if err != nil {
				h.Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte("The dashboard has not been built: run `make run` (it builds shared/transport/dashboard/web first).\n"))
				return
			}
			h.Set("Content-Type", "text/html; charset=utf-8")
			h.Set("Cache-Control", "no-cache")
			_, _ = w.Write(page)
			return
		}
		if !strings.HasPrefix(clean, "/assets/") {
			http.NotFound(w, r)
			return
		}
		// Asset names carry a content hash: a name never changes content.
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		r2 := r.Clone(r.Context())
		r2.URL.Path = clean
		files.ServeHTTP(w, r2)
	})
}
