package jobs_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/service/jobs"
)

func TestDailyUsageCoversTwoMonthsDayByDay(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	submit := func(seconds float64, language string) {
		t.Helper()
		req := upload("acct", wav(t, seconds))
		req.Language = language
		if _, err := e.svc.SubmitTranscription(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	e.now = time.Date(2026, 11, 24, 23, 59, 59, 0, time.UTC)
	submit(60, "en")
	submit(30, "")
	e.queue.refuse = true // this upload fails at submission: its minutes are released
	if _, err := e.svc.SubmitTranscription(ctx, upload("acct", wav(t, 20))); !callscribe.IsCode(err, callscribe.CodeProviderSubmitFailed) {
		t.Fatalf("submission with the queue down: %v", err)
	}
	e.queue.refuse = false
	e.now = time.Date(2026, 12, 1, 0, 0, 30, 0, time.UTC)
	submit(45, "de")

	got, err := e.svc.DailyUsage(ctx, "acct", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Months) != 2 || got.Months[0].Month != "2026-11" || got.Months[1].Month != "2026-12" {
		t.Fatalf("months %+v, want 2026-11 then 2026-12", got.Months)
	}
	if len(got.Months[0].Days) != 30 || len(got.Months[1].Days) != 31 {
		t.Fatalf("%d and %d days, want 30 and 31", len(got.Months[0].Days), len(got.Months[1].Days))
	}
	for _, m := range got.Months {
		for i, d := range m.Days {
			if d.Day != fmt.Sprintf("%s-%02d", m.Month, i+1) {
				t.Fatalf("day %d of %s is %s", i+1, m.Month, d.Day)
			}
			busy := d.Day == "2026-11-24" || d.Day == "2026-12-01"
			if busy != (d.Seconds > 0) {
				t.Errorf("%s has %v seconds", d.Day, d.Seconds)
			}
		}
	}
	nov24, dec1 := got.Months[0].Days[23], got.Months[1].Days[0]
	if nov24.Seconds != 90 || nov24.Jobs != 2 || dec1.Seconds != 45 || dec1.Jobs != 1 {
		t.Fatalf("Nov 24 %+v, Dec 1 %+v; want 90 s in 2 jobs and 45 s in 1", nov24, dec1)
	}
	if got.Months[0].Seconds != 90 || got.Months[1].Seconds != 45 {
		t.Fatalf("month sums %v and %v, want 90 and 45", got.Months[0].Seconds, got.Months[1].Seconds)
	}
	// The current month's days add up to what the quota enforces.
	if u, _ := e.svc.Usage(ctx, "acct"); u.UsedSeconds != got.Months[1].Seconds {
		t.Fatalf("Usage %v s, days of the month %v s", u.UsedSeconds, got.Months[1].Seconds)
	}
	wantTop := []jobs.LanguageUsage{{Language: "en", Seconds: 60}, {Language: "de", Seconds: 45}, {Language: "", Seconds: 30}}
	if !reflect.DeepEqual(got.TopLanguages, wantTop) {
		t.Fatalf("top languages %+v, want %+v", got.TopLanguages, wantTop)
	}

	// A named month brings the one before it: October and November.
	named, err := e.svc.DailyUsage(ctx, "acct", "2026-11")
	if err != nil {
		t.Fatal(err)
	}
	if named.Months[0].Month != "2026-10" || len(named.Months[0].Days) != 31 || named.Months[1].Seconds != 90 || named.Months[0].Seconds != 0 {
		t.Fatalf("October and November: %+v", named.Months)
	}
	// Another account sees none of it.
	if other, _ := e.svc.DailyUsage(ctx, "other", ""); other.Months[1].Seconds != 0 || len(other.TopLanguages) != 0 {
		t.Fatalf("another account's usage %+v", other)
	}
	for _, bad := range []string{"2026-13", "11-2026", "2026-1", "2026-11-01", "1999-12"} {
		if _, err := e.svc.DailyUsage(ctx, "acct", bad); !callscribe.IsCode(err, callscribe.CodeInvalidRequest) {
			t.Errorf("month %q: %v, want INVALID_REQUEST", bad, err)
		}
	}
}
