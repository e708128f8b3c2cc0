package apitest

import (
	"net/http"
	"net/url"
	"testing"
)

// testGetJob covers the GET /v1/transcriptions/{job_id} status table.
func (s *suite) testGetJob(t *testing.T) {
	a, b := s.newAccount(t), s.newAccount(t)
	ok := a.MustUpload(t, Upload{Filename: "get.wav", Data: MakeWAV(0.5, 2, false)})
	bad := a.MustUpload(t, Upload{Filename: "get-de.wav", Data: MakeWAV(0.5, 2, false), Language: s.opts.FailLanguage})
	if ok == "" || bad == "" {
		t.FailNow()
	}
	// The first read may see any state; the Job rules hold in each.
	checkJob(t, a.Get(t, ok), ok)
	g := s.mustSucceed(t, a, ok)
	if g.Str("type") != "transcription" || g.Str("status") != "succeeded" {
		t.Errorf("%s: want a succeeded transcription", g)
	}
	f := s.WaitJob(t, a, bad)
	if f != nil {
		if f.Str("status") != "failed" {
			t.Errorf("%s: want failed", f)
		}
		e, _ := f.Body["error"].(map[string]any)
		if e["code"] != s.opts.FailCode {
			t.Errorf("%s: error.code want %s", f, s.opts.FailCode)
		}
	}

	expectError(t, s.c.do(t, http.MethodGet, "/v1/transcriptions/", nil, withBearer(a.APIKey)), http.StatusBadRequest, "MISSING_JOB_ID")
	r := b.Get(t, ok)
	expectError(t, r, http.StatusForbidden, "FORBIDDEN")
	if _, leaked := r.Body["result"]; leaked {
		t.Errorf("%s: a 403 leaks the result", r)
	}
	expectError(t, b.Get(t, bad), http.StatusForbidden, "FORBIDDEN")
	expectError(t, a.Get(t, newUUID()), http.StatusNotFound, "JOB_NOT_FOUND")
	expectError(t, a.Get(t, "not-a-uuid"), http.StatusNotFound, "JOB_NOT_FOUND")
	// The owner still reads it after the refusals.
	expectStatus(t, a.Get(t, ok), http.StatusOK)
}

