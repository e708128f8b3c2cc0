package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/adapters/diskaudio"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

// sessionDo sends a request with a dashboard session of account.
func (f *fixture) sessionDo(t *testing.T, account, method, path string, body io.Reader, contentType string) *httptest.ResponseRecorder {
	t.Helper()
	token, _ := f.sessions.Issue(account)
	req := httptest.NewRequest(method, path, body)
	req.Header.Set("Authorization", "Bearer "+token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	f.server.ServeHTTP(rec, req)
	return rec
}

func multipartAudio(t *testing.T, audio []byte) (io.Reader, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "call.wav")
	fw.Write(audio)
	mw.WriteField("metadata", `{"agent":"ann"}`)
	mw.Close()
	return &body, mw.FormDataContentType()
}

func jsonBody(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	if m["requestId"] == "" || m["requestId"] != rec.Header().Get("X-Request-Id") {
		t.Fatalf("requestId missing or different from X-Request-Id: %v", m)
	}
	return m
}

// The dashboard's job routes are the API's handlers behind a session: the
// same codes, the same ownership rule, and neither credential opens the
// other's routes.
func TestDashboardJobRoutesMirrorTheAPI(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	body, ct := multipartAudio(t, wav(2, 8000))
	rec := f.sessionDo(t, f.account, http.MethodPost, "/dashboard/jobs", body, ct)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	id, _ := jsonBody(t, rec)["job_id"].(string)

	rec = f.sessionDo(t, f.account, http.MethodGet, "/dashboard/jobs?type=transcription&limit=5", nil, "")
	list := jsonBody(t, rec)
	items, _ := list["transcriptions"].([]any)
	if rec.Code != http.StatusOK || len(items) != 1 || items[0].(map[string]any)["job_id"] != id {
		t.Fatalf("list: %d %v", rec.Code, list)
	}
	rec = f.sessionDo(t, f.account, http.MethodGet, "/dashboard/jobs/"+id, nil, "")
	if job := jsonBody(t, rec); rec.Code != http.StatusOK || job["status"] != "queued" || job["metadata"].(map[string]any)["agent"] != "ann" {
		t.Fatalf("get: %d %v", rec.Code, job)
	}
	// The same bad input gets the same code as on the API route.
	rec = f.sessionDo(t, f.account, http.MethodGet, "/dashboard/jobs?status=done", nil, "")
	if rec.Code != http.StatusBadRequest || decodeError(t, rec).Error.Code != callscribe.CodeInvalidFilter {
		t.Fatalf("bad filter: %d %s", rec.Code, rec.Body)
	}
	rec = f.sessionDo(t, f.account, http.MethodPost, "/dashboard/summarize", strings.NewReader(`{"transcription_job_id":"`+id+`"}`), "application/json")
	if rec.Code != http.StatusConflict || decodeError(t, rec).Error.Code != callscribe.CodeTranscriptionNotReady {
		t.Fatalf("summarize an unfinished call: %d %s", rec.Code, rec.Body)
	}
	rec = f.sessionDo(t, f.account, http.MethodPost, "/dashboard/tag", strings.NewReader(`{"transcript_text":"User: my card was stolen"}`), "application/json")
	if rec.Code != http.StatusAccepted || jsonBody(t, rec)["type"] != "tags" {
		t.Fatalf("tag text: %d %s", rec.Code, rec.Body)
	}
	// Another account's session is refused with 403, as an API key would be.
	rec = f.sessionDo(t, "someone-else", http.MethodGet, "/dashboard/jobs/"+id, nil, "")
	if rec.Code != http.StatusForbidden || decodeError(t, rec).Error.Code != callscribe.CodeForbidden {
		t.Fatalf("other account: %d %s", rec.Code, rec.Body)
	}
	rec = f.sessionDo(t, "someone-else", http.MethodDelete, "/dashboard/jobs/"+id, nil, "")
	if rec.Code != http.StatusForbidden {
		t.Fatalf("other account delete: %d %s", rec.Code, rec.Body)
	}
	// An API key does not open the dashboard's routes, a session not the API's.
	if rec := f.do(t, http.MethodGet, "/dashboard/jobs", ""); rec.Code != http.StatusUnauthorized {
		t.Fatalf("API key on a session route: %d", rec.Code)
	}
	if rec := f.sessionDo(t, f.account, http.MethodGet, "/v1/transcriptions/"+id, nil, ""); rec.Code != http.StatusUnauthorized {
		t.Fatalf("session on an API-key route: %d", rec.Code)
	}
	rec = f.sessionDo(t, f.account, http.MethodGet, "/dashboard/jobs/", nil, "")
	if rec.Code != http.StatusBadRequest || decodeError(t, rec).Error.Code != callscribe.CodeMissingJobID {
		t.Fatalf("empty job id: %d %s", rec.Code, rec.Body)
	}
	rec = f.sessionDo(t, f.account, http.MethodDelete, "/dashboard/jobs/"+id, nil, "")
	if rec.Code != http.StatusAccepted {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	if rec := f.do(t, http.MethodGet, "/v1/transcriptions/"+id, ""); rec.Code != http.StatusNotFound {
		t.Fatalf("deleted through the dashboard, still readable by API: %d", rec.Code)
	}
}

// The player's audio link streams the stored file with Range support and dies
// with the job.
func TestDashboardAudioLinkStreamsWithRanges(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	mux := http.NewServeMux()
	mux.Handle(diskaudio.AudioPath, f.links)
	mux.Handle("/", f.server)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f.links.SetBaseURL(srv.URL)

	audio := wav(1, 8000)
	rec := f.upload(t, audio)
	id, _ := jsonBody(t, rec)["job_id"].(string)
	rec = f.sessionDo(t, f.account, http.MethodGet, "/dashboard/jobs/"+id+"/audio", nil, "")
	link := jsonBody(t, rec)
	if rec.Code != http.StatusOK || link["expires_at"] == nil {
		t.Fatalf("audio link: %d %v", rec.Code, link)
	}
	linkURL, _ := link["url"].(string)

	req, _ := http.NewRequest(http.MethodGet, linkURL, nil)
	req.Header.Set("Range", "bytes=100-199")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(part, audio[100:200]) || resp.Header.Get("Content-Type") != "audio/wav" {
		t.Fatalf("range read: %d %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(part))
	}

	u, _ := url.Parse(linkURL)
	q := u.Query()
	q.Set("key", strings.Replace(q.Get("key"), id, "00000000-0000-4000-8000-000000000000", 1))
	u.RawQuery = q.Encode()
	if resp, err := http.Get(u.String()); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a link for another key was accepted: %v %v", resp.StatusCode, err)
	}

	// Another account cannot get a link; a derived job has no audio of its own.
	if rec := f.sessionDo(t, "someone-else", http.MethodGet, "/dashboard/jobs/"+id+"/audio", nil, ""); rec.Code != http.StatusForbidden {
		t.Fatalf("other account's link: %d", rec.Code)
	}
	rec = f.do(t, http.MethodPost, "/v1/summarize", `{"transcript_text":"Agent: hello"}`)
	summaryID, _ := jsonBody(t, rec)["job_id"].(string)
	rec = f.sessionDo(t, f.account, http.MethodGet, "/dashboard/jobs/"+summaryID+"/audio", nil, "")
	if rec.Code != http.StatusNotFound || decodeError(t, rec).Error.Code != callscribe.CodeNotFound {
		t.Fatalf("derived job audio: %d %s", rec.Code, rec.Body)
	}

	// Deleting the job removes the audio at once: the link it handed out is dead.
	if rec := f.do(t, http.MethodDelete, "/v1/transcriptions/"+id, ""); rec.Code != http.StatusAccepted {
		t.Fatalf("delete: %d", rec.Code)
	}
	if resp, err := http.Get(linkURL); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("deleted audio still served: %v %v", resp.StatusCode, err)
	}
}

