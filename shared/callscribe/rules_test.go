package callscribe

import (
	"testing"
	"time"
)

func TestQuotaReservationAllows(t *testing.T) {
	q := QuotaReservation{Month: "2026-11", LimitSeconds: 600}
	cases := []struct {
		used, file float64
		want       bool
	}{
		{0, 600, true},           // a file that fills the month exactly
		{0, 600.0000001, true},   // float rounding below a microsecond
		{0, 600.001, false},      // a millisecond over
		{0.1 + 0.2, 599.7, true}, // 0.30000000000000004 + 599.7
		{599, 1, true},
		{599, 1.5, false},
		{0, 0, true},
		{700, 0, false}, // already over (a lower limit since): nothing more
	}
	for _, c := range cases {
		if got := q.Allows(c.used, c.file); got != c.want {
			t.Errorf("Allows(used %v, file %v) = %v, want %v", c.used, c.file, got, c.want)
		}
		// The rearranged form used by condition expressions agrees with Allows.
		if got := c.used <= q.MaxUsedBefore(c.file); got != c.want {
			t.Errorf("used %v <= MaxUsedBefore(%v) = %v, want %v", c.used, c.file, got, c.want)
		}
	}
	if q.MaxUsedBefore(601) >= 0 {
		t.Error("a file larger than the limit must leave no room at all")
	}
}

func TestJobFilterMatchesAndListOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	job := &Job{ID: "b", AccountID: "acct", Status: StatusSucceeded, Language: "en", CreatedAt: t0.Add(time.Hour)}
	after := t0.Add(time.Hour)
	before := t0
	cases := []struct {
		name string
		f    JobFilter
		want bool
	}{
		{"no filter", JobFilter{}, true},
		{"status", JobFilter{Status: StatusSucceeded}, true},
		{"other status", JobFilter{Status: StatusFailed}, false},
		{"legacy job is a transcription", JobFilter{Type: TypeTranscription}, true},
		{"legacy job is not a summary", JobFilter{Type: TypeSummary}, false},
		{"language", JobFilter{Language: "en"}, true},
		{"language is exact", JobFilter{Language: "en-US"}, false},
		{"created after an earlier time", JobFilter{CreatedAfter: &before}, true},
		{"created_after is strict", JobFilter{CreatedAfter: &after}, false},
		{"job id", JobFilter{JobID: "b"}, true},
		{"other job id", JobFilter{JobID: "c"}, false},
		{"a transcription has no source", JobFilter{SourceJobID: "b"}, false},
		{"all at once", JobFilter{Status: StatusSucceeded, Type: TypeTranscription, Language: "en", CreatedAfter: &before, JobID: "b"}, true},
		{"all but one", JobFilter{Status: StatusSucceeded, Type: TypeTags, Language: "en", CreatedAfter: &before, JobID: "b"}, false},
	}
	for _, c := range cases {
		if got := c.f.Matches(job); got != c.want {
			t.Errorf("%s: Matches = %v, want %v", c.name, got, c.want)
		}
	}

	derived := &Job{ID: "d", AccountID: "acct", Type: TypeTags, Status: StatusQueued, SourceJobID: "b", CreatedAt: t0}
	for _, c := range []struct {
		name string
		f    JobFilter
		want bool
	}{
		{"its source", JobFilter{SourceJobID: "b"}, true},
		{"another source", JobFilter{SourceJobID: "c"}, false},
		{"its source and type", JobFilter{SourceJobID: "b", Type: TypeTags}, true},
		{"its source, another type", JobFilter{SourceJobID: "b", Type: TypeSummary}, false},
		{"its source, another status", JobFilter{SourceJobID: "b", Status: StatusSucceeded}, false},
	} {
		if got := c.f.Matches(derived); got != c.want {
			t.Errorf("derived job, %s: Matches = %v, want %v", c.name, got, c.want)
		}
	}

	// Newest first by created_at, then id descending.
	same := Position{CreatedAt: job.CreatedAt, JobID: "c"}
	if !same.Follows(job) || (Position{CreatedAt: job.CreatedAt, JobID: "a"}).Follows(job) || (Position{CreatedAt: job.CreatedAt, JobID: "b"}).Follows(job) {
		t.Error("equal created_at must order by id, descending, and a job does not follow itself")
	}
	if !(Position{CreatedAt: t0.Add(2 * time.Hour), JobID: "a"}).Follows(job) || (Position{CreatedAt: t0, JobID: "z"}).Follows(job) {
		t.Error("a newer position precedes an older job, an older one follows it")
	}
	req := ListRequest{AccountID: "acct", Filter: JobFilter{Status: StatusSucceeded}, After: &same}
	if !req.Includes(job) {
		t.Error("request should include the job")
	}
	req.AccountID = "other"
	if req.Includes(job) {
		t.Error("another account's listing includes the job")
	}
}

func TestJobFilterIndexField(t *testing.T) {
	cases := []struct {
		f    JobFilter
		want FilterField
	}{
		{JobFilter{}, FilterNone},
		{JobFilter{JobID: "x", CreatedAfter: &time.Time{}}, FilterNone},
		{JobFilter{Status: StatusSucceeded}, FilterStatus},
		{JobFilter{Type: TypeTranscription}, FilterType},
		{JobFilter{Language: "en"}, FilterLanguage},
		{JobFilter{Status: StatusFailed, Type: TypeTags, Language: "en"}, FilterStatus},
		{JobFilter{Status: StatusSucceeded, Type: TypeTags, Language: "en"}, FilterType},
		{JobFilter{Status: StatusSucceeded, Type: TypeTranscription, Language: "en"}, FilterLanguage},
		{JobFilter{Status: StatusSucceeded, Type: TypeTranscription}, FilterType},
		{JobFilter{Status: StatusQueued, Type: TypeSummary}, FilterStatus},
		{JobFilter{SourceJobID: "s"}, FilterSource},
		{JobFilter{SourceJobID: "s", Status: StatusFailed, Type: TypeTags, Language: "en"}, FilterSource},
		{JobFilter{SourceJobID: "s", JobID: "x"}, FilterSource},
	}
	for _, c := range cases {
		if got := c.f.IndexField(); got != c.want {
			t.Errorf("%+v.IndexField() = %q, want %q", c.f, got, c.want)
		}
	}
}
