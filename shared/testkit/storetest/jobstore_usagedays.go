package storetest

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore contract: the per-day usage counters written with the quota
// reservation (DailyUsage).

func dailyUsage(t *testing.T, s callscribe.JobStore, accountID, from, to string) []callscribe.DayUsage {
	t.Helper()
	days, err := s.DailyUsage(t.Context(), accountID, from, to)
	requireNoError(t, err, "DailyUsage")
	return days
}

func requireDays(t *testing.T, s callscribe.JobStore, accountID, from, to string, want []callscribe.DayUsage) {
	t.Helper()
	got := dailyUsage(t, s, accountID, from, to)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DailyUsage(%s..%s) =\n  %+v\nwant\n  %+v", from, to, got, want)
	}
}

// reserveAt stores a queued transcription created at createdAt in language
// that reserves seconds in the month of createdAt.
func reserveAt(t *testing.T, s callscribe.JobStore, accountID string, createdAt time.Time, language string, seconds float64) *callscribe.Job {
	t.Helper()
	j := newTranscription(accountID, createdAt)
	j.Language = language
	j.AudioSeconds = seconds
	mustCreate(t, s, j, quotaFor(callscribe.QuotaMonth(createdAt), 1e6))
	return j
}

func failJob(t *testing.T, s callscribe.JobStore, j *callscribe.Job, from callscribe.JobStatus) {
	t.Helper()
	_, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: j.ID, From: []callscribe.JobStatus{from}, To: callscribe.StatusFailed,
		Error: &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "unreadable"}, At: j.CreatedAt.Add(time.Hour),
	})
	requireNoError(t, err, string(from)+" -> failed")
}

func testUsageDaysCountedOnTheUTCDay(t *testing.T, s callscribe.JobStore) {
	account := newID()
	lastInstant := time.Date(2025, 3, 14, 23, 59, 59, 999999999, time.UTC)
	reserveAt(t, s, account, lastInstant, "en-US", 60)
	// 20:30 in New York on the 14th is 00:30 UTC on the 15th.
	newYork := time.FixedZone("UTC-4", -4*3600)
	reserveAt(t, s, account, time.Date(2025, 3, 14, 20, 30, 0, 0, newYork), "en-US", 30)
	reserveAt(t, s, account, lastInstant.Add(time.Nanosecond), "", 15.5)
	reserveAt(t, s, account, lastInstant.Add(2*time.Hour), "de", 4)

	requireDays(t, s, account, "2025-03-01", "2025-03-31", []callscribe.DayUsage{
		{Day: "2025-03-14", Seconds: 60, Jobs: 1, LanguageSeconds: map[string]float64{"en-US": 60}},
		{Day: "2025-03-15", Seconds: 49.5, Jobs: 3, LanguageSeconds: map[string]float64{"en-US": 30, "": 15.5, "de": 4}},
	})
	requireUsed(t, s, account, "2025-03", 109.5)
	// Bounds are inclusive days.
	requireDays(t, s, account, "2025-03-15", "2025-03-15", []callscribe.DayUsage{
		{Day: "2025-03-15", Seconds: 49.5, Jobs: 3, LanguageSeconds: map[string]float64{"en-US": 30, "": 15.5, "de": 4}},
	})
	requireDays(t, s, account, "2025-03-16", "2025-03-31", nil)
}

