package client

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// source is audio that can be read again from the start (for a retry or the
// fallback to the two-step upload) and whose size is known.
type source struct {
	name string
	size int64
	open func() (io.ReadCloser, error)
}

// CreateTranscriptionFromFile uploads the audio file at path and creates a
// transcription job. A file larger than the direct-upload threshold
// (WithDirectUploadMaxBytes) goes through the two-step upload; a smaller one is
// sent in the create request, and if that request is refused as too large
// (413, as a gateway in front of the service may answer) it is sent again
// through the two-step upload, once.
func (c *Client) CreateTranscriptionFromFile(ctx context.Context, path string, opts TranscriptionOptions) (*CreatedJob, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	f.Close()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("callscribe: %s is not a regular file", path)
	}
	src := source{name: filepath.Base(path), size: st.Size(), open: func() (io.ReadCloser, error) { return os.Open(path) }}
	return c.createTranscription(ctx, src, opts)
}

// CreateTranscriptionFromReader creates a transcription job from audio read
// from r, named filename (the job's original_filename). The audio is read into
// memory first (at most a byte over the 10 MiB limit: a larger file is refused
// without being sent), then sent as CreateTranscriptionFromFile sends a file.
func (c *Client) CreateTranscriptionFromReader(ctx context.Context, filename string, r io.Reader, opts TranscriptionOptions) (*CreatedJob, error) {
	limit := max(MaxFileBytes, c.directUploadMax)
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("callscribe: reading the audio: %w", err)
	}
	src := source{name: filename, size: int64(len(data)), open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
	return c.createTranscription(ctx, src, opts)
}

func (c *Client) createTranscription(ctx context.Context, src source, opts TranscriptionOptions) (*CreatedJob, error) {
	if src.size > MaxFileBytes {
		return nil, tooLarge(src.size, MaxFileBytes)
	}
	if src.size > c.directUploadMax {
		return c.createViaUpload(ctx, src, opts)
	}
	job, err := c.createDirect(ctx, src, opts)
	if ErrorStatus(err) == http.StatusRequestEntityTooLarge {
		return c.createViaUpload(ctx, src, opts)
	}
	return job, err
}

func (c *Client) callCreate(ctx context.Context, req *request) (*CreatedJob, error) {
	var out CreatedJob
	if err := c.call(ctx, req, &out); err != nil {
		return nil, err
	}
	if out.Type == "" {
		out.Type = TypeTranscription
	}
	return &out, nil
}

// tooLarge is the error of a file refused before sending: the service's
// FILE_TOO_LARGE code, Status 0 (no request was made).
func tooLarge(size, limit int64) *Error {
	return &Error{Code: CodeFileTooLarge, Message: fmt.Sprintf("The file is %d bytes, over the %d-byte limit; it was not sent.", size, limit)}
}

// createDirect sends the audio in the create request.
func (c *Client) createDirect(ctx context.Context, src source, opts TranscriptionOptions) (*CreatedJob, error) {
	fields := transcriptionFields(opts)
	req, err := multipartRequest(fields, "file", src)
	if err != nil {
		return nil, err
	}
	req.method, req.path, req.auth = http.MethodPost, "/v1/transcriptions", authAPIKey
	req.idempotencyKey = idempotencyKey(ctx)
	return c.callCreate(ctx, req)
}

func (c *Client) createViaUpload(ctx context.Context, src source, opts TranscriptionOptions) (*CreatedJob, error) {
	// The caller's key belongs to the request that makes the job; the upload
	// gets its own.
	up, err := c.CreateUpload(WithIdempotencyKey(ctx, newKey()), src.name, src.size)
	if err != nil {
		return nil, err
	}
	if err := c.sendUpload(ctx, up, src, true); err != nil {
		return nil, err
	}
	if opts.Filename == "" {
		opts.Filename = src.name
	}
	return c.CreateTranscriptionFromUpload(ctx, up.ID, opts)
}

func transcriptionFields(opts TranscriptionOptions) [][2]string {
	var fields [][2]string
	if opts.Language != "" {
		fields = append(fields, [2]string{"language", opts.Language})
	}
	if len(opts.Metadata) > 0 {
		fields = append(fields, [2]string{"metadata", string(opts.Metadata)})
	}
	if len(opts.Keyterms) > 0 {
		b, _ := json.Marshal(opts.Keyterms) // a []string always encodes
		fields = append(fields, [2]string{"keyterms", string(b)})
	}
	if opts.RedactPII != nil {
		fields = append(fields, [2]string{"redact_pii", strconv.FormatBool(*opts.RedactPII)})
	}
	return fields
}

// CreateTranscriptionFromUpload creates a transcription job from a two-step
// upload that SendUpload finished. An upload is consumed by the create: a
// second create from it is UPLOAD_NOT_FOUND.
func (c *Client) CreateTranscriptionFromUpload(ctx context.Context, uploadID string, opts TranscriptionOptions) (*CreatedJob, error) {
	fields := append([][2]string{{"upload_id", uploadID}}, transcriptionFields(opts)...)
	if opts.Filename != "" {
		fields = append(fields, [2]string{"filename", opts.Filename})
	}
	req, err := multipartRequest(fields, "", source{})
	if err != nil {
		return nil, err
	}
	req.method, req.path, req.auth = http.MethodPost, "/v1/transcriptions", authAPIKey
	req.idempotencyKey = idempotencyKey(ctx)
	return c.callCreate(ctx, req)
}

