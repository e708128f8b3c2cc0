package apitest

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"sort"
	"testing"
)

// testTwoStepUpload: the path for files larger than a Lambda request carries.
// POST /v1/transcriptions/uploads hands out a presigned POST; the client sends
// the file straight to storage, then creates the job with upload_id in place of
// file, under the same validation, quota and error codes.
func (s *suite) testTwoStepUpload(t *testing.T) {
	a := s.newAccount(t)

	t.Run("Accepted", func(t *testing.T) {
		audio := MakeWAV(2, 2, false)
		id := s.stageUpload(t, a, audio)
		r := a.uploadByID(t, id, `{"source":"two-step"}`)
		if !expectStatus(t, r, http.StatusAccepted) {
			t.FailNow()
		}
		job := s.mustSucceed(t, a, r.Str("job_id"))
		if d, _ := num(job.Body["result"].(map[string]any)["duration_seconds"]); !approx(d, WAVSeconds(2)) {
			t.Errorf("%s: duration_seconds %v, want %v", job, d, WAVSeconds(2))
		}
		// The staged upload is consumed: a second job cannot reuse it.
		expectError(t, a.uploadByID(t, id, ""), http.StatusBadRequest, "UPLOAD_NOT_FOUND")
	})

	t.Run("ConsumedFormPostedAgain", func(t *testing.T) {
		r := a.c.do(t, http.MethodPost, "/v1/transcriptions/uploads", nil, withBearer(a.APIKey))
		if !expectStatus(t, r, http.StatusCreated) {
			t.FailNow()
		}
		audio := MakeWAV(1, 1, false)
		if status, body := postForm(t, s.c.hc, r, audio); status/100 != 2 {
			t.Fatalf("presigned upload: %d %s", status, body)
		}
		first := a.uploadByID(t, r.Str("upload_id"), "")
		if !expectStatus(t, first, http.StatusAccepted) {
			t.FailNow()
		}
		// The same signed form again: the local stack refuses to store it, S3
		// stores it; either way the id makes no second job.
		status, body := postForm(t, s.c.hc, r, audio)
		t.Logf("re-posting a consumed form: %d %s", status, body)
		expectError(t, a.uploadByID(t, r.Str("upload_id"), ""), http.StatusBadRequest, "UPLOAD_NOT_FOUND")
		s.mustSucceed(t, a, first.Str("job_id"))
	})

	t.Run("SameValidation", func(t *testing.T) {
		expectError(t, a.uploadByID(t, s.stageUpload(t, a, []byte("plain text, not audio")), ""), http.StatusUnsupportedMediaType, "UNSUPPORTED_AUDIO_FORMAT")
		expectError(t, a.uploadByID(t, s.stageUpload(t, a, WAVHeaderOnly()), ""), http.StatusBadRequest, "AUDIO_DURATION_UNKNOWN")
		expectError(t, a.uploadByID(t, s.stageUpload(t, a, MakeWAV(1, 1, false)), "[1,2]"), http.StatusBadRequest, "INVALID_METADATA_JSON")
	})

	t.Run("UnknownUpload", func(t *testing.T) {
		expectError(t, a.uploadByID(t, newUUID(), ""), http.StatusBadRequest, "UPLOAD_NOT_FOUND")
		// Another account's staged upload is not found either.
		other := s.newAccount(t)
		expectError(t, a.uploadByID(t, s.stageUpload(t, other, MakeWAV(1, 1, false)), ""), http.StatusBadRequest, "UPLOAD_NOT_FOUND")
	})

	t.Run("SignedLimit", func(t *testing.T) {
		r := a.c.do(t, http.MethodPost, "/v1/transcriptions/uploads", nil, withBearer(a.APIKey))
		if !expectStatus(t, r, http.StatusCreated) {
			t.FailNow()
		}
		if n, _ := num(r.Body["max_bytes"]); n != 10<<20 {
			t.Errorf("%s: max_bytes %v, want 10 MiB", r, r.Body["max_bytes"])
		}
		// Storage refuses a file over the signed limit (S3's content-length-range);
		// a store that does not enforce POST policies (gofakes3) takes it, and
		// then the second step must refuse it.
		big := SizedWAV(10<<20+1, 2)
		if status, body := postForm(t, s.c.hc, r, big); status/100 == 2 {
			t.Logf("storage accepted %d bytes despite the signed limit (%d %s); the second step must refuse them", len(big), status, body)
			expectError(t, a.uploadByID(t, r.Str("upload_id"), ""), http.StatusRequestEntityTooLarge, "FILE_TOO_LARGE")
		}
	})

	t.Run("NeedsAPIKey", func(t *testing.T) {
		r := a.c.do(t, http.MethodPost, "/v1/transcriptions/uploads", nil)
		expectError(t, r, http.StatusUnauthorized, "UNAUTHORIZED")
	})
}

// stageUpload asks for a presigned upload, sends data to it and returns the upload_id.
func (s *suite) stageUpload(t testing.TB, a *Account, data []byte) string {
	t.Helper()
	r := a.c.do(t, http.MethodPost, "/v1/transcriptions/uploads", nil, withBearer(a.APIKey))
	if r.Status != http.StatusCreated || r.Str("upload_id") == "" || r.Str("url") == "" {
		t.Fatalf("create upload: %s", r)
	}
	checkTime(t, r, "expires_at", r.Body["expires_at"])
	if status, body := postForm(t, s.c.hc, r, data); status/100 != 2 {
		t.Fatalf("presigned upload to %s: %d %s", r.Str("url"), status, body)
	}
	return r.Str("upload_id")
}

// postForm sends data to the presigned upload an uploads response describes.
func postForm(t testing.TB, hc *http.Client, upload *Response, data []byte) (int, string) {
	t.Helper()
	raw, _ := upload.Body["fields"].(map[string]any)
	fields := make(map[string]string, len(raw))
	for k, v := range raw {
		fields[k] = fmt.Sprint(v)
	}
	status, body, err := PostPresigned(hc, upload.Str("url"), fields, data)
	if err != nil {
		// A server may close the connection on an oversized body before reading it all.
		return 0, err.Error()
	}
	return status, body
}

// PostPresigned POSTs a presigned upload as S3 expects it: multipart/form-data
// with the signed fields (in name order), then the file as the last part. It
// returns the status and the start of the response body.
func PostPresigned(hc *http.Client, url string, fields map[string]string, data []byte) (int, string, error) {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, k := range names {
		_ = mw.WriteField(k, fields[k])
	}
	fw, _ := mw.CreateFormFile("file", "call.wav")
	_, _ = fw.Write(data)
	_ = mw.Close()
	resp, err := hc.Post(url, mw.FormDataContentType(), &buf)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode, string(b), nil
}

// uploadByID creates a transcription from a staged upload (multipart, like the direct path).
func (a *Account) uploadByID(t testing.TB, uploadID, metadata string) *Response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("upload_id", uploadID)
	if metadata != "" {
		_ = mw.WriteField("metadata", metadata)
	}
	_ = mw.Close()
	return a.c.do(t, http.MethodPost, "/v1/transcriptions", buf.Bytes(), withBearer(a.APIKey), withContentType(mw.FormDataContentType()))
}