func TestDashboardLimits(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	rec := f.sessionDo(t, f.account, http.MethodGet, "/dashboard/limits", nil, "")
	m := jsonBody(t, rec)
	if rec.Code != http.StatusOK || m["max_audio_bytes"] != float64(jobs.MaxAudioBytes) || m["direct_upload_max_bytes"] != float64(4<<20) ||
		m["max_page_size"] != float64(jobs.MaxPageSize) {
		t.Fatalf("limits: %d %v", rec.Code, m)
	}
	if rec := f.do(t, http.MethodGet, "/dashboard/limits", ""); rec.Code != http.StatusUnauthorized {
		t.Fatalf("limits with an API key: %d", rec.Code)
	}
}

func TestDashboardConfigNeedsNoSession(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	rec := httptest.NewRecorder()
	f.server.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/dashboard/config", nil))
	m := jsonBody(t, rec)
	if rec.Code != http.StatusOK || m["identity"].(map[string]any)["kind"] != "local" {
		t.Fatalf("local config: %d %v", rec.Code, m)
	}
	cognito := New(Deps{Service: f.server.deps.Service}, Config{Identity: IdentityConfig{Kind: "cognito", Region: "eu-west-1", ClientID: "abc", Endpoint: "https://cognito-idp.eu-west-1.amazonaws.com/"}})
	rec = httptest.NewRecorder()
	cognito.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/dashboard/config", nil))
	id := jsonBody(t, rec)["identity"].(map[string]any)
	if id["kind"] != "cognito" || id["client_id"] != "abc" || id["region"] != "eu-west-1" || id["endpoint"] != "https://cognito-idp.eu-west-1.amazonaws.com/" {
		t.Fatalf("cognito config: %v", id)
	}
}