// testDerive covers POST /v1/summarize and POST /v1/tag, each against its whole table.
func (s *suite) testDerive(t *testing.T) {
	a, b := s.newAccount(t), s.newAccount(t)
	tx := a.MustUpload(t, Upload{Filename: "derive.wav", Data: MakeWAV(1, 2, false)})
	failed := a.MustUpload(t, Upload{Filename: "derive-de.wav", Data: MakeWAV(0.5, 2, false), Language: s.opts.FailLanguage})
	silent := a.MustUpload(t, Upload{Filename: "derive-silent.wav", Data: MakeWAV(0.5, 2, true)})
	foreign := b.MustUpload(t, Upload{Filename: "foreign.wav", Data: MakeWAV(0.5, 2, false)})
	if tx == "" || failed == "" || silent == "" || foreign == "" {
		t.FailNow()
	}
	s.mustSucceed(t, a, tx)
	s.mustSucceed(t, a, silent)
	s.mustSucceed(t, b, foreign)
	if r := s.WaitJob(t, a, failed); r == nil || r.Str("status") != "failed" {
		t.Fatalf("job with language %q did not fail: %v", s.opts.FailLanguage, r)
	}
	created := map[string]bool{tx: true, failed: true, silent: true}
	const text = "Agent: Thank you for calling, how can I help?\nUser: I was charged twice on my bill and I want a refund."

	for _, kind := range []string{"summary", "tags"} {
		t.Run(kind, func(t *testing.T) {
			// 202 from a transcription: the body, then the job by its own id.
			r := a.Derive(t, kind, map[string]string{"transcription_job_id": tx})
			if !expectStatus(t, r, http.StatusAccepted) {
				t.FailNow()
			}
			checkUUID(t, r, "job_id", r.Body["job_id"])
			checkTime(t, r, "received_at", r.Body["received_at"])
			if r.Str("type") != kind {
				t.Errorf("%s: type want %s", r, kind)
			}
			switch r.Str("status") {
			case "queued", "processing", "succeeded", "failed":
			default:
				t.Errorf("%s: status %q", r, r.Str("status"))
			}
			fromJob := r.Str("job_id")
			created[fromJob] = true
			if fromJob == tx {
				t.Fatalf("%s: the derived job reuses its source's id", r)
			}
			g := s.mustSucceed(t, a, fromJob)
			if g.Str("type") != kind || g.Body["source_job_id"] != tx {
				t.Errorf("%s: want type %s and source_job_id %s", g, kind, tx)
			}
			// From plain text: no source_job_id at all.
			fromText := a.MustDerive(t, kind, map[string]string{"transcript_text": text})
			if fromText == "" {
				t.FailNow()
			}
			created[fromText] = true
			g = s.mustSucceed(t, a, fromText)
			if _, present := g.Body["source_job_id"]; present {
				t.Errorf("%s: a job from transcript_text must omit source_job_id", g)
			}
			// Whitespace-only text counts as absent, so this is one source, not two.
			ws := a.MustDerive(t, kind, map[string]any{"transcription_job_id": tx, "transcript_text": " \n\t "})
			if ws != "" {
				created[ws] = true
			}

			bad := func(body string, status int, code string) {
				t.Helper()
				path := "/v1/summarize"
				if kind == "tags" {
					path = "/v1/tag"
				}
				r := s.c.do(t, http.MethodPost, path, []byte(body), withBearer(a.APIKey), withContentType("application/json"))
				if r.Status != status || r.ErrCode() != code {
					t.Errorf("body %s: %s; want %d %s", body, r, status, code)
				}
			}
			for _, body := range []string{`{bad`, `not json`, ``, `{"transcript_text":"abc"`, `{"transcript_text":"a"}}`} {
				bad(body, http.StatusBadRequest, "INVALID_JSON_BODY")
			}
			for _, body := range []string{`{}`, `{"transcript_text":""}`, `{"transcript_text":"   \n\t  "}`, `{"transcription_job_id":null,"transcript_text":null}`, `{"other":"x"}`} {
				bad(body, http.StatusBadRequest, "MISSING_TRANSCRIPT_SOURCE")
			}
			bad(`{"transcription_job_id":"`+tx+`","transcript_text":"hello there"}`, http.StatusBadRequest, "MULTIPLE_TRANSCRIPT_SOURCES")
			bad(`{"transcription_job_id":"`+fromText+`"}`, http.StatusBadRequest, "NOT_A_TRANSCRIPTION")
			bad(`{"transcription_job_id":"`+fromJob+`"}`, http.StatusBadRequest, "NOT_A_TRANSCRIPTION")
			bad(`{"transcription_job_id":"`+foreign+`"}`, http.StatusForbidden, "FORBIDDEN")
			bad(`{"transcription_job_id":"`+newUUID()+`"}`, http.StatusNotFound, "JOB_NOT_FOUND")
			bad(`{"transcription_job_id":"`+failed+`"}`, http.StatusConflict, "TRANSCRIPTION_NOT_READY")
			bad(`{"transcription_job_id":"`+silent+`"}`, http.StatusUnprocessableEntity, "TRANSCRIPT_EMPTY")
			if kind == "tags" {
				for _, u := range []string{"not a url", "ftp://example.com/hook", "http://", "javascript:alert(1)", "//example.com/hook"} {
					bad(`{"transcript_text":"hello there","callback_url":"`+u+`"}`, http.StatusBadRequest, "INVALID_CALLBACK")
				}
			}
			// Derived jobs are listed with the same endpoint.
			items := collect(t, a, url.Values{"type": {kind}}, 100)
			got := map[string]bool{}
			for _, it := range items {
				got[it["job_id"].(string)] = true
			}
			if !got[fromJob] || !got[fromText] {
				t.Errorf("type=%s listing %v lacks %s or %s", kind, got, fromJob, fromText)
			}
		})
	}
	// Refused requests created nothing.
	all := collect(t, a, nil, 100)
	ids := map[string]bool{}
	for _, it := range all {
		ids[it["job_id"].(string)] = true
	}
	for id := range created {
		if !ids[id] {
			t.Errorf("job %s missing from the listing", id)
		}
	}
	for id := range ids {
		if !created[id] {
			t.Errorf("listing has job %s that no accepted request created", id)
		}
	}
}

