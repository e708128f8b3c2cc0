package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// testDailyUsage: GET /dashboard/usage/daily gives every UTC day of this
// month and the last, today's uploads on today's date, failed jobs not
// counted (as in the monthly figure), and the upload languages by minutes.
func (s *suite) testDailyUsage(t *testing.T) {
	a := s.newAccount(t)
	daily := func(t *testing.T, query string) *Response {
		t.Helper()
		return a.c.do(t, http.MethodGet, "/dashboard/usage/daily"+query, nil, withBearer(a.Token))
	}
	before := time.Now().UTC()
	fresh := daily(t, "")
	if fresh.Status != http.StatusOK {
		t.Fatalf("daily usage of a new account: %s", fresh)
	}
	checkDailyShape(t, fresh, before)

	english := a.MustUpload(t, Upload{Filename: "english.wav", Data: MakeWAV(30, 1, false), Language: "en"})
	undetected := a.MustUpload(t, Upload{Filename: "no-language.wav", Data: MakeWAV(18, 1, false)})
	failing := a.MustUpload(t, Upload{Filename: "failing.wav", Data: MakeWAV(12, 1, false), Language: s.opts.FailLanguage})
	if english == "" || undetected == "" || failing == "" {
		t.FailNow()
	}
	if r := s.WaitJob(t, a, failing); r == nil || r.Str("status") != "failed" {
		t.Fatalf("a job with language %q must fail: %v", s.opts.FailLanguage, r)
	}
	r := daily(t, "")
	after := time.Now().UTC()
	if r.Status != http.StatusOK {
		t.Fatalf("daily usage: %s", r)
	}
	months := checkDailyShape(t, r, after)
	current := months[len(months)-1]
	if used := a.Usage(t).Used; !approx(minutesField(t, r, current, "used_minutes"), used) {
		t.Errorf("%s: this month's used_minutes differs from GET /v1/transcriptions/usage (%v)", r, used)
	}
	if today := after.Format("2006-01-02"); today == before.Format("2006-01-02") {
		for _, d := range current["days"].([]any) {
			day := d.(map[string]any)
			if day["date"] != today {
				if minutesField(t, r, day, "minutes") != 0 {
					t.Errorf("%s: %v has minutes; only today's uploads were made", r, day["date"])
				}
				continue
			}
			if got, want := minutesField(t, r, day, "minutes"), round2(30+18); !approx(got, want) || day["jobs"] != json.Number("2") {
				t.Errorf("%s: today %v, want %v minutes in 2 jobs (the failed job not counted)", r, day, want)
			}
		}
	} else {
		t.Logf("the UTC day changed during the test (%s to %s): the per-day check is left out", before, after)
	}
	top, _ := r.Body["top_languages"].([]any)
	got := make([]string, 0, len(top))
	for _, l := range top {
		l := l.(map[string]any)
		got = append(got, fmt.Sprintf("%v=%v", l["language"], minutesField(t, r, l, "minutes")))
	}
	if want := []string{fmt.Sprintf("en=%v", round2(30)), fmt.Sprintf("<nil>=%v", round2(18))}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: top languages %v, want %v", r, got, want)
	}

	named := daily(t, "?month=2025-03")
	if named.Status != http.StatusOK {
		t.Fatalf("named month: %s", named)
	}
	ms, _ := named.Body["months"].([]any)
	if len(ms) != 2 || ms[0].(map[string]any)["month"] != "2025-02" || len(ms[0].(map[string]any)["days"].([]any)) != 28 || ms[1].(map[string]any)["month"] != "2025-03" {
		t.Errorf("%s: want February (28 days) and March 2025", named)
	}
	expectError(t, daily(t, "?month=2025-3"), http.StatusBadRequest, "INVALID_REQUEST")
	if r := a.c.do(t, http.MethodGet, "/dashboard/usage/daily", nil, withBearer(a.APIKey)); r.Status != http.StatusUnauthorized {
		t.Errorf("daily usage with an API key: %s, want 401", r)
	}
}

// checkDailyShape requires the two months ending with now's, each with all
// its days in order, and returns them.
func checkDailyShape(t *testing.T, r *Response, now time.Time) []map[string]any {
	t.Helper()
	raw, _ := r.Body["months"].([]any)
	if len(raw) != 2 {
		t.Fatalf("%s: want 2 months", r)
	}
	first := time.Date(now.Year(), now.Month()-1, 1, 0, 0, 0, 0, time.UTC)
	months := make([]map[string]any, 2)
	for i, m := range raw {
		months[i] = m.(map[string]any)
		start := first.AddDate(0, i, 0)
		if months[i]["month"] != start.Format("2006-01") {
			t.Fatalf("%s: month %d is %v, want %s", r, i, months[i]["month"], start.Format("2006-01"))
		}
		days, _ := months[i]["days"].([]any)
		n := 0
		for d := start; d.Month() == start.Month(); d = d.AddDate(0, 0, 1) {
			if n >= len(days) || days[n].(map[string]any)["date"] != d.Format("2006-01-02") {
				t.Fatalf("%s: day %d of %s is not %s", r, n+1, start.Format("2006-01"), d.Format("2006-01-02"))
			}
			n++
		}
		if n != len(days) {
			t.Fatalf("%s: %s has %d days, want %d", r, start.Format("2006-01"), len(days), n)
		}
	}
	return months
}
