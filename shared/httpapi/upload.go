package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/callscribe/callscribe/shared/audioprobe"
	"github.com/callscribe/callscribe/shared/callscribe"
)

// upload is what the multipart form carried.
type upload struct {
	audio    []byte
	filename string
	language string
	metadata json.RawMessage
	uploadID string
	badMeta  bool
}

// languageTag accepts BCP-47 / ISO 639 shaped tags such as "en", "en-US", "pt-BR".
var languageTag = regexp.MustCompile(`^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`)

// readUpload streams the multipart body. The file is read into memory up to
// MaxAudioBytes+1 bytes and no further, so an oversized upload costs at most the
// limit, never the whole body.
func readUpload(w http.ResponseWriter, r *http.Request) (*upload, error) {
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		return nil, callscribe.Errorf(callscribe.CodeAudioFileMissing, "Send the audio as multipart/form-data with a `file` field.")
	}
	body := http.MaxBytesReader(w, r.Body, MaxAudioBytes+maxMultipartOverhead)
	mr := multipart.NewReader(body, params["boundary"])
	up := &upload{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, bodyError(err)
		}
		switch part.FormName() {
		case "file":
			if up.audio != nil {
				part.Close()
				continue // first file wins; extra file parts are ignored
			}
			data, err := io.ReadAll(io.LimitReader(part, MaxAudioBytes+1))
			if err != nil {
				return nil, bodyError(err)
			}
			if len(data) > MaxAudioBytes {
				return nil, callscribe.Errorf(callscribe.CodeFileTooLarge, "The file is larger than the 10 MB (%d bytes) limit.", MaxAudioBytes)
			}
			up.audio = data
			up.filename = cleanFilename(part.FileName())
		case "language":
			v, err := readField(part, 64)
			if err != nil {
				return nil, err
			}
			up.language = strings.TrimSpace(v)
		case "metadata":
			v, err := readField(part, maxMetadataBytes)
			if err != nil {
				if callscribe.IsCode(err, callscribe.CodeRequestTooLarge) {
					up.badMeta = true
					continue
				}
				return nil, err
			}
			if strings.TrimSpace(v) == "" {
				continue
			}
			raw := json.RawMessage(bytes.TrimSpace([]byte(v)))
			var obj map[string]any
			if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
				up.badMeta = true
				continue
			}
			up.metadata = raw
		case "upload_id":
			v, err := readField(part, 128)
			if err != nil {
				return nil, err
			}
			up.uploadID = strings.TrimSpace(v)
		default:
			// Unknown fields are drained (bounded by the body limit) and ignored.
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, bodyError(err)
			}
		}
		part.Close()
	}
	return up, nil
}

// readField reads a small text field, refusing more than limit bytes.
func readField(part *multipart.Part, limit int64) (string, error) {
	data, err := io.ReadAll(io.LimitReader(part, limit+1))
	if err != nil {
		return "", bodyError(err)
	}
	if int64(len(data)) > limit {
		// Drain so the next part can be read.
		if _, err := io.Copy(io.Discard, part); err != nil {
			return "", bodyError(err)
		}
		return "", callscribe.Errorf(callscribe.CodeRequestTooLarge, "The %s field is longer than %d bytes.", part.FormName(), limit)
	}
	if !utf8.Valid(data) {
		return "", callscribe.Errorf(callscribe.CodeInvalidRequest, "The %s field must be UTF-8 text.", part.FormName())
	}
	return string(data), nil
}

func bodyError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return callscribe.Errorf(callscribe.CodeFileTooLarge, "The request is larger than the 10 MB (%d bytes) file limit.", MaxAudioBytes)
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

// probeAudio decides format and duration from the content.
func probeAudio(data []byte) (audioprobe.Info, error) {
	return audioprobe.Probe(bytes.NewReader(data), int64(len(data)))
}