// testDelete covers DELETE /v1/transcriptions/{job_id}.
func (s *suite) testDelete(t *testing.T) {
	a, b := s.newAccount(t), s.newAccount(t)
	tx := a.MustUpload(t, Upload{Filename: "delete.wav", Data: MakeWAV(0.5, 2, false)})
	if tx == "" {
		t.FailNow()
	}
	s.mustSucceed(t, a, tx)
	sum := a.MustDerive(t, "summary", map[string]string{"transcription_job_id": tx})
	tags := a.MustDerive(t, "tags", map[string]string{"transcription_job_id": tx})
	if sum == "" || tags == "" {
		t.FailNow()
	}
	s.mustSucceed(t, a, sum)
	s.mustSucceed(t, a, tags)

	expectError(t, b.Delete(t, tx), http.StatusForbidden, "FORBIDDEN")
	expectStatus(t, a.Get(t, tx), http.StatusOK)
	expectError(t, s.c.do(t, http.MethodDelete, "/v1/transcriptions/", nil, withBearer(a.APIKey)), http.StatusBadRequest, "MISSING_JOB_ID")
	expectError(t, a.Delete(t, newUUID()), http.StatusNotFound, "JOB_NOT_FOUND")

	r := a.Delete(t, tx)
	if expectStatus(t, r, http.StatusAccepted) && len(r.Body) != 1 {
		t.Errorf("%s: the body must contain only requestId", r)
	}
	expectError(t, a.Get(t, tx), http.StatusNotFound, "JOB_NOT_FOUND")
	expectError(t, b.Get(t, tx), http.StatusNotFound, "JOB_NOT_FOUND")
	expectError(t, a.Delete(t, tx), http.StatusNotFound, "JOB_NOT_FOUND")
	if items := listItems(t, a.List(t, url.Values{"job_id": {tx}})); len(items) != 0 {
		t.Errorf("deleted job %s still listed by job_id", tx)
	}
	left := map[string]bool{}
	for _, it := range collect(t, a, nil, 100) {
		left[it["job_id"].(string)] = true
	}
	if left[tx] || !left[sum] || !left[tags] || len(left) != 2 {
		t.Errorf("after deleting %s the listing is %v; want only %s and %s", tx, left, sum, tags)
	}
	// Derived jobs stay readable, still naming their source.
	for _, id := range []string{sum, tags} {
		g := a.Get(t, id)
		if expectStatus(t, g, http.StatusOK) {
			checkJob(t, g, id)
			if g.Str("status") != "succeeded" || g.Body["source_job_id"] != tx {
				t.Errorf("%s: derived job changed by its source's deletion", g)
			}
		}
	}
	// A deleted transcription cannot be a source any more.
	expectError(t, a.Derive(t, "summary", map[string]string{"transcription_job_id": tx}), http.StatusNotFound, "JOB_NOT_FOUND")

	// Derived jobs are deleted by their own id, independently.
	r = a.Delete(t, sum)
	if expectStatus(t, r, http.StatusAccepted) && len(r.Body) != 1 {
		t.Errorf("%s: the body must contain only requestId", r)
	}
	expectError(t, a.Get(t, sum), http.StatusNotFound, "JOB_NOT_FOUND")
	expectStatus(t, a.Get(t, tags), http.StatusOK)
	expectError(t, b.Delete(t, tags), http.StatusForbidden, "FORBIDDEN")

	// A failed job is deleted like any other.
	f := a.MustUpload(t, Upload{Filename: "delete-de.wav", Data: MakeWAV(0.5, 1, false), Language: s.opts.FailLanguage})
	if f != "" {
		s.WaitJob(t, a, f)
		expectStatus(t, a.Delete(t, f), http.StatusAccepted)
		expectError(t, a.Get(t, f), http.StatusNotFound, "JOB_NOT_FOUND")
	}
}

// collect pages through a listing with the given filters and page size,
// checking each page, and returns every entry in order.
func collect(t testing.TB, a *Account, filters url.Values, limit int) []map[string]any {
	t.Helper()
	var out []map[string]any
	cursor := ""
	for page := 0; ; page++ {
		if page > 1000 {
			t.Errorf("listing does not end")
			return out
		}
		q := url.Values{}
		for k, v := range filters {
			q[k] = v
		}
		if limit > 0 {
			q.Set("limit", itoa(limit))
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r := a.List(t, q)
		items := listItems(t, r)
		if r.Status != http.StatusOK {
			return out
		}
		want := limit
		if limit <= 0 {
			want = 10
		}
		if len(items) > min(want, 100) {
			t.Errorf("%s: page of %d items exceeds limit %d", r, len(items), want)
		}
		nc, _ := r.Body["next_cursor"].(string)
		if nc != "" && len(items) == 0 {
			t.Errorf("%s: empty page with a next_cursor", r)
		}
		if nc != "" && len(items) < min(want, 100) {
			t.Errorf("%s: short page (%d of %d) with a next_cursor", r, len(items), want)
		}
		if page > 0 && len(items) == 0 {
			t.Errorf("%s: the previous page's next_cursor led to an empty page; next_cursor must be null on the last page", r)
		}
		out = append(out, items...)
		if nc == "" {
			return out
		}
		cursor = nc
	}
}
