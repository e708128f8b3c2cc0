package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/callscribe/callscribe/shared/service/jobs"
)

// The header a create may carry to be safe to retry, and the one a replayed
// answer carries (the service's rules: package jobs, idempotency.go).
const (
	headerIdempotencyKey     = "Idempotency-Key"
	headerIdempotentReplayed = "Idempotent-Replayed"
)

// idempotent runs create, the part of a create handler after its request is
// decoded, under the request's Idempotency-Key: without one it just runs; a
// retry of an answered request gets the stored answer (with
// Idempotent-Replayed: true and the first request's requestId), and create's
// own answer is stored for retries. content writes what of the decoded
// request makes it "the same request" (method and path are added here).
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, accountID string, content func(h io.Writer) error, create func(w http.ResponseWriter, r *http.Request)) {
	keys, sent := r.Header[headerIdempotencyKey]
	if !sent {
		create(w, r)
		return
	}
	key := keys[0]
	if err := jobs.CheckIdempotencyKey(key); err != nil {
		writeError(w, r, err)
		return
	}
	fingerprint, err := requestFingerprint(r, content)
	if err != nil {
		writeError(w, r, err)
		return
	}
	ctx := r.Context()
	replay, claim, err := s.deps.Service.BeginIdempotent(ctx, accountID, key, fingerprint)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if replay != nil {
		h := w.Header()
		if id := bodyRequestID(replay.Body); id != "" {
			h.Set("X-Request-Id", id)
		}
		h.Set(headerIdempotentReplayed, "true")
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(replay.Body)))
		w.WriteHeader(replay.Status)
		_, _ = w.Write(replay.Body)
		logger(ctx).Info("replayed the answer of an idempotent request", "status", replay.Status, "originalRequestId", h.Get("X-Request-Id"))
		return
	}
	if claim == nil { // this deployment keeps no idempotency records
		create(w, r)
		return
	}
	answer := &answerRecorder{ResponseWriter: w}
	finished := false
	defer func() {
		if !finished { // create panicked: free the key for the retry
			_ = claim.Finish(ctx, http.StatusInternalServerError, nil)
		}
	}()
	create(answer, r.WithContext(jobs.WithIdempotencyKey(ctx, accountID, key, fingerprint)))
	finished = true
	if err := claim.Finish(ctx, answer.status, answer.body.Bytes()); err != nil {
		logger(ctx).Error("storing the answer of an idempotent request failed", "err", err, "status", answer.status)
	}
}

// requestFingerprint hashes the method, the path and the request's content.
func requestFingerprint(r *http.Request, content func(io.Writer) error) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", r.Method, r.URL.Path)
	if err := content(h); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fingerprintJSON is a content function for a decoded JSON request: the
// decoded value re-encoded, so spacing and key order do not matter.
func fingerprintJSON(v any) func(io.Writer) error {
	return func(w io.Writer) error { return json.NewEncoder(w).Encode(v) }
}

// fingerprintUpload is the content of a multipart create: the SHA-256 of the
// file (the spooled copy, rewound for the service) and the other fields.
func fingerprintUpload(up *upload) func(io.Writer) error {
	return func(w io.Writer) error {
		fileHash := ""
		if up.audio != nil {
			f := up.audio.Reader()
			h := sha256.New()
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			if _, err := io.Copy(h, f); err != nil {
				return err
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			fileHash = hex.EncodeToString(h.Sum(nil))
		}
		return json.NewEncoder(w).Encode([]string{fileHash, up.filename, up.language, up.metadata, up.keyterms, up.uploadID, up.filenameField, up.redactPII})
	}
}

// noContent is the content of a create that has none beyond its route.
func noContent(io.Writer) error { return nil }

// bodyRequestID is the requestId of a stored JSON answer.
func bodyRequestID(body []byte) string {
	var b struct {
		RequestID string `json:"requestId"`
	}
	_ = json.Unmarshal(body, &b)
	return b.RequestID
}

// answerRecorder passes an answer through and keeps its status and body.
type answerRecorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (a *answerRecorder) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *answerRecorder) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	a.body.Write(b)
	return a.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer.
func (a *answerRecorder) Unwrap() http.ResponseWriter { return a.ResponseWriter }
