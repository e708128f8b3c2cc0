package httpapi

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

// maxUnknownFields bounds the form fields the API does not read, in all.
const maxUnknownFields = 64 << 10

// upload is what the multipart form carried, as sent: the service validates
// the fields (jobs.Service.SubmitTranscription).
type upload struct {
	audio    *jobs.SpooledAudio // nil when the form had no file part
	filename string
	language string
	metadata string
	keyterms string
	// redactPII is the redact_pii field as sent ("" when absent).
	redactPII string
	uploadID  string
	// filenameField is the form's filename field, for an upload_id create.
	filenameField string
}

// readUpload streams the multipart body. The file goes to a temporary file
// (jobs.SpoolAudio) up to jobs.MaxAudioBytes+1 bytes and no further, so an
// upload costs a copy buffer of memory, and an oversized one at most the limit
// of disk, never the whole body. The caller closes the upload.
func readUpload(w http.ResponseWriter, r *http.Request) (_ *upload, err error) {
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		return nil, callscribe.Errorf(callscribe.CodeAudioFileMissing, "Send the audio as multipart/form-data with a `file` field.")
	}
	body := http.MaxBytesReader(w, r.Body, jobs.MaxAudioBytes+maxMultipartOverhead)
	mr := multipart.NewReader(body, params["boundary"])
	up := &upload{}
	unknownBudget := int64(maxUnknownFields)
	defer func() {
		if err != nil {
			up.close()
		}
	}()
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, bodyError(err, false)
		}
		switch part.FormName() {
		case "file":
			if up.audio != nil {
				return nil, multipleAudioSources()
			}
			spooled, err := jobs.SpoolAudio(part)
			if callscribe.IsCode(err, callscribe.CodeFileTooLarge) {
				return nil, err
			}
			if err != nil {
				return nil, bodyError(err, true)
			}
			up.audio = spooled
			up.filename = cleanFilename(part.FileName())
		case "language":
			v, err := readField(part, 64)
			if err != nil {
				return nil, err
			}
			up.language = strings.TrimSpace(v)
		case "metadata":
			// An oversized object still goes to the service (which answers
			// INVALID_METADATA_JSON after the file checks, as for any bad object);
			// readField has read only one byte past the limit of it.
			v, err := readField(part, jobs.MaxMetadataBytes)
			if err != nil && !callscribe.IsCode(err, callscribe.CodeRequestTooLarge) {
				return nil, err
			}
			up.metadata = v
		case "keyterms":
			// As metadata: an oversized field still goes to the service,
			// which answers INVALID_KEYTERMS after the file checks.
			v, err := readField(part, jobs.MaxKeytermsBytes)
			if err != nil && !callscribe.IsCode(err, callscribe.CodeRequestTooLarge) {
				return nil, err
			}
			up.keyterms = v
		case "redact_pii":
			// Longer than any valid value: the service refuses what was read
			// (INVALID_REDACT_PII) after the file checks.
			v, err := readField(part, 16)
			if err != nil && !callscribe.IsCode(err, callscribe.CodeRequestTooLarge) {
				return nil, err
			}
			up.redactPII = v
		case "filename":
			// The job's file name when it comes from a two-step upload (a
			// file part's own name wins).
			v, err := readField(part, 1024)
			if err != nil {
				return nil, err
			}
			up.filenameField = v
		case "upload_id":
			v, err := readField(part, 128)
			if err != nil {
				return nil, err
			}
			up.uploadID = strings.TrimSpace(v)
		default:
			// Unknown fields are drained and ignored, up to maxUnknownFields
			// bytes in all: more is REQUEST_TOO_LARGE, whether or not the
			// body limit would have been reached.
			n, err := io.Copy(io.Discard, io.LimitReader(part, unknownBudget+1))
			if err != nil {
				return nil, bodyError(err, false)
			}
			if unknownBudget -= n; unknownBudget < 0 {
				return nil, callscribe.Errorf(callscribe.CodeRequestTooLarge, "The form's unknown fields are larger than %d bytes in all.", maxUnknownFields)
			}
		}
		part.Close()
	}
	if up.audio != nil && up.uploadID != "" {
		return nil, multipleAudioSources()
	}
	if up.audio == nil {
		up.filename = cleanFilename(up.filenameField)
	}
	return up, nil
}

// multipleAudioSources refuses an upload naming its audio twice: which one
// the caller meant is a guess the service does not make.
func multipleAudioSources() error {
	return callscribe.Errorf(callscribe.CodeMultipleAudioSources, "Send the audio once: one `file` part, or `upload_id` without `file`.")
}

// close removes the spooled file, if any.
func (up *upload) close() {
	if up.audio != nil {
		up.audio.Close()
	}
}

// readField reads a small text field, refusing more than limit bytes: then it
// returns REQUEST_TOO_LARGE with the first limit+1 bytes read.
func readField(part *multipart.Part, limit int64) (string, error) {
	data, err := io.ReadAll(io.LimitReader(part, limit+1))
	if err != nil {
		return "", bodyError(err, false)
	}
	if int64(len(data)) > limit {
		// Drain so the next part can be read.
		if _, err := io.Copy(io.Discard, part); err != nil {
			return "", bodyError(err, false)
		}
		return string(data), callscribe.Errorf(callscribe.CodeRequestTooLarge, "The %s field is longer than %d bytes.", part.FormName(), limit)
	}
	if !utf8.Valid(data) {
		return "", callscribe.Errorf(callscribe.CodeInvalidRequest, "The %s field must be UTF-8 text.", part.FormName())
	}
	return string(data), nil
}

// bodyError maps a failed read of the multipart body. Past the body's limit
// it is FILE_TOO_LARGE while the file part was being read, and
// REQUEST_TOO_LARGE otherwise: the file was within its limit (or absent) and
// the rest of the form is what outgrew its allowance.
func bodyError(err error, readingFile bool) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		if readingFile {
			return callscribe.Errorf(callscribe.CodeFileTooLarge, "The request is larger than the 10 MB (%d bytes) file limit.", jobs.MaxAudioBytes)
		}
		return callscribe.Errorf(callscribe.CodeRequestTooLarge, "The form's fields other than the file are larger than %d bytes.", maxMultipartOverhead)
	}
	return callscribe.Errorf(callscribe.CodeInvalidRequest, "The multipart body is malformed or was cut short.")
}

// cleanFilename keeps the base name only (clients send paths), bounded in length.
func cleanFilename(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(strings.TrimSpace(name))
	if name == "." || name == "/" {
		return ""
	}
	if len(name) > 255 {
		name = name[:255]
		for !utf8.ValidString(name) {
			name = name[:len(name)-1]
		}
	}
	return name
}

func (s *Server) createUpload(w http.ResponseWriter, r *http.Request, accountID string) {
	s.idempotent(w, r, accountID, noContent, func(w http.ResponseWriter, r *http.Request) {
		up, err := s.deps.Service.CreateUpload(r.Context(), accountID)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeJSON(w, r, http.StatusCreated, map[string]any{
			"upload_id": up.ID, "url": up.URL, "fields": up.Fields, "max_bytes": up.MaxBytes,
			"expires_at": formatTime(up.ExpiresAt),
		})
	})
}
