package diskaudio

import (
	"context"
	"crypto/hmac"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"time"
)

// AudioPath is where the local stack serves presigned audio links.
const AudioPath = "/local-audio"

// Links is the local stack's stand-in for an S3 presigned GET, so the
// dashboard's audio player works the same way on both stacks: a
// session-authenticated route hands out a short-lived URL for one object (a
// browser's <audio> element cannot send an Authorization header), and
// ServeHTTP streams the file after checking the signature (HMAC-SHA256 over key
// and expiry) and the expiry, with HTTP Range support so the player can seek.
// A deleted job's audio file is gone, so its link answers 404 however fresh.
type Links struct {
	signer
	store *Store
}

// NewLinks signs with secret and serves from store. SetBaseURL must be called
// once the listener's address is known.
func NewLinks(store *Store, secret []byte, now func() time.Time) *Links {
	return &Links{signer: newSigner(secret, now), store: store}
}

// AudioURL implements callscribe.AudioLinker.
func (l *Links) AudioURL(_ context.Context, key string, expiry time.Duration) (string, error) {
	base, err := l.baseURL()
	if err != nil {
		return "", err
	}
	expires := strconv.FormatInt(l.now().Add(expiry).Unix(), 10)
	q := url.Values{"key": {key}, "expires": {expires}, "signature": {l.sign("GET", key, expires)}}
	return base + AudioPath + "?" + q.Encode(), nil
}

// ServeHTTP serves one linked object.
func (l *Links) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		uploadError(w, r, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Audio links are read with GET.")
		return
	}
	q := r.URL.Query()
	key, expires := q.Get("key"), q.Get("expires")
	if !hmac.Equal([]byte(l.sign("GET", key, expires)), []byte(q.Get("signature"))) {
		uploadError(w, r, http.StatusForbidden, "SIGNATURE_MISMATCH", "The audio link was changed or is incomplete.")
		return
	}
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || l.now().Unix() > exp {
		uploadError(w, r, http.StatusForbidden, "LINK_EXPIRED", "The audio link has expired; ask for a new one.")
		return
	}
	p, err := l.store.path(key)
	if err != nil {
		uploadError(w, r, http.StatusNotFound, "NOT_FOUND", "No such audio.")
		return
	}
	f, err := os.Open(p)
	if err != nil {
		uploadError(w, r, http.StatusNotFound, "NOT_FOUND", "No such audio.")
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.IsDir() {
		uploadError(w, r, http.StatusNotFound, "NOT_FOUND", "No such audio.")
		return
	}
	w.Header().Set("Content-Type", audioContentType(key))
	w.Header().Set("Cache-Control", "private, max-age=300")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// ServeContent answers Range requests (206), If-Modified-Since and HEAD.
	http.ServeContent(w, r, "", info.ModTime(), f)
}

// audioContentType is decided by the key's extension, which the service
// chose from the probed format (never the uploader's file name).
func audioContentType(key string) string {
	switch path.Ext(key) {
	case ".wav":
		return "audio/wav"
	case ".mp3":
		return "audio/mpeg"
	}
	return "application/octet-stream"
}
