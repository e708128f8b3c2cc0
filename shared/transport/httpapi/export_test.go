package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// succeed moves an uploaded job to succeeded with the given segments, as the
// pipeline would.
func (f *fixture) succeed(t *testing.T, id string, segs []callscribe.Segment) {
	t.Helper()
	ctx := context.Background()
	for _, tr := range []callscribe.Transition{
		{JobID: id, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusProcessing, At: time.Now()},
		{JobID: id, From: []callscribe.JobStatus{callscribe.StatusProcessing}, To: callscribe.StatusSucceeded, At: time.Now(),
			Result: func() json.RawMessage {
				b, _ := json.Marshal(callscribe.TranscriptionResult{DurationSeconds: 2, Transcript: segs})
				return b
			}()},
	} {
		if _, err := f.jobs.TransitionJob(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExportFormatsAndErrors(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	id, _ := jsonBody(t, f.upload(t, wav(2, 8000)))["job_id"].(string)
	// Not finished yet: 409, for every format.
	rec := f.do(t, http.MethodGet, "/v1/transcriptions/"+id+"/export?format=srt", "")
	if rec.Code != http.StatusConflict || decodeError(t, rec).Error.Code != callscribe.CodeTranscriptionNotReady {
		t.Fatalf("unfinished: %d %s", rec.Code, rec.Body)
	}
	f.succeed(t, id, []callscribe.Segment{
		{Text: "hello <img src=x onerror=alert(1)>", TimeStart: 0.5, TimeEnd: 1.5, SpeakerAlias: "Agent"},
		{Text: "hi", TimeStart: 1.6, TimeEnd: 2, SpeakerID: 1, SpeakerAlias: "User"},
	})
	for format, want := range map[string]struct{ contentType, contains string }{
		"txt":  {"text/plain; charset=utf-8", "[00:00] Agent: hello <img src=x onerror=alert(1)>\n[00:01] User: hi\n"},
		"srt":  {"application/x-subrip; charset=utf-8", "1\n00:00:00,500 --> 00:00:01,500\nAgent: hello"},
		"vtt":  {"text/vtt; charset=utf-8", "WEBVTT\n\n00:00:00.500 --> 00:00:01.500\n<v Agent>hello &lt;img src=x onerror=alert(1)&gt;\n"},
		"json": {"application/json", `"speaker_alias": "User"`},
	} {
		rec := f.do(t, http.MethodGet, "/v1/transcriptions/"+id+"/export?format="+format, "")
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != want.contentType || !strings.Contains(rec.Body.String(), want.contains) {
			t.Errorf("%s: %d %q\n%s", format, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		if cd := rec.Header().Get("Content-Disposition"); cd != `attachment; filename="`+id+"."+format+`"` || rec.Header().Get("X-Request-Id") == "" {
			t.Errorf("%s: Content-Disposition %q, X-Request-Id %q", format, cd, rec.Header().Get("X-Request-Id"))
		}
	}
	for _, q := range []string{"", "?format=", "?format=docx", "?format=SRT"} {
		rec := f.do(t, http.MethodGet, "/v1/transcriptions/"+id+"/export"+q, "")
		if rec.Code != http.StatusBadRequest || decodeError(t, rec).Error.Code != callscribe.CodeInvalidFormat {
			t.Errorf("format %q: %d %s", q, rec.Code, rec.Body)
		}
	}
	// The dashboard's download is the same file behind a session.
	rec = f.sessionDo(t, f.account, http.MethodGet, "/dashboard/jobs/"+id+"/export?format=txt", nil, "")
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Body.String(), "[00:00] Agent: hello") {
		t.Fatalf("dashboard export: %d %s", rec.Code, rec.Body)
	}
	// Ownership and existence as for GET.
	rec = f.sessionDo(t, "someone-else", http.MethodGet, "/dashboard/jobs/"+id+"/export?format=txt", nil, "")
	if rec.Code != http.StatusForbidden || decodeError(t, rec).Error.Code != callscribe.CodeForbidden {
		t.Fatalf("other account: %d %s", rec.Code, rec.Body)
	}
	rec = f.do(t, http.MethodGet, "/v1/transcriptions/00000000-0000-4000-8000-000000000000/export?format=txt", "")
	if rec.Code != http.StatusNotFound || decodeError(t, rec).Error.Code != callscribe.CodeJobNotFound {
		t.Fatalf("absent: %d %s", rec.Code, rec.Body)
	}
	noKey := f.sessionDo(t, f.account, http.MethodGet, "/v1/transcriptions/"+id+"/export?format=txt", nil, "")
	if noKey.Code != http.StatusUnauthorized {
		t.Fatalf("a session on the API-key route: %d", noKey.Code)
	}
	// A failed transcription never will have one: 409 as well, saying so.
	failedID, _ := jsonBody(t, f.upload(t, wav(2, 8000)))["job_id"].(string)
	if _, err := f.jobs.TransitionJob(context.Background(), callscribe.Transition{
		JobID: failedID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusFailed, At: time.Now(),
		Error: &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "unreadable"},
	}); err != nil {
		t.Fatal(err)
	}
	rec = f.do(t, http.MethodGet, "/v1/transcriptions/"+failedID+"/export?format=vtt", "")
	if e := decodeError(t, rec).Error; rec.Code != http.StatusConflict || e.Code != callscribe.CodeTranscriptionNotReady || !strings.Contains(e.Message, "failed") {
		t.Fatalf("failed: %d %s", rec.Code, rec.Body)
	}
	// A summary has no transcript to export.
	sumID, _ := jsonBody(t, f.do(t, http.MethodPost, "/v1/summarize", `{"transcript_text":"Agent: hi"}`))["job_id"].(string)
	rec = f.do(t, http.MethodGet, "/v1/transcriptions/"+sumID+"/export?format=txt", "")
	if rec.Code != http.StatusBadRequest || decodeError(t, rec).Error.Code != callscribe.CodeNotATranscription {
		t.Fatalf("summary export: %d %s", rec.Code, rec.Body)
	}
}

// An empty job id in the export path is MISSING_JOB_ID after authentication,
// as for GET /v1/transcriptions/, not net/http's redirect to the GET of a job
// named "export".
func TestExportWithoutJobID(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	rec := f.do(t, http.MethodGet, "/v1/transcriptions//export?format=txt", "")
	if rec.Code != http.StatusBadRequest || decodeError(t, rec).Error.Code != callscribe.CodeMissingJobID {
		t.Fatalf("API: %d %s", rec.Code, rec.Body)
	}
	rec = f.sessionDo(t, f.account, http.MethodGet, "/dashboard/jobs//export?format=txt", nil, "")
	if rec.Code != http.StatusBadRequest || decodeError(t, rec).Error.Code != callscribe.CodeMissingJobID {
		t.Fatalf("dashboard: %d %s", rec.Code, rec.Body)
	}
	anonymous := httptest.NewRecorder()
	f.server.ServeHTTP(anonymous, httptest.NewRequest(http.MethodGet, "/v1/transcriptions//export?format=txt", nil))
	if anonymous.Code != http.StatusUnauthorized {
		t.Fatalf("without an API key: %d %s", anonymous.Code, anonymous.Body)
	}
	// The catch-all server of a deployment answers the same.
	fallback := NewFallback(f.server.deps, f.server.cfg, RouteExportJob)
	req := httptest.NewRequest(http.MethodGet, "/v1/transcriptions//export?format=txt", nil)
	req.Header.Set("Authorization", "Bearer "+f.apiKey)
	rec = httptest.NewRecorder()
	fallback.ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest || decodeError(t, rec).Error.Code != callscribe.CodeMissingJobID {
		t.Fatalf("fallback: %d %s", rec.Code, rec.Body)
	}
}

// The audio link route likewise: an empty job id is MISSING_JOB_ID after the
// session check, not a redirect to the GET of a job named "audio".
func TestAudioLinkWithoutJobID(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	rec := f.sessionDo(t, f.account, http.MethodGet, "/dashboard/jobs//audio", nil, "")
	if rec.Code != http.StatusBadRequest || decodeError(t, rec).Error.Code != callscribe.CodeMissingJobID {
		t.Fatalf("dashboard: %d %s", rec.Code, rec.Body)
	}
	anonymous := httptest.NewRecorder()
	f.server.ServeHTTP(anonymous, httptest.NewRequest(http.MethodGet, "/dashboard/jobs//audio", nil))
	if anonymous.Code != http.StatusUnauthorized {
		t.Fatalf("without a session: %d %s", anonymous.Code, anonymous.Body)
	}
}