func testUsageDaysReleasedLikeTheMonth(t *testing.T, s callscribe.JobStore) {
	account := newID()
	failing := reserveAt(t, s, account, baseTime, "en-US", 100)
	failingLater := reserveAt(t, s, account, baseTime, "fr", 20)
	succeeding := reserveAt(t, s, account, baseTime, "en-US", 50)
	deleted := reserveAt(t, s, account, baseTime, "en-US", 7)
	day := callscribe.UsageDay(baseTime)
	requireUsed(t, s, account, "2025-03", 177)
	requireDays(t, s, account, day, day, []callscribe.DayUsage{
		{Day: day, Seconds: 177, Jobs: 4, LanguageSeconds: map[string]float64{"en-US": 157, "fr": 20}},
	})

	failJob(t, s, failing, callscribe.StatusQueued)
	_, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: failingLater.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusProcessing,
		CountAttempt: true, At: baseTime.Add(time.Minute),
	})
	requireNoError(t, err, "queued -> processing")
	failJob(t, s, failingLater, callscribe.StatusProcessing)
	// A second failure releases nothing, on the day as on the month.
	failJob(t, s, failing, callscribe.StatusFailed)
	_, err = s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: succeeding.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusSucceeded,
		Result: json.RawMessage(`{"transcript": []}`), Language: "es", At: baseTime.Add(time.Minute),
	})
	requireNoError(t, err, "queued -> succeeded")
	requireNoError(t, s.DeleteJob(t.Context(), deleted.ID, baseTime.Add(time.Minute)), "DeleteJob")

	requireUsed(t, s, account, "2025-03", 57)
	requireDays(t, s, account, day, day, []callscribe.DayUsage{
		{Day: day, Seconds: 57, Jobs: 2, LanguageSeconds: map[string]float64{"en-US": 57, "fr": 0}},
	})
}

func testUsageDaysOnlyReservationsCount(t *testing.T, s callscribe.JobStore) {
	account := newID()
	reserveAt(t, s, account, baseTime, "en-US", 540)

	// Refused by the quota: nothing on the day.
	over := newTranscription(account, baseTime)
	over.AudioSeconds = 120
	requireCode(t, s.CreateJob(t.Context(), over, quotaFor("2025-03", 600)), callscribe.CodeQuotaExceeded, "CreateJob past the limit")
	// A duplicate id: nothing on the day.
	dup := newTranscription(account, baseTime)
	dup.ID = reserveAt(t, s, account, baseTime, "en-US", 1).ID
	if err := s.CreateJob(t.Context(), dup, quotaFor("2025-03", 1e6)); err == nil {
		t.Fatal("CreateJob with an existing id succeeded")
	}
	// A derived job reserves nothing.
	derived := newTranscription(account, baseTime)
	derived.Type = callscribe.TypeSummary
	derived.AudioSeconds = 0
	mustCreate(t, s, derived, nil)

	day := callscribe.UsageDay(baseTime)
	requireDays(t, s, account, day, day, []callscribe.DayUsage{
		{Day: day, Seconds: 541, Jobs: 2, LanguageSeconds: map[string]float64{"en-US": 541}},
	})
}

func testUsageDaysAcrossTwoMonths(t *testing.T, s callscribe.JobStore) {
	account, other := newID(), newID()
	feb28 := time.Date(2025, 2, 28, 12, 0, 0, 0, time.UTC)
	mar1 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	reserveAt(t, s, account, time.Date(2025, 1, 31, 23, 0, 0, 0, time.UTC), "en-US", 1000)
	reserveAt(t, s, account, time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), "en-US", 10)
	reserveAt(t, s, account, feb28, "en-US", 20)
	reserveAt(t, s, account, mar1, "de", 30)
	reserveAt(t, s, account, time.Date(2025, 3, 31, 23, 59, 59, 0, time.UTC), "de", 40)
	reserveAt(t, s, account, time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC), "de", 2000)
	reserveAt(t, s, other, feb28, "en-US", 3000)

	requireDays(t, s, account, "2025-02-01", "2025-03-31", []callscribe.DayUsage{
		{Day: "2025-02-01", Seconds: 10, Jobs: 1, LanguageSeconds: map[string]float64{"en-US": 10}},
		{Day: "2025-02-28", Seconds: 20, Jobs: 1, LanguageSeconds: map[string]float64{"en-US": 20}},
		{Day: "2025-03-01", Seconds: 30, Jobs: 1, LanguageSeconds: map[string]float64{"de": 30}},
		{Day: "2025-03-31", Seconds: 40, Jobs: 1, LanguageSeconds: map[string]float64{"de": 40}},
	})
	// The days of a month add up to its quota usage.
	requireUsed(t, s, account, "2025-02", 30)
	requireUsed(t, s, account, "2025-03", 70)
	requireDays(t, s, newID(), "2025-02-01", "2025-03-31", nil)
}
