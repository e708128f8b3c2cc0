package diskaudio

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// UploadPath is where the local stack receives presigned uploads.
const UploadPath = "/local-uploads"

// maxFieldBytes bounds each form field before the file (key, expiry, size, signature).
const maxFieldBytes = 1 << 10

// Uploads is the local stack's stand-in for an S3 presigned POST, so the
// two-step upload path (POST /v1/transcriptions/uploads, then upload_id) works
// without AWS. SignUpload hands out a URL and form fields like S3 does; the
// client POSTs them as multipart/form-data with the file as the last part, and
// ServeHTTP stores the file under the signed key after checking the signature
// (HMAC-SHA256 over key, expiry and size limit), the expiry and the size limit,
// reading no more than the limit. Success is 204, as S3 answers by default.
type Uploads struct {
	signer
	store *Store
}

// NewUploads signs with secret and stores into store. SetBaseURL must be
// called once the listener's address is known.
func NewUploads(store *Store, secret []byte, now func() time.Time) *Uploads {
	return &Uploads{signer: newSigner(secret, now), store: store}
}

// SignUpload implements callscribe.UploadSigner.
func (u *Uploads) SignUpload(_ context.Context, key string, maxBytes int64, expiry time.Duration) (string, map[string]string, error) {
	base, err := u.baseURL()
	if err != nil {
		return "", nil, err
	}
	expires := strconv.FormatInt(u.now().Add(expiry).Unix(), 10)
	limit := strconv.FormatInt(maxBytes, 10)
	return base + UploadPath, map[string]string{
		"key": key, "expires": expires, "max_bytes": limit, "signature": u.sign(key, expires, limit),
	}, nil
}

// ServeHTTP receives one presigned upload.
func (u *Uploads) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		uploadError(w, r, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Uploads are POSTed.")
		return
	}
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		uploadError(w, r, http.StatusBadRequest, "INVALID_REQUEST", "Send multipart/form-data: the signed fields, then the file.")
		return
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	fields := map[string]string{}
	for {
		part, err := mr.NextPart()
		if err != nil {
			uploadError(w, r, http.StatusBadRequest, "INVALID_REQUEST", "The form has no file part.")
			return
		}
		if part.FormName() != "file" {
			b, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
			if err != nil || len(b) > maxFieldBytes {
				uploadError(w, r, http.StatusBadRequest, "INVALID_REQUEST", "A form field is malformed or too long.")
				return
			}
			fields[part.FormName()] = string(b)
			continue
		}
		u.receive(w, r, fields, part)
		return
	}
}

// receive checks the signed fields that came before the file, then stores it.
func (u *Uploads) receive(w http.ResponseWriter, r *http.Request, fields map[string]string, file io.Reader) {
	key, expires, limit := fields["key"], fields["expires"], fields["max_bytes"]
	if !hmac.Equal([]byte(u.sign(key, expires, limit)), []byte(fields["signature"])) {
		uploadError(w, r, http.StatusForbidden, "SIGNATURE_MISMATCH", "The upload's signed fields were changed or are missing.")
		return
	}
	exp, err1 := strconv.ParseInt(expires, 10, 64)
	maxBytes, err2 := strconv.ParseInt(limit, 10, 64)
	if err1 != nil || err2 != nil || u.now().Unix() > exp {
		uploadError(w, r, http.StatusForbidden, "UPLOAD_EXPIRED", "The upload URL has expired; ask for a new one.")
		return
	}
	if u.store.exists(callscribe.ConsumedUploadKey(key)) {
		// The upload already made a job; storing again would only leave an
		// object nobody can use.
		uploadError(w, r, http.StatusConflict, "UPLOAD_CONSUMED", "This upload was already used for a job; ask for a new one.")
		return
	}
	tmp, err := os.CreateTemp(u.store.root, incomingPattern)
	if err != nil {
		uploadError(w, r, http.StatusInternalServerError, "INTERNAL_ERROR", "The upload could not be stored.")
		return
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	n, err := io.Copy(tmp, io.LimitReader(file, maxBytes+1))
	if err != nil {
		uploadError(w, r, http.StatusBadRequest, "INVALID_REQUEST", "The upload was cut short.")
		return
	}
	if n > maxBytes {
		// Like S3's content-length-range: refused without reading the rest.
		w.Header().Set("Connection", "close")
		uploadError(w, r, http.StatusRequestEntityTooLarge, "FILE_TOO_LARGE", "The file is larger than the signed limit of "+limit+" bytes.")
		return
	}
	if _, err = tmp.Seek(0, io.SeekStart); err == nil {
		err = u.store.PutAudio(r.Context(), key, tmp, n)
	}
	if err != nil {
		uploadError(w, r, http.StatusInternalServerError, "INTERNAL_ERROR", "The upload could not be stored.")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// RemoveStaleUploads deletes files under prefix (the staging area of the
// two-step path) last written before cutoff: uploads nobody turned into a job.
// It is the local counterpart of the bucket's lifecycle rule on uploads/.
func (s *Store) RemoveStaleUploads(prefix string, cutoff time.Time) (int, error) {
	dir, err := s.path(prefix)
	if err != nil {
		return 0, err
	}
	return removeOlder(dir, cutoff, func(string) bool { return true })
}

// uploadError answers in the API's error shape, requestId included (also
// sent as X-Request-Id): these routes sit beside the API, not behind it, so
// the id is made here unless the request already carries one.
func uploadError(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	requestID := callscribe.RequestID(r.Context())
	if requestID == "" {
		requestID = uuid.NewString()
	}
	w.Header().Set("X-Request-Id", requestID)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": message}, "requestId": requestID})
}