// CreateUpload starts a two-step upload (POST /v1/transcriptions/uploads): the
// service signs a direct-to-storage POST valid until ExpiresAt. filename and
// size are kept on the Upload for SendUpload; the name reaches the job through
// TranscriptionOptions.Filename when the upload is turned into a job.
func (c *Client) CreateUpload(ctx context.Context, filename string, size int64) (*Upload, error) {
	req := &request{method: http.MethodPost, path: "/v1/transcriptions/uploads", auth: authAPIKey, idempotencyKey: idempotencyKey(ctx)}
	var up Upload
	if err := c.call(ctx, req, &up); err != nil {
		return nil, err
	}
	up.Filename, up.Size = filename, size
	return &up, nil
}

// SendUpload sends the file to the storage address of a two-step upload, as
// a multipart/form-data POST of the signed fields followed by the file (the
// form S3 presigned POSTs take). When u.Size is positive exactly that many
// bytes are read from r and streamed; otherwise r is read into memory first to
// learn its size. Neither the API key nor the gateway key is sent to storage.
// A file over u.MaxBytes is refused without sending (FILE_TOO_LARGE, Status 0);
// storage's own refusals are *Errors with its status. Nothing is retried: r
// cannot be read twice.
func (c *Client) SendUpload(ctx context.Context, u *Upload, r io.Reader) error {
	src := source{name: u.Filename, size: u.Size}
	if src.size <= 0 {
		limit := u.MaxBytes
		if limit <= 0 {
			limit = MaxFileBytes
		}
		data, err := io.ReadAll(io.LimitReader(r, limit+1))
		if err != nil {
			return fmt.Errorf("callscribe: reading the audio: %w", err)
		}
		src.size = int64(len(data))
		r = bytes.NewReader(data)
	}
	used := false
	src.open = func() (io.ReadCloser, error) {
		if used {
			return nil, errors.New("callscribe: the upload's reader cannot be read twice")
		}
		used = true
		return io.NopCloser(io.LimitReader(r, src.size)), nil
	}
	return c.sendUpload(ctx, u, src, false)
}

func (c *Client) sendUpload(ctx context.Context, u *Upload, src source, replayable bool) error {
	if u.MaxBytes > 0 && src.size > u.MaxBytes {
		return tooLarge(src.size, u.MaxBytes)
	}
	names := make([]string, 0, len(u.Fields))
	for k := range u.Fields {
		names = append(names, k)
	}
	sort.Strings(names)
	fields := make([][2]string, 0, len(names))
	for _, k := range names {
		fields = append(fields, [2]string{k, u.Fields[k]})
	}
	name := src.name
	if name == "" {
		name = "audio"
	}
	src.name = name
	req, err := multipartRequest(fields, "file", src)
	if err != nil {
		return err
	}
	req.method, req.rawURL, req.auth, req.idempotent = http.MethodPost, u.URL, authNone, replayable
	_, err = c.do(ctx, req)
	var apiErr *Error
	if errors.As(err, &apiErr) && strings.HasPrefix(apiErr.Code, "HTTP_") {
		storageError(apiErr)
	}
	return err
}

// storageError reads S3's XML error body, when the refusal has one.
func storageError(e *Error) {
	_, after, ok := strings.Cut(e.Message, ": ")
	if !ok || !strings.Contains(after, "<Error>") {
		return
	}
	var x struct {
		Code      string `xml:"Code"`
		Message   string `xml:"Message"`
		RequestID string `xml:"RequestId"`
	}
	if xml.Unmarshal([]byte(after[strings.Index(after, "<Error>"):]), &x) == nil && x.Code != "" {
		e.Code, e.Message = x.Code, "storage refused the upload: "+x.Message
		if x.RequestID != "" && e.RequestID == "" {
			e.RequestID = x.RequestID
		}
	}
}

// switchWriter writes to whichever buffer is current.
type switchWriter struct{ buf *bytes.Buffer }

func (w *switchWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }

// multipartRequest builds a multipart/form-data body of the text fields then,
// when fileField is set, the file, streamed with an exact Content-Length.
func multipartRequest(fields [][2]string, fileField string, src source) (*request, error) {
	var head, tail bytes.Buffer
	sw := &switchWriter{buf: &head}
	mw := multipart.NewWriter(sw)
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	if fileField != "" {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, fileField, quoteEscaper.Replace(src.name)))
		h.Set("Content-Type", audioContentType(src.name))
		if _, err := mw.CreatePart(h); err != nil {
			return nil, err
		}
	}
	sw.buf = &tail
	if err := mw.Close(); err != nil {
		return nil, err
	}
	headB, tailB := head.Bytes(), tail.Bytes()
	req := &request{contentType: mw.FormDataContentType()}
	if fileField == "" {
		all := append(append([]byte{}, headB...), tailB...)
		req.contentLength = int64(len(all))
		req.body = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(all)), nil }
		return req, nil
	}
	req.contentLength = int64(len(headB)) + src.size + int64(len(tailB))
	req.body = func() (io.ReadCloser, error) {
		rc, err := src.open()
		if err != nil {
			return nil, err
		}
		return struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(headB), exactly(rc, src.size), bytes.NewReader(tailB)), rc}, nil
	}
	return req, nil
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "", "\n", "")

func audioContentType(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".wav":
		return "audio/wav"
	case ".mp3":
		return "audio/mpeg"
	}
	return "application/octet-stream"
}

// exactly reads n bytes of r, failing if r ends sooner (the file shrank since
// its size was taken), so the Content-Length sent is never a lie.
func exactly(r io.Reader, n int64) io.Reader {
	return &exactReader{r: io.LimitReader(r, n), left: n}
}

type exactReader struct {
	r    io.Reader
	left int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}
