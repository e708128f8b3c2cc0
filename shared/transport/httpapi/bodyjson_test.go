package httpapi

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// referenceJSON is what encodeBody wrote for body before the appenders:
// encoding/json with HTML escaping off.
func referenceJSON(t testing.TB, body any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		t.Fatalf("reference encoding: %v", err)
	}
	return buf.Bytes()
}

func appended(t testing.TB, body jsonAppender) []byte {
	t.Helper()
	b, err := body.appendJSON(nil)
	if err != nil {
		t.Fatalf("appendJSON: %v", err)
	}
	return b
}

// awkwardStrings are the strings whose escaping differs between careless
// encoders: quotes, backslashes, every class of control character, HTML
// characters (not escaped here), invalid UTF-8, U+2028/U+2029, multi-byte
// runes and a rune cut short at the end.
var awkwardStrings = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "\b\f\x00\x01\x1f\x7f",
	"<script>&amp;</script>", "bad \xff\xfe utf8", "sep \u2028 and \u2029", "naïve 日本語 🎧",
	"cut \xe6\x97", "\"", "\\",
}

func TestBodyAppendersMatchEncodingJSON(t *testing.T) {
	when := time.Date(2026, 11, 25, 9, 8, 7, 654321000, time.FixedZone("CET", 3600))
	name := "call.mp3"
	lang := "en-US"
	next := "v1.abc_DEF-123"
	start, end := 1.5, 2.25
	for _, s := range awkwardStrings {
		job := &jobResource{
			JobID: s, Type: callscribe.JobType(s), Status: callscribe.JobStatus(s), SourceJobID: s,
			CreatedAt: apiTime(when), UpdatedAt: apiTime(when.Add(time.Minute)), RequestID: s, Keyterms: []string{s, "Acme", s},
			Result:   json.RawMessage(`{"summary":"x \u003c y","tags":["a","b"],"n":1.5}`),
			Metadata: json.RawMessage(`{"k":[1,2,{"z":null}]}`),
		}
		if got, want := appended(t, job), referenceJSON(t, job); !bytes.Equal(got, want) {
			t.Errorf("job %q:\n got %s\nwant %s", s, got, want)
		}
		page := &jobListPage{Transcriptions: []jobSummaryResource{
			{JobID: s, Type: callscribe.TypeTranscription, Status: callscribe.StatusSucceeded, OriginalFilename: &s, Language: &s, AudioSeconds: 61.25, CreatedAt: apiTime(when), UpdatedAt: apiTime(when.Add(time.Hour))},
			{JobID: "b", Type: callscribe.TypeSummary, Status: callscribe.StatusQueued, SourceJobID: s},
			{JobID: "c", Matches: []searchMatchResource{
				{Field: "transcript", Segment: 3, TimeStart: &start, TimeEnd: &end, SpeakerAlias: "User", Text: s},
				{Field: "summary", Text: s},
			}},
		}, NextCursor: &s, RequestID: s}
		if got, want := appended(t, page), referenceJSON(t, page); !bytes.Equal(got, want) {
			t.Errorf("page %q:\n got %s\nwant %s", s, got, want)
		}
	}

	// Optional parts absent, and present one at a time.
	failed := &jobResource{JobID: "j", Type: callscribe.TypeTags, Status: callscribe.StatusFailed,
		Error: &callscribe.JobError{Code: "AUDIO_DECODE_FAILED", Message: "bad <frame> & more", ProviderError: &callscribe.ProviderError{}}}
	for _, body := range []jsonAppender{
		&jobResource{},
		failed,
		&jobResource{Keyterms: []string{}},
		&jobListPage{},
		&jobListPage{Transcriptions: []jobSummaryResource{}},
		&jobListPage{Transcriptions: []jobSummaryResource{{OriginalFilename: &name, Language: &lang}}, NextCursor: &next},
	} {
		if got, want := appended(t, body), referenceJSON(t, body); !bytes.Equal(got, want) {
			t.Errorf("%T:\n got %s\nwant %s", body, got, want)
		}
	}

	// Timestamps: UTC with milliseconds, truncated, and years time.Format must
	// write (never stored, but not to be garbled either).
	for _, at := range []time.Time{{}, time.Unix(0, 0), time.Unix(0, 999999999), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), when} {
		for _, body := range []jsonAppender{
			&jobListPage{Transcriptions: []jobSummaryResource{{CreatedAt: apiTime(at), UpdatedAt: apiTime(at)}}},
			&jobResource{CreatedAt: apiTime(at), UpdatedAt: apiTime(at)},
		} {
			got, want := appended(t, body), referenceJSON(t, body)
			if !bytes.Equal(got, want) || !bytes.Contains(got, []byte(`"created_at":"`+formatTime(at)+`"`)) {
				t.Errorf("%T time %v:\n got %s\nwant %s", body, at, got, want)
			}
		}
	}

	// audio_seconds across encoding/json's switches between 'f' and 'e'.
	for _, f := range []float64{0, -0.0, 1, 0.1, 61.25, 1e-6, 9.99e-7, 1e-7, 5e-324, 1e20, 1e21, 123456789e15, -2.5e-9, math.MaxFloat64} {
		page := &jobListPage{Transcriptions: []jobSummaryResource{{AudioSeconds: f}}}
		if got, want := appended(t, page), referenceJSON(t, page); !bytes.Equal(got, want) {
			t.Errorf("audio_seconds %v:\n got %s\nwant %s", f, got, want)
		}
	}
}

