package apitest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// testDashboardJobs covers the dashboard's session routes end to end: the
// same jobs as the API-key routes, behind the session, with the player's
// audio link and the export download; on the AWS-emulating stack this goes
// through the emulated API Gateway to DashboardFunction.
func (s *suite) testDashboardJobs(t *testing.T) {
	a, b := s.newAccount(t), s.newAccount(t)
	audio := MakeWAV(1, 2, false)
	body, ct := multipartBody(Upload{Filename: "dashboard.wav", Data: audio})
	r := s.c.do(t, http.MethodPost, "/dashboard/jobs", body, withBearer(a.Token), withContentType(ct))
	if !expectStatus(t, r, http.StatusAccepted) || r.Str("job_id") == "" {
		t.FailNow()
	}
	id := r.Str("job_id")
	// Neither credential opens the other's routes.
	expectError(t, s.c.do(t, http.MethodGet, "/dashboard/jobs/"+id, nil, withBearer(a.APIKey)), http.StatusUnauthorized, "UNAUTHORIZED")
	expectError(t, s.c.do(t, http.MethodGet, "/v1/transcriptions/"+id, nil, withBearer(a.Token)), http.StatusUnauthorized, "UNAUTHORIZED")
	s.mustSucceed(t, a, id)

	r = s.c.do(t, http.MethodGet, "/dashboard/jobs?type=transcription&limit=5", nil, withBearer(a.Token))
	if expectStatus(t, r, http.StatusOK) {
		items, _ := r.Body["transcriptions"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["job_id"] != id {
			t.Errorf("%s: want the one uploaded job", r)
		}
	}
	r = s.c.do(t, http.MethodGet, "/dashboard/jobs/"+id, nil, withBearer(a.Token))
	if expectStatus(t, r, http.StatusOK) && r.Str("status") != "succeeded" {
		t.Errorf("%s: want succeeded", r)
	}
	expectError(t, s.c.do(t, http.MethodGet, "/dashboard/jobs/"+id, nil, withBearer(b.Token)), http.StatusForbidden, "FORBIDDEN")
	expectError(t, s.c.do(t, http.MethodGet, "/dashboard/jobs?status=done", nil, withBearer(a.Token)), http.StatusBadRequest, "INVALID_FILTER")

	// The player's link streams the stored file and seeks (HTTP Range).
	r = s.c.do(t, http.MethodGet, "/dashboard/jobs/"+id+"/audio", nil, withBearer(a.Token))
	link := ""
	if expectStatus(t, r, http.StatusOK) {
		link = r.Str("url")
		checkTime(t, r, "expires_at", r.Body["expires_at"])
		status, got := fetchRange(t, link, "bytes=0-43")
		if status != http.StatusPartialContent || !bytes.Equal(got, audio[:44]) {
			t.Errorf("audio link: %d, %d bytes; want 206 with the file's first 44 bytes", status, len(got))
		}
	}
	expectError(t, s.c.do(t, http.MethodGet, "/dashboard/jobs/"+id+"/audio", nil, withBearer(b.Token)), http.StatusForbidden, "FORBIDDEN")

	file := s.c.download(t, "/dashboard/jobs/"+id+"/export?format=vtt", withBearer(a.Token))
	if file.Status != http.StatusOK || !bytes.HasPrefix(file.Raw, []byte("WEBVTT")) {
		t.Errorf("%s: want a WebVTT file", file)
	}

	r = s.c.postJSON(t, "/dashboard/summarize", map[string]string{"transcription_job_id": id}, withBearer(a.Token))
	if expectStatus(t, r, http.StatusAccepted) && r.Str("type") != "summary" {
		t.Errorf("%s: want a summary job", r)
	}
	summaryID := r.Str("job_id")
	r = s.c.postJSON(t, "/dashboard/tag", map[string]string{"transcript_text": "User: my card was stolen"}, withBearer(a.Token))
	if expectStatus(t, r, http.StatusAccepted) && r.Str("type") != "tags" {
		t.Errorf("%s: want a tags job", r)
	}
	// The review screen loads a call's summaries and tags by its id: the
	// summary made from it, not the tags made from text.
	r = s.c.do(t, http.MethodGet, "/dashboard/jobs?source_job_id="+id, nil, withBearer(a.Token))
	if expectStatus(t, r, http.StatusOK) {
		items, _ := r.Body["transcriptions"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["job_id"] != summaryID || r.Body["next_cursor"] != nil {
			t.Errorf("%s: want the one summary %s made from %s", r, summaryID, id)
		}
	}
	expectError(t, s.c.do(t, http.MethodGet, "/dashboard/jobs?source_job_id=call-1", nil, withBearer(a.Token)), http.StatusBadRequest, "INVALID_FILTER")
	expectError(t, s.c.postJSON(t, "/dashboard/tag", map[string]string{}, withBearer(a.Token)), http.StatusBadRequest, "MISSING_TRANSCRIPT_SOURCE")
	r = s.c.do(t, http.MethodGet, "/dashboard/limits", nil, withBearer(a.Token))
	if expectStatus(t, r, http.StatusOK) {
		if n, _ := num(r.Body["max_audio_bytes"]); n != maxUploadBytes {
			t.Errorf("%s: max_audio_bytes want %d", r, maxUploadBytes)
		}
	}
	// The dashboard's two-step upload, and the public sign-in config.
	r = s.c.do(t, http.MethodPost, "/dashboard/uploads", nil, withBearer(a.Token))
	if expectStatus(t, r, http.StatusCreated) && (r.Str("upload_id") == "" || r.Str("url") == "") {
		t.Errorf("%s: want an upload_id and a url", r)
	}
	expectError(t, s.c.do(t, http.MethodPost, "/dashboard/uploads", nil, withBearer(a.APIKey)), http.StatusUnauthorized, "UNAUTHORIZED")
	r = s.c.do(t, http.MethodGet, "/dashboard/config", nil)
	if id, _ := r.Body["identity"].(map[string]any); expectStatus(t, r, http.StatusOK) && id["kind"] != "local" && id["kind"] != "cognito" {
		t.Errorf("%s: identity.kind is neither local nor cognito", r)
	}
	r = s.c.do(t, http.MethodGet, "/dashboard/taxonomy", nil, withBearer(a.Token))
	if cats, _ := r.Body["categories"].([]any); expectStatus(t, r, http.StatusOK) && len(cats) == 0 {
		t.Errorf("%s: no categories", r)
	}

	// Deleting through the dashboard removes the audio at once: the link dies.
	expectStatus(t, s.c.do(t, http.MethodDelete, "/dashboard/jobs/"+id, nil, withBearer(a.Token)), http.StatusAccepted)
	expectError(t, a.Get(t, id), http.StatusNotFound, "JOB_NOT_FOUND")
	if link != "" {
		if status, _ := fetchRange(t, link, ""); status != http.StatusNotFound {
			t.Errorf("audio link after delete: %d, want 404", status)
		}
	}
}

// fetchRange GETs an absolute URL (an audio link), optionally with a Range.
func fetchRange(t testing.TB, url, rng string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatalf("audio link %q: %v", url, err)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}