func TestDashboardDailyUsage(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	if rec := f.upload(t, wav(90, 8000)); rec.Code != http.StatusAccepted {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	today := callscribe.UsageDay(time.Now())
	rec := f.sessionDo(t, f.account, http.MethodGet, "/dashboard/usage/daily", nil, "")
	var body struct {
		Months []struct {
			Month       string  `json:"month"`
			UsedMinutes float64 `json:"used_minutes"`
			Days        []struct {
				Date    string  `json:"date"`
				Minutes float64 `json:"minutes"`
				Jobs    int     `json:"jobs"`
			} `json:"days"`
		} `json:"months"`
		TopLanguages []struct {
			Language *string `json:"language"`
			Minutes  float64 `json:"minutes"`
		} `json:"top_languages"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); rec.Code != http.StatusOK || err != nil || len(body.Months) != 2 {
		t.Fatalf("daily usage: %d %v %s", rec.Code, err, rec.Body)
	}
	current := body.Months[1]
	if current.Month != callscribe.QuotaMonth(time.Now()) || current.UsedMinutes != 1.5 {
		t.Fatalf("current month %s with %v minutes, want %s with 1.5", current.Month, current.UsedMinutes, callscribe.QuotaMonth(time.Now()))
	}
	found := false
	for _, d := range current.Days {
		if d.Date == today {
			found = d.Minutes == 1.5 && d.Jobs == 1
		} else if d.Minutes != 0 {
			t.Errorf("%s has %v minutes", d.Date, d.Minutes)
		}
	}
	if !found {
		t.Fatalf("today %s not 1.5 minutes in 1 job: %+v", today, current.Days)
	}
	if len(body.TopLanguages) != 1 || body.TopLanguages[0].Language != nil || body.TopLanguages[0].Minutes != 1.5 {
		t.Fatalf("top languages %s", rec.Body)
	}

	rec = f.sessionDo(t, f.account, http.MethodGet, "/dashboard/usage/daily?month=2026-13", nil, "")
	if rec.Code != http.StatusBadRequest || decodeError(t, rec).Error.Code != callscribe.CodeInvalidRequest {
		t.Fatalf("bad month: %d %s", rec.Code, rec.Body)
	}
	if rec := f.do(t, http.MethodGet, "/dashboard/usage/daily", ""); rec.Code != http.StatusUnauthorized {
		t.Fatalf("daily usage with an API key: %d", rec.Code)
	}
}