// The whole path: encodeBody sends what the appender wrote, with its length.
func TestEncodeBodyUsesTheAppender(t *testing.T) {
	f := newFixture(t, &recordingQueue{}, nil)
	rec := f.upload(t, wav(1, 8000))
	var accepted struct {
		JobID string `json:"job_id"`
	}
	decodeInto(t, rec.Body.Bytes(), &accepted)
	got := f.do(t, "GET", "/v1/transcriptions/"+accepted.JobID, "")
	if got.Code != 200 || got.Header().Get("Content-Length") == "" {
		t.Fatalf("GET: %d, Content-Length %q", got.Code, got.Header().Get("Content-Length"))
	}
	var job map[string]any
	decodeInto(t, got.Body.Bytes(), &job)
	if job["job_id"] != accepted.JobID || job["status"] != "queued" || job["requestId"] == "" {
		t.Fatalf("job body %s", got.Body.Bytes())
	}
}

func FuzzBodyAppenders(f *testing.F) {
	for _, s := range awkwardStrings {
		f.Add(s, s, 1.5, int64(1764061687123456789))
	}
	f.Fuzz(func(t *testing.T, a, b string, seconds float64, nanos int64) {
		if math.IsInf(seconds, 0) || math.IsNaN(seconds) {
			seconds = 0 // encoding/json refuses them; the appender writes 0
		}
		job := &jobResource{JobID: a, Type: callscribe.JobType(b), Status: callscribe.StatusSucceeded, SourceJobID: b,
			CreatedAt: apiTime(time.Unix(0, nanos)), UpdatedAt: apiTime(time.Unix(0, -nanos)), RequestID: a, Keyterms: []string{a, b}}
		if got, want := appended(t, job), referenceJSON(t, job); !bytes.Equal(got, want) {
			t.Fatalf("job:\n got %s\nwant %s", got, want)
		}
		page := &jobListPage{Transcriptions: []jobSummaryResource{{JobID: a, OriginalFilename: &b, Language: &a, AudioSeconds: seconds, CreatedAt: apiTime(time.Unix(0, nanos))}}, NextCursor: &b, RequestID: a}
		if got, want := appended(t, page), referenceJSON(t, page); !bytes.Equal(got, want) {
			t.Fatalf("page:\n got %s\nwant %s", got, want)
		}
	})
}
