package client_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/client"
	"github.com/callscribe/callscribe/shared/testkit/apitest"
	"github.com/callscribe/callscribe/shared/testkit/testengine"
)

// recorder is an http.RoundTripper that records the requests a client sends
// (method, URL, headers) before handing them to the real transport.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req.Clone(req.Context()))
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) client() *http.Client { return &http.Client{Transport: r} }

// paths lists "METHOD path" of the requests sent so far.
func (r *recorder) paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, q := range r.reqs {
		out = append(out, q.Method+" "+q.URL.Path)
	}
	return out
}

func TestTranscribeFromFile(t *testing.T) {
	rec := &recorder{}
	c := account(t, client.WithHTTPClient(rec.client()))
	path := writeWAV(t, "stereo call.wav", 3, 2)
	var polls []string
	opts := client.TranscribeOptions{
		TranscriptionOptions: client.TranscriptionOptions{Language: "en-US", Metadata: json.RawMessage(`{"ticket":"T-1"}`)},
		WaitOptions:          fast,
	}
	opts.OnPoll = func(j *client.Job) { polls = append(polls, j.Status) }
	job, err := c.Transcribe(t.Context(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if job.Type != client.TypeTranscription || job.Status != client.StatusSucceeded || job.ID == "" || job.RequestID == "" {
		t.Errorf("job %+v", job)
	}
	if len(polls) == 0 || polls[len(polls)-1] != client.StatusSucceeded {
		t.Errorf("OnPoll saw %v", polls)
	}
	if string(job.Metadata) != `{"ticket":"T-1"}` {
		t.Errorf("metadata %s", job.Metadata)
	}
	tr, err := job.Transcription()
	if err != nil {
		t.Fatal(err)
	}
	if tr.DurationSeconds != 3 || tr.Language == nil || *tr.Language != "en" || tr.WordsCount == nil || *tr.WordsCount != 22 {
		t.Errorf("result %+v", tr)
	}
	if len(tr.Transcript) != 2 || tr.Transcript[0].Text != testengine.Lines[0] || tr.Transcript[1].Text != testengine.Lines[1] {
		t.Errorf("transcript %+v", tr.Transcript)
	}
	want := []client.Speaker{{ID: 0, Alias: "Agent"}, {ID: 1, Alias: "User"}}
	if got := tr.Speakers(); !slices.Equal(got, want) {
		t.Errorf("speakers %v, want %v", got, want)
	}
	if _, err := job.Summary(); !errors.Is(err, client.ErrNoResult) {
		t.Errorf("Summary() of a transcription: %v", err)
	}
	// A small file goes in the create request: no two-step upload.
	if p := rec.paths(); slices.Contains(p, "POST /v1/transcriptions/uploads") || !slices.Contains(p, "POST /v1/transcriptions") {
		t.Errorf("requests %v", p)
	}
	for _, r := range rec.reqs {
		if ua := r.Header.Get("User-Agent"); ua != client.DefaultUserAgent || !strings.HasPrefix(ua, "callscribe-go/") {
			t.Errorf("%s %s: User-Agent %q", r.Method, r.URL.Path, ua)
		}
	}

	// GetJob reads the same job; the list shows the file name.
	got, err := c.GetJob(t.Context(), job.ID)
	if err != nil || got.ID != job.ID || got.Status != client.StatusSucceeded || !bytes.Equal(got.Result, job.Result) {
		t.Errorf("GetJob: %+v, %v", got, err)
	}
	page, err := c.ListJobs(t.Context(), client.ListOptions{JobID: job.ID})
	if err != nil || len(page.Jobs) != 1 {
		t.Fatalf("ListJobs(JobID): %+v, %v", page, err)
	}
	s := page.Jobs[0]
	if s.OriginalFilename == nil || *s.OriginalFilename != "stereo call.wav" || s.AudioSeconds != 3 || s.Language == nil || s.CreatedAt.IsZero() {
		t.Errorf("summary %+v", s)
	}
}

func TestCreateFromReader(t *testing.T) {
	c := account(t)
	created, err := c.CreateTranscriptionFromReader(t.Context(), "from-reader.wav", bytes.NewReader(apitest.MakeWAV(1, 1, false)), client.TranscriptionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.ID == "" || created.RequestID == "" || created.ReceivedAt.IsZero() ||
		(created.Status != client.StatusQueued && created.Status != client.StatusProcessing) {
		t.Errorf("created %+v", created)
	}
	job, err := c.WaitForJob(t.Context(), created.ID, fast)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := job.Transcription()
	if err != nil || len(tr.Transcript) != 1 || tr.Speakers()[0].ID != 0 {
		t.Errorf("mono result %+v, %v", tr, err)
	}
	page, err := c.ListJobs(t.Context(), client.ListOptions{JobID: created.ID})
	if err != nil || len(page.Jobs) != 1 || page.Jobs[0].OriginalFilename == nil || *page.Jobs[0].OriginalFilename != "from-reader.wav" {
		t.Errorf("listed %+v, %v", page, err)
	}
}

// A file over the threshold goes through the two-step upload on its own.
func TestTwoStepUploadAutomatic(t *testing.T) {
	rec := &recorder{}
	c := account(t, client.WithHTTPClient(rec.client()), client.WithDirectUploadMaxBytes(10_000), client.WithGatewayKey("not-sent-to-storage"))
	path := writeWAV(t, "big.wav", 2, 2) // 64 KB
	job, err := c.Transcribe(t.Context(), path, client.TranscribeOptions{WaitOptions: fast})
	if err != nil {
		t.Fatal(err)
	}
	if tr, err := job.Transcription(); err != nil || tr.DurationSeconds != 2 || len(tr.Transcript) != 2 {
		t.Errorf("result %+v, %v", tr, err)
	}
	// The job keeps the file's name, sent with the create as the filename field.
	page, err := c.ListJobs(t.Context(), client.ListOptions{JobID: job.ID})
	if err != nil || len(page.Jobs) != 1 || page.Jobs[0].OriginalFilename == nil || *page.Jobs[0].OriginalFilename != "big.wav" {
		t.Errorf("two-step job's file name: %+v, %v", page, err)
	}
	p := rec.paths()
	if !slices.Contains(p, "POST /v1/transcriptions/uploads") || !slices.Contains(p, "POST /local-uploads") {
		t.Errorf("no two-step upload: %v", p)
	}
	for _, r := range rec.reqs {
		if r.URL.Path == "/local-uploads" && (r.Header.Get("Authorization") != "" || r.Header.Get("apikey") != "") {
			t.Errorf("credentials sent to storage: %v", r.Header)
		}
	}
	// A file under it does not.
	rec.mu.Lock()
	rec.reqs = nil
	rec.mu.Unlock()
	small := writeWAV(t, "small.wav", 0.25, 1) // 4 KB
	if _, err := c.CreateTranscriptionFromFile(t.Context(), small, client.TranscriptionOptions{}); err != nil {
		t.Fatal(err)
	}
	if p := rec.paths(); slices.Contains(p, "POST /v1/transcriptions/uploads") {
		t.Errorf("small file took the two-step path: %v", p)
	}
}

// The two-step upload by hand: CreateUpload, SendUpload, CreateTranscriptionFromUpload.
func TestTwoStepUploadByHand(t *testing.T) {
	c := account(t)
	ctx := t.Context()
	audio := apitest.MakeWAV(1.5, 1, false)
	up, err := c.CreateUpload(ctx, "manual.wav", int64(len(audio)))
	if err != nil {
		t.Fatal(err)
	}
	if up.ID == "" || up.URL == "" || len(up.Fields) == 0 || up.MaxBytes != client.MaxFileBytes || time.Until(up.ExpiresAt) < time.Minute {
		t.Errorf("upload %+v", up)
	}
	if err := c.SendUpload(ctx, up, bytes.NewReader(audio)); err != nil {
		t.Fatal(err)
	}
	created, err := c.CreateTranscriptionFromUpload(ctx, up.ID, client.TranscriptionOptions{Metadata: json.RawMessage(`{"via":"two-step"}`)})
	if err != nil {
		t.Fatal(err)
	}
	job, err := c.WaitForJob(ctx, created.ID, fast)
	if err != nil {
		t.Fatal(err)
	}
	if tr, _ := job.Transcription(); tr == nil || tr.DurationSeconds != 1.5 || string(job.Metadata) != `{"via":"two-step"}` {
		t.Errorf("job %+v", job)
	}
	// The upload was consumed.
	_, err = c.CreateTranscriptionFromUpload(ctx, up.ID, client.TranscriptionOptions{})
	if !client.IsCode(err, client.CodeUploadNotFound) || client.ErrorStatus(err) != http.StatusBadRequest {
		t.Errorf("second create from the upload: %v", err)
	}

	// Size unknown (0): SendUpload reads the reader to learn it.
	up2, err := c.CreateUpload(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendUpload(ctx, up2, bytes.NewReader(audio)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTranscriptionFromUpload(ctx, up2.ID, client.TranscriptionOptions{}); err != nil {
		t.Fatal(err)
	}

	// A tampered signature is storage's refusal, as an *Error.
	up3, err := c.CreateUpload(ctx, "x.wav", int64(len(audio)))
	if err != nil {
		t.Fatal(err)
	}
	up3.Fields["signature"] = "forged"
	err = c.SendUpload(ctx, up3, bytes.NewReader(audio))
	if e, ok := client.AsError(err); !ok || e.Status != http.StatusForbidden {
		t.Errorf("forged upload: %v", err)
	}
}

// A gateway with a smaller body limit than the threshold answers 413 (in its
// own, non-JSON words): the client sends the file again in two steps, once.
func TestDirectUpload413FallsBackToTwoStep(t *testing.T) {
	target, _ := url.Parse(baseURL)
	var refused int
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/transcriptions" && r.ContentLength > 20_000 {
			refused++
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			w.Write([]byte("HTTP content length exceeded 20000 bytes."))
			return
		}
		proxy(target).ServeHTTP(w, r)
	}))
	defer gateway.Close()
	c := accountAt(t, gateway.URL)
	path := writeWAV(t, "medium.wav", 2, 1) // 32 KB: under the 4 MiB threshold, over the gateway's limit
	job, err := c.Transcribe(t.Context(), path, client.TranscribeOptions{WaitOptions: fast})
	if err != nil {
		t.Fatal(err)
	}
	if refused != 1 || job.Status != client.StatusSucceeded {
		t.Errorf("refused %d times; job %+v", refused, job)
	}
}

func proxy(target *url.URL) http.Handler {
	return &httputilProxy{target: target}
}

// httputilProxy forwards a request to target (a minimal reverse proxy).
type httputilProxy struct{ target *url.URL }

func (p *httputilProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = p.target.Scheme, p.target.Host
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	buf := new(bytes.Buffer)
	buf.ReadFrom(resp.Body)
	w.Write(buf.Bytes())
}

func TestDelete(t *testing.T) {
	c := account(t)
	created, err := c.CreateTranscriptionFromFile(t.Context(), "call.wav", client.TranscriptionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitForJob(t.Context(), created.ID, fast); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteJob(t.Context(), created.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetJob(t.Context(), created.ID)
	if !client.IsNotFound(err) || !client.IsCode(err, client.CodeJobNotFound) {
		t.Errorf("GetJob after delete: %v", err)
	}
	if err := c.DeleteJob(t.Context(), created.ID); !client.IsNotFound(err) {
		t.Errorf("second delete: %v", err)
	}
}

func TestSummarizeAndTag(t *testing.T) {
	c := account(t)
	ctx := t.Context()
	job, err := c.Transcribe(ctx, "call.wav", client.TranscribeOptions{WaitOptions: fast})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("SummaryFromJob", func(t *testing.T) {
		created, err := c.Summarize(ctx, client.SummarizeRequest{TranscriptionJobID: job.ID})
		if err != nil {
			t.Fatal(err)
		}
		if created.Type != client.TypeSummary || created.ID == job.ID {
			t.Errorf("created %+v", created)
		}
		sj, err := c.WaitForJob(ctx, created.ID, fast)
		if err != nil {
			t.Fatal(err)
		}
		if sj.Type != client.TypeSummary || sj.SourceJobID != job.ID {
			t.Errorf("summary job %+v", sj)
		}
		s, err := sj.Summary()
		if err != nil || strings.TrimSpace(s.Summary) == "" {
			t.Errorf("summary %+v, %v", s, err)
		}
		if _, err := sj.Transcription(); !errors.Is(err, client.ErrNoResult) {
			t.Errorf("Transcription() of a summary: %v", err)
		}
	})

	t.Run("SummaryFromText", func(t *testing.T) {
		created, err := c.Summarize(ctx, client.SummarizeRequest{TranscriptText: "Agent: hello. User: my internet is down since yesterday."})
		if err != nil {
			t.Fatal(err)
		}
		sj, err := c.WaitForJob(ctx, created.ID, fast)
		if err != nil {
			t.Fatal(err)
		}
		if sj.SourceJobID != "" {
			t.Errorf("text summary has source %q", sj.SourceJobID)
		}
		if _, err := sj.Summary(); err != nil {
			t.Error(err)
		}
	})

	t.Run("TagsWithCallback", func(t *testing.T) {
		type delivery struct {
			apikey string
			body   map[string]any
		}
		got := make(chan delivery, 4)
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body map[string]any
			json.NewDecoder(r.Body).Decode(&body)
			got <- delivery{r.Header.Get("apikey"), body}
			w.Write([]byte("{}"))
		}))
		defer receiver.Close()
		created, err := c.Tag(ctx, client.TagRequest{
			TranscriptionJobID: job.ID, CallbackURL: receiver.URL + "/hook", CallbackAPIKey: "hook-key", CallUUID: "call-42",
		})
		if err != nil {
			t.Fatal(err)
		}
		if created.Type != client.TypeTags {
			t.Errorf("created %+v", created)
		}
		tj, err := c.WaitForJob(ctx, created.ID, fast)
		if err != nil {
			t.Fatal(err)
		}
		tags, err := tj.Tags()
		if err != nil {
			t.Fatal(err)
		}
		tax, err := c.Taxonomy(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(tags.Tags) == 0 {
			t.Errorf("no tags: %+v", tags)
		}
		for cat, values := range tags.Tags {
			tc, ok := tax.Category(cat)
			if !ok {
				t.Errorf("category %q not in the taxonomy", cat)
				continue
			}
			for _, v := range values {
				if !slices.ContainsFunc(tc.Values, func(tv client.TaxonomyValue) bool { return tv.Value == v }) {
					t.Errorf("%s=%q not in the taxonomy", cat, v)
				}
			}
		}
		select {
		case d := <-got:
			if d.apikey != "hook-key" || d.body["call_uuid"] != "call-42" {
				t.Errorf("callback %+v", d)
			}
		case <-time.After(10 * time.Second):
			t.Error("no callback delivered")
		}
	})

	t.Run("BadCallback", func(t *testing.T) {
		_, err := c.Tag(ctx, client.TagRequest{TranscriptText: "hello", CallbackURL: "ftp://example.com/x"})
		if !client.IsCode(err, client.CodeInvalidCallback) {
			t.Errorf("ftp callback: %v", err)
		}
	})
}

func TestTaxonomy(t *testing.T) {
	tax, err := account(t).Taxonomy(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range tax.Categories {
		names = append(names, c.Name)
		if len(c.Values) == 0 || c.MinValues < 1 || c.MaxValues < c.MinValues {
			t.Errorf("category %+v", c)
		}
	}
	want := []string{"call_reason", "customer_sentiment", "agent_approach", "call_outcome"}
	if !slices.Equal(names, want) {
		t.Errorf("categories %v, want %v", names, want)
	}
}

func TestExport(t *testing.T) {
	c := account(t)
	ctx := t.Context()
	job, err := c.Transcribe(ctx, "call.wav", client.TranscribeOptions{WaitOptions: fast})
	if err != nil {
		t.Fatal(err)
	}
	checks := map[client.ExportFormat]func(string) bool{
		client.ExportText: func(s string) bool { return strings.Contains(s, "Agent") && strings.Contains(s, "refund") },
		client.ExportSRT:  func(s string) bool { return strings.HasPrefix(s, "1\n") && strings.Contains(s, " --> ") },
		client.ExportVTT:  func(s string) bool { return strings.HasPrefix(s, "WEBVTT") },
		client.ExportJSON: func(s string) bool { return json.Valid([]byte(s)) && strings.Contains(s, "refund") },
	}
	for format, ok := range checks {
		b, err := c.Export(ctx, job.ID, format)
		if err != nil {
			t.Errorf("%s: %v", format, err)
			continue
		}
		if !ok(string(b)) {
			t.Errorf("%s export:\n%s", format, b)
		}
	}
	if _, err := c.Export(ctx, job.ID, "docx"); !client.IsCode(err, client.CodeInvalidFormat) || client.ErrorStatus(err) != 400 {
		t.Errorf("docx: %v", err)
	}
	if _, err := c.Export(ctx, "2b5c6b8e-8a4e-4a8e-9d51-6f1f0d7f0c11", client.ExportText); !client.IsNotFound(err) {
		t.Errorf("unknown job: %v", err)
	}
}

// Keyterms travel as the keyterms field, directly and through the two-step
// path: the job echoes them as stored and the result's MetaData reports them
// (the test engine's dictionary is the words of its fixed lines); a bad list
// is INVALID_KEYTERMS, a 400.
func TestTranscribeWithKeyterms(t *testing.T) {
	c := account(t)
	path := writeWAV(t, "keyterms.wav", 1, 2)
	opts := client.TranscribeOptions{
		TranscriptionOptions: client.TranscriptionOptions{Keyterms: []string{"refund", "Northwind Energy", "Refund "}},
		WaitOptions:          fast,
	}
	job, err := c.Transcribe(t.Context(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"refund", "Northwind Energy"}; !slices.Equal(job.Keyterms, want) {
		t.Errorf("keyterms %q, want %q", job.Keyterms, want)
	}
	tr, err := job.Transcription()
	if err != nil {
		t.Fatal(err)
	}
	if tr.MetaData == nil || tr.MetaData.Keyterms == nil {
		t.Fatalf("no meta_data.keyterms in %+v", tr)
	}
	kt := tr.MetaData.Keyterms
	if kt.Method != "echo" || !slices.Equal(kt.Applied, []string{"refund"}) || !slices.Equal(kt.UnknownWords, []string{"northwind", "energy"}) {
		t.Errorf("keyterms report %+v", kt)
	}

	// The two-step path sends the same field with the create.
	wav := apitest.MakeWAV(1, 1, false)
	up, err := c.CreateUpload(t.Context(), "two-step.wav", int64(len(wav)))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendUpload(t.Context(), up, bytes.NewReader(wav)); err != nil {
		t.Fatal(err)
	}
	created, err := c.CreateTranscriptionFromUpload(t.Context(), up.ID, client.TranscriptionOptions{Keyterms: []string{"charged twice"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetJob(t.Context(), created.ID); err != nil || !slices.Equal(got.Keyterms, []string{"charged twice"}) {
		t.Errorf("two-step job keyterms %+v, %v", got, err)
	}

	_, err = c.CreateTranscriptionFromFile(t.Context(), path, client.TranscriptionOptions{Keyterms: []string{strings.Repeat("x", 51)}})
	if !client.IsCode(err, client.CodeInvalidKeyterms) || client.ErrorStatus(err) != http.StatusBadRequest {
		t.Errorf("a 51-character term: %v", err)
	}
}

// RedactPII travels as the redact_pii field: the result then carries its
// redaction block (the test engine's lines hold nothing to redact), and
// without it none.
func TestTranscribeWithRedactPII(t *testing.T) {
	c := account(t)
	path := writeWAV(t, "redact.wav", 1, 2)
	on := true
	for _, redactPII := range []*bool{&on, nil} {
		job, err := c.Transcribe(t.Context(), path, client.TranscribeOptions{
			TranscriptionOptions: client.TranscriptionOptions{RedactPII: redactPII},
			WaitOptions:          fast,
		})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := job.Transcription()
		if err != nil {
			t.Fatal(err)
		}
		if redactPII == nil {
			if tr.Redaction != nil {
				t.Errorf("redaction %+v without redact_pii", tr.Redaction)
			}
			continue
		}
		if tr.Redaction == nil || len(tr.Redaction.Categories) != 4 || tr.Redaction.Categories["card"] != 0 {
			t.Errorf("redaction = %+v, want four zero counts", tr.Redaction)
		}
	}
}
