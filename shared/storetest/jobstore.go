package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// RunJobStoreTests runs the JobStore contract against stores made by newStore,
// which is called once per subtest and should return an empty store (see the
// package comment for the one subtest that needs it really empty).
//
// Contract decisions the suite pins down beyond the interface comments:
//   - CreateJob records QuotaMonth from the reservation: quota.Month with a
//     reservation, "" without one, whatever job.QuotaMonth said; it sets
//     job.QuotaMonth accordingly on success. Only a job that really reserved
//     seconds can release them.
//   - CreateJob with an id that already exists fails (any error) and changes
//     nothing, quota included.
//   - ListJobs returns Next == nil exactly when no further matching job exists,
//     so a page that ends the set exactly has no Next; otherwise Next is the
//     position of the page's last job.
//   - A transition of a job that is already failed to failed releases nothing.
func RunJobStoreTests(t *testing.T, newStore func(t *testing.T) callscribe.JobStore) {
	tests := []struct {
		name string
		run  func(t *testing.T, s callscribe.JobStore)
	}{
		{"CreateGet/RoundTripsEveryFieldOfATranscription", testRoundTripTranscription},
		{"CreateGet/RoundTripsEveryFieldOfDerivedJobs", testRoundTripDerived},
		{"CreateGet/RoundTripsAFailedJobWithProviderError", testRoundTripFailed},
		{"CreateGet/LegacyJobWithoutTypeIsATranscription", testLegacyType},
		{"CreateGet/DuplicateIDFailsAndChangesNothing", testDuplicateID},
		{"GetJob/MissingIsJobNotFound", testGetMissing},
		{"Quota/ReservationIsCounted", testQuotaReserved},
		{"Quota/ExceedingFailsWithDetailsAndStoresNothing", testQuotaExceeded},
		{"Quota/ReachingTheLimitExactlyIsAllowed", testQuotaExactLimit},
		{"Quota/ConcurrentReservationsNeverPassTheLimit", testQuotaConcurrent},
		{"Quota/MonthsAndAccountsAreSeparate", testQuotaSeparation},
		{"Quota/JobsWithoutReservationHoldNoQuota", testQuotaNoReservation},
		{"Transition/AppliesFromAllowedStatus", testTransitionApplies},
		{"Transition/SetsResultAndError", testTransitionResultAndError},
		{"Transition/RecordsDetectedLanguageOnlyWhenNone", testTransitionLanguage},
		{"Transition/ConflictWhenStatusNotInFrom", testTransitionConflict},
		{"Transition/MissingJobIsJobNotFound", testTransitionMissing},
		{"Transition/DeletedJobConflicts", testTransitionDeleted},
		{"Transition/ConcurrentTransitionsApplyOnce", testTransitionConcurrent},
		{"Transition/FailingReleasesQuotaOnce", testTransitionReleasesQuota},
		{"Transition/ReleaseUsesTheJobsQuotaMonth", testTransitionReleaseMonth},
		{"Delete/HidesJobAtOnce", testDeleteHides},
		{"Delete/KeepsQuotaUsed", testDeleteKeepsQuota},
		{"Delete/PurgeRemovesOnlyOlderDeletions", testPurge},
		{"List/NewestFirstWithTies", testListOrder},
		{"List/LimitAndNext", testListLimitAndNext},
		{"List/SummaryFields", testListSummaryFields},
		{"List/CursorSurvivesDeletionOfItsJob", testListCursorAfterDelete},
		{"List/EmptyAccount", testListEmpty},
		{"UnfinishedJobIDs/LiveQueuedAndProcessingOldestFirst", testUnfinished},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newStore(t)) })
	}
	t.Run("List/Paging", func(t *testing.T) { testListPaging(t, newStore(t)) })
}

// newTranscription returns a queued transcription of the account, every field a
// fresh transcription carries set.
func newTranscription(accountID string, createdAt time.Time) *callscribe.Job {
	id := newID()
	return &callscribe.Job{
		ID:               id,
		AccountID:        accountID,
		Type:             callscribe.TypeTranscription,
		Status:           callscribe.StatusQueued,
		OriginalFilename: ptr("call 0001 (ünïcode).wav"),
		Language:         "en-US",
		AudioSeconds:     90.5,
		AudioKey:         "audio/" + id,
		AudioFormat:      callscribe.FormatWAV,
		Metadata:         json.RawMessage(`{"crm_id": 42, "labels": ["a", "b"], "nested": {"x": null, "y": 1.5}}`),
		CreatedAt:        createdAt,
		UpdatedAt:        createdAt,
	}
}

func quotaFor(month string, limit float64) *callscribe.QuotaReservation {
	return &callscribe.QuotaReservation{Month: month, LimitSeconds: limit}
}

func mustCreate(t *testing.T, s callscribe.JobStore, j *callscribe.Job, q *callscribe.QuotaReservation) {
	t.Helper()
	requireNoError(t, s.CreateJob(t.Context(), j, q), "CreateJob "+j.ID)
}

func mustGet(t *testing.T, s callscribe.JobStore, id string) *callscribe.Job {
	t.Helper()
	j, err := s.GetJob(t.Context(), id)
	requireNoError(t, err, "GetJob "+id)
	if j == nil {
		t.Fatalf("GetJob %s: nil job with nil error", id)
	}
	return j
}

func usedSeconds(t *testing.T, s callscribe.JobStore, accountID, month string) float64 {
	t.Helper()
	used, err := s.UsedSeconds(t.Context(), accountID, month)
	requireNoError(t, err, "UsedSeconds")
	return used
}

func requireUsed(t *testing.T, s callscribe.JobStore, accountID, month string, want float64) {
	t.Helper()
	if got := usedSeconds(t, s, accountID, month); got != want {
		t.Fatalf("UsedSeconds(%s) = %v, want %v", month, got, want)
	}
}

func testRoundTripTranscription(t *testing.T, s callscribe.JobStore) {
	j := newTranscription(newID(), baseTime)
	j.QuotaMonth = "2025-03"
	j.Attempts = 2
	j.UpdatedAt = baseTime.Add(1500 * time.Millisecond)
	want := *j
	mustCreate(t, s, j, quotaFor("2025-03", 60000))
	assertJobEqual(t, &want, mustGet(t, s, j.ID))

	// A job whose upload is not attached yet: no filename, no metadata.
	bare := newTranscription(j.AccountID, baseTime)
	bare.OriginalFilename = nil
	bare.Metadata = nil
	bare.Language = ""
	bare.AudioFormat = callscribe.FormatMP3
	mustCreate(t, s, bare, nil)
	assertJobEqual(t, bare, mustGet(t, s, bare.ID))
}

func testRoundTripDerived(t *testing.T, s callscribe.JobStore) {
	account := newID()
	source := newID()
	summary := &callscribe.Job{
		ID:          newID(),
		AccountID:   account,
		Type:        callscribe.TypeSummary,
		Status:      callscribe.StatusProcessing,
		SourceJobID: source,
		Language:    "de",
		Input: &callscribe.Transcript{Segments: []callscribe.Segment{
			{Text: "Hallo, wie kann ich helfen?", TimeStart: 0, TimeEnd: 1.25, SpeakerID: 0, SpeakerAlias: callscribe.AliasAgent},
			{Text: "Meine Rechnung ist falsch.", TimeStart: 1.5, TimeEnd: 3.75, SpeakerID: 1, SpeakerAlias: callscribe.AliasUser},
		}},
		Attempts:  1,
		CreatedAt: baseTime,
		UpdatedAt: baseTime.Add(time.Nanosecond),
	}
	mustCreate(t, s, summary, nil)
	assertJobEqual(t, summary, mustGet(t, s, summary.ID))

	tags := &callscribe.Job{
		ID:        newID(),
		AccountID: account,
		Type:      callscribe.TypeTags,
		Status:    callscribe.StatusSucceeded,
		Input:     &callscribe.Transcript{Text: "Agent: Hello\nUser: I want to cancel."},
		Callback:  &callscribe.Callback{URL: "https://example.com/hook?x=1", APIKey: "gw-key", CallUUID: newID()},
		Result:    json.RawMessage(`{"tags": {"call_reason": ["cancellation"], "customer_sentiment": ["negative"]}, "meta_data": null}`),
		CreatedAt: baseTime.Add(time.Second),
		UpdatedAt: baseTime.Add(2 * time.Second),
	}
	mustCreate(t, s, tags, nil)
	assertJobEqual(t, tags, mustGet(t, s, tags.ID))
}

func testRoundTripFailed(t *testing.T, s callscribe.JobStore) {
	j := newTranscription(newID(), baseTime)
	j.Status = callscribe.StatusFailed
	j.Error = &callscribe.JobError{
		Code:          callscribe.JobErrProviderError,
		Message:       "the provider rejected the audio",
		ProviderError: &callscribe.ProviderError{Code: "invalid_file", Message: "unreadable header"},
	}
	mustCreate(t, s, j, nil)
	assertJobEqual(t, j, mustGet(t, s, j.ID))

	noProvider := newTranscription(j.AccountID, baseTime)
	noProvider.Status = callscribe.StatusFailed
	noProvider.Error = &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "no audio stream"}
	mustCreate(t, s, noProvider, nil)
	assertJobEqual(t, noProvider, mustGet(t, s, noProvider.ID))
}

func testLegacyType(t *testing.T, s callscribe.JobStore) {
	j := newTranscription(newID(), baseTime)
	j.Type = ""
	mustCreate(t, s, j, nil)
	got := mustGet(t, s, j.ID)
	if got.Type != callscribe.TypeTranscription {
		t.Fatalf("legacy job Type = %q, want %q", got.Type, callscribe.TypeTranscription)
	}
	assertJobEqual(t, j, got)

	ids := listAllIDs(t, s, callscribe.ListRequest{AccountID: j.AccountID, Filter: callscribe.JobFilter{Type: callscribe.TypeTranscription}, Limit: 10})
	if !slices.Equal(ids, []string{j.ID}) {
		t.Fatalf("type=transcription listing = %v, want the legacy job %s", ids, j.ID)
	}
	ids = listAllIDs(t, s, callscribe.ListRequest{AccountID: j.AccountID, Filter: callscribe.JobFilter{Type: callscribe.TypeSummary}, Limit: 10})
	if len(ids) != 0 {
		t.Fatalf("type=summary listing = %v, want none", ids)
	}
}

func testDuplicateID(t *testing.T, s callscribe.JobStore) {
	account := newID()
	j := newTranscription(account, baseTime)
	mustCreate(t, s, j, quotaFor("2025-03", 1000))

	dup := newTranscription(account, baseTime.Add(time.Hour))
	dup.ID = j.ID
	dup.Status = callscribe.StatusSucceeded
	if err := s.CreateJob(t.Context(), dup, quotaFor("2025-03", 1000)); err == nil {
		t.Fatal("CreateJob with an existing id: got nil error")
	}
	assertJobEqual(t, j, mustGet(t, s, j.ID))
	requireUsed(t, s, account, "2025-03", j.AudioSeconds)
}

func testGetMissing(t *testing.T, s callscribe.JobStore) {
	j, err := s.GetJob(t.Context(), newID())
	requireCode(t, err, callscribe.CodeJobNotFound, "GetJob of a missing id")
	if j != nil {
		t.Fatalf("GetJob of a missing id returned a job: %+v", j)
	}
}

func testQuotaReserved(t *testing.T, s callscribe.JobStore) {
	account := newID()
	requireUsed(t, s, account, "2025-03", 0)

	a := newTranscription(account, baseTime)
	a.AudioSeconds = 120.5
	a.QuotaMonth = "" // the store records the reservation's month
	mustCreate(t, s, a, quotaFor("2025-03", 6000))
	if a.QuotaMonth != "2025-03" {
		t.Errorf("CreateJob left job.QuotaMonth = %q, want 2025-03", a.QuotaMonth)
	}
	if got := mustGet(t, s, a.ID).QuotaMonth; got != "2025-03" {
		t.Errorf("stored QuotaMonth = %q, want 2025-03", got)
	}
	requireUsed(t, s, account, "2025-03", 120.5)

	b := newTranscription(account, baseTime)
	b.AudioSeconds = 30.25
	mustCreate(t, s, b, quotaFor("2025-03", 6000))
	requireUsed(t, s, account, "2025-03", 150.75)
}

func testQuotaExceeded(t *testing.T, s callscribe.JobStore) {
	account := newID()
	first := newTranscription(account, baseTime)
	first.AudioSeconds = 540
	mustCreate(t, s, first, quotaFor("2025-03", 600))

	over := newTranscription(account, baseTime)
	over.AudioSeconds = 120
	err := s.CreateJob(t.Context(), over, quotaFor("2025-03", 600))
	requireCode(t, err, callscribe.CodeQuotaExceeded, "CreateJob past the limit")
	var e *callscribe.Error
	if !asError(err, &e) {
		t.Fatalf("QUOTA_EXCEEDED is not a *callscribe.Error: %T", err)
	}
	want := callscribe.QuotaExceeded(600, 540, 120).Details
	if !reflect.DeepEqual(e.Details, want) {
		t.Fatalf("QUOTA_EXCEEDED details = %v, want %v", e.Details, want)
	}

	_, err = s.GetJob(t.Context(), over.ID)
	requireCode(t, err, callscribe.CodeJobNotFound, "GetJob of the refused job")
	requireUsed(t, s, account, "2025-03", 540)
	if ids := listAllIDs(t, s, callscribe.ListRequest{AccountID: account, Limit: 10}); !slices.Equal(ids, []string{first.ID}) {
		t.Fatalf("listing after a refused upload = %v, want only %s", ids, first.ID)
	}
}

func testQuotaExactLimit(t *testing.T, s callscribe.JobStore) {
	account := newID()
	a := newTranscription(account, baseTime)
	a.AudioSeconds = 450
	mustCreate(t, s, a, quotaFor("2025-03", 600))
	b := newTranscription(account, baseTime)
	b.AudioSeconds = 150
	mustCreate(t, s, b, quotaFor("2025-03", 600))
	requireUsed(t, s, account, "2025-03", 600)

	// Full now: even one second more is refused.
	c := newTranscription(account, baseTime)
	c.AudioSeconds = 1
	requireCode(t, s.CreateJob(t.Context(), c, quotaFor("2025-03", 600)), callscribe.CodeQuotaExceeded, "CreateJob on a full month")
}

func testQuotaConcurrent(t *testing.T, s callscribe.JobStore) {
	const (
		uploads   = 50
		perUpload = 30.0
		fits      = 17
		limit     = fits*perUpload + perUpload/2 // room for 17.5 uploads: 17 fit
	)
	account := newID()
	jobs := make([]*callscribe.Job, uploads)
	errs := make([]error, uploads)
	for i := range jobs {
		jobs[i] = newTranscription(account, baseTime.Add(time.Duration(i)))
		jobs[i].AudioSeconds = perUpload
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = s.CreateJob(context.Background(), jobs[i], quotaFor("2025-03", limit))
		}()
	}
	close(start)
	wg.Wait()

	succeeded := 0
	for i, err := range errs {
		switch {
		case err == nil:
			succeeded++
			mustGet(t, s, jobs[i].ID)
		case callscribe.IsCode(err, callscribe.CodeQuotaExceeded):
			_, gerr := s.GetJob(t.Context(), jobs[i].ID)
			requireCode(t, gerr, callscribe.CodeJobNotFound, "GetJob of a refused concurrent upload")
		default:
			t.Fatalf("concurrent CreateJob %d: unexpected error %v", i, err)
		}
	}
	if succeeded != fits {
		t.Fatalf("%d of %d concurrent uploads succeeded, want exactly %d", succeeded, uploads, fits)
	}
	requireUsed(t, s, account, "2025-03", fits*perUpload)
}

func testQuotaSeparation(t *testing.T, s callscribe.JobStore) {
	alice, bob := newID(), newID()
	march := newTranscription(alice, baseTime)
	march.AudioSeconds = 100
	mustCreate(t, s, march, quotaFor("2025-03", 100))

	// March is full for alice; April and bob are untouched.
	april := newTranscription(alice, baseTime.AddDate(0, 1, 0))
	april.AudioSeconds = 100
	mustCreate(t, s, april, quotaFor("2025-04", 100))
	bobs := newTranscription(bob, baseTime)
	bobs.AudioSeconds = 100
	mustCreate(t, s, bobs, quotaFor("2025-03", 100))

	requireUsed(t, s, alice, "2025-03", 100)
	requireUsed(t, s, alice, "2025-04", 100)
	requireUsed(t, s, alice, "2025-05", 0)
	requireUsed(t, s, bob, "2025-03", 100)
	requireUsed(t, s, bob, "2025-04", 0)
}

func testQuotaNoReservation(t *testing.T, s callscribe.JobStore) {
	account := newID()
	reserved := newTranscription(account, baseTime)
	reserved.AudioSeconds = 60
	mustCreate(t, s, reserved, quotaFor("2025-03", 1000))

	// A job without a reservation holds nothing, even when the caller filled in
	// QuotaMonth, and failing it releases nothing.
	free := newTranscription(account, baseTime)
	free.AudioSeconds = 45
	free.QuotaMonth = "2025-03"
	mustCreate(t, s, free, nil)
	requireUsed(t, s, account, "2025-03", 60)
	if got := mustGet(t, s, free.ID).QuotaMonth; got != "" {
		t.Fatalf("QuotaMonth of a job created without reservation = %q, want empty", got)
	}
	_, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: free.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusFailed,
		Error: &callscribe.JobError{Code: callscribe.JobErrInternal, Message: "x"}, At: baseTime.Add(time.Minute),
	})
	requireNoError(t, err, "failing a job without reservation")
	requireUsed(t, s, account, "2025-03", 60)
}

func testTransitionApplies(t *testing.T, s callscribe.JobStore) {
	j := newTranscription(newID(), baseTime)
	mustCreate(t, s, j, nil)
	at := baseTime.Add(3*time.Second + 7)

	got, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusProcessing,
		CountAttempt: true, At: at,
	})
	requireNoError(t, err, "queued -> processing")
	want := *j
	want.Status = callscribe.StatusProcessing
	want.Attempts = 1
	want.UpdatedAt = at
	assertJobEqual(t, &want, got)
	assertJobEqual(t, &want, mustGet(t, s, j.ID))

	// Without CountAttempt the counter stays; From may list several statuses.
	at2 := at.Add(time.Second)
	got, err = s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued, callscribe.StatusProcessing}, To: callscribe.StatusQueued,
		At: at2,
	})
	requireNoError(t, err, "processing -> queued")
	want.Status = callscribe.StatusQueued
	want.UpdatedAt = at2
	assertJobEqual(t, &want, got)

	// A retry counts a second attempt.
	got, err = s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusProcessing,
		CountAttempt: true, At: at2.Add(time.Second),
	})
	requireNoError(t, err, "queued -> processing again")
	if got.Attempts != 2 {
		t.Fatalf("Attempts after two counted starts = %d, want 2", got.Attempts)
	}
}

func testTransitionResultAndError(t *testing.T, s callscribe.JobStore) {
	account := newID()
	ok := newTranscription(account, baseTime)
	ok.Status = callscribe.StatusProcessing
	mustCreate(t, s, ok, nil)
	result := json.RawMessage(`{"language": "en", "duration_seconds": 90.5, "words_count": 3, "transcript": [{"text": "hi there you", "time_start": 0, "time_end": 1.5, "speaker_id": 0, "speaker_alias": "Agent"}]}`)
	at := baseTime.Add(time.Minute)
	got, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: ok.ID, From: []callscribe.JobStatus{callscribe.StatusProcessing}, To: callscribe.StatusSucceeded, Result: result, At: at,
	})
	requireNoError(t, err, "processing -> succeeded")
	want := *ok
	want.Status, want.Result, want.UpdatedAt = callscribe.StatusSucceeded, result, at
	assertJobEqual(t, &want, got)
	assertJobEqual(t, &want, mustGet(t, s, ok.ID))

	bad := newTranscription(account, baseTime)
	mustCreate(t, s, bad, nil)
	jobErr := &callscribe.JobError{
		Code: callscribe.JobErrProviderError, Message: "provider failed",
		ProviderError: &callscribe.ProviderError{Code: "rate_limited", Message: "slow down"},
	}
	got, err = s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: bad.ID, From: []callscribe.JobStatus{callscribe.StatusQueued, callscribe.StatusProcessing}, To: callscribe.StatusFailed, Error: jobErr, At: at,
	})
	requireNoError(t, err, "queued -> failed")
	want = *bad
	want.Status, want.Error, want.UpdatedAt = callscribe.StatusFailed, jobErr, at
	assertJobEqual(t, &want, got)
	assertJobEqual(t, &want, mustGet(t, s, bad.ID))
}

func testTransitionLanguage(t *testing.T, s callscribe.JobStore) {
	account := newID()
	detected := newTranscription(account, baseTime)
	detected.Status, detected.Language = callscribe.StatusProcessing, ""
	requested := newTranscription(account, baseTime.Add(time.Second))
	requested.Status = callscribe.StatusProcessing // Language "en-US", as the caller asked
	for _, j := range []*callscribe.Job{detected, requested} {
		mustCreate(t, s, j, nil)
		got, err := s.TransitionJob(t.Context(), callscribe.Transition{
			JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusProcessing}, To: callscribe.StatusSucceeded,
			Result: json.RawMessage(`{"language":"fr"}`), Language: "fr", At: baseTime.Add(time.Minute),
		})
		requireNoError(t, err, "processing -> succeeded")
		if got.Language != mustGet(t, s, j.ID).Language {
			t.Errorf("job %s: TransitionJob returned language %q, GetJob %q", j.ID, got.Language, mustGet(t, s, j.ID).Language)
		}
	}
	if got := mustGet(t, s, detected.ID).Language; got != "fr" {
		t.Errorf("job without a language: %q after success, want the detected fr", got)
	}
	if got := mustGet(t, s, requested.ID).Language; got != "en-US" {
		t.Errorf("job with a requested language: %q after success, want en-US kept", got)
	}
	page, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Filter: callscribe.JobFilter{Language: "fr"}, Limit: 10})
	requireNoError(t, err, "ListJobs language=fr")
	if len(page.Jobs) != 1 || page.Jobs[0].ID != detected.ID || page.Jobs[0].Language != "fr" {
		t.Errorf("language=fr lists %d jobs, want only %s with language fr", len(page.Jobs), detected.ID)
	}
}

func testTransitionConflict(t *testing.T, s callscribe.JobStore) {
	account := newID()
	j := newTranscription(account, baseTime)
	j.Status = callscribe.StatusSucceeded
	j.Result = json.RawMessage(`{"language": null, "duration_seconds": 90.5, "words_count": null, "transcript": []}`)
	mustCreate(t, s, j, quotaFor("2025-03", 1000))
	before := mustGet(t, s, j.ID)

	_, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued, callscribe.StatusProcessing}, To: callscribe.StatusFailed,
		Error: &callscribe.JobError{Code: callscribe.JobErrInternal, Message: "late failure"}, CountAttempt: true, At: baseTime.Add(time.Hour),
	})
	requireCode(t, err, callscribe.CodeConflict, "transition from a status not in From")
	assertJobEqual(t, before, mustGet(t, s, j.ID))
	requireUsed(t, s, account, "2025-03", j.AudioSeconds)

	// An empty From matches nothing.
	_, err = s.TransitionJob(t.Context(), callscribe.Transition{JobID: j.ID, To: callscribe.StatusQueued, At: baseTime.Add(time.Hour)})
	requireCode(t, err, callscribe.CodeConflict, "transition with empty From")
	assertJobEqual(t, before, mustGet(t, s, j.ID))
}

func testTransitionMissing(t *testing.T, s callscribe.JobStore) {
	j, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: newID(), From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusProcessing, At: baseTime,
	})
	requireCode(t, err, callscribe.CodeJobNotFound, "transition of a missing job")
	if j != nil {
		t.Fatalf("transition of a missing job returned %+v", j)
	}
}

func testTransitionDeleted(t *testing.T, s callscribe.JobStore) {
	j := newTranscription(newID(), baseTime)
	mustCreate(t, s, j, nil)
	requireNoError(t, s.DeleteJob(t.Context(), j.ID, baseTime.Add(time.Second)), "DeleteJob")

	_, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusProcessing, CountAttempt: true, At: baseTime.Add(2 * time.Second),
	})
	requireCode(t, err, callscribe.CodeConflict, "transition of a deleted job")
	_, err = s.GetJob(t.Context(), j.ID)
	requireCode(t, err, callscribe.CodeJobNotFound, "GetJob of a deleted job after a refused transition")
	if ids := listAllIDs(t, s, callscribe.ListRequest{AccountID: j.AccountID, Limit: 10}); len(ids) != 0 {
		t.Fatalf("deleted job resurrected in listing: %v", ids)
	}
	ids, err := s.UnfinishedJobIDs(t.Context(), 100)
	requireNoError(t, err, "UnfinishedJobIDs")
	if slices.Contains(ids, j.ID) {
		t.Fatalf("deleted job resurrected in UnfinishedJobIDs")
	}
}

func testTransitionConcurrent(t *testing.T, s callscribe.JobStore) {
	j := newTranscription(newID(), baseTime)
	mustCreate(t, s, j, nil)
	const workers = 20
	errs := make([]error, workers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = s.TransitionJob(context.Background(), callscribe.Transition{
				JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusProcessing,
				CountAttempt: true, At: baseTime.Add(time.Duration(i+1) * time.Second),
			})
		}()
	}
	close(start)
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
		} else if !callscribe.IsCode(err, callscribe.CodeConflict) {
			t.Fatalf("concurrent transition: unexpected error %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d concurrent queued->processing transitions applied, want exactly 1", won)
	}
	if got := mustGet(t, s, j.ID); got.Attempts != 1 || got.Status != callscribe.StatusProcessing {
		t.Fatalf("after concurrent starts: status %s attempts %d, want processing 1", got.Status, got.Attempts)
	}
}

func testTransitionReleasesQuota(t *testing.T, s callscribe.JobStore) {
	account := newID()
	failing := newTranscription(account, baseTime)
	failing.AudioSeconds = 100
	mustCreate(t, s, failing, quotaFor("2025-03", 1000))
	succeeding := newTranscription(account, baseTime)
	succeeding.AudioSeconds = 50
	mustCreate(t, s, succeeding, quotaFor("2025-03", 1000))
	requireUsed(t, s, account, "2025-03", 150)

	fail := callscribe.Transition{
		JobID: failing.ID, From: []callscribe.JobStatus{callscribe.StatusQueued, callscribe.StatusProcessing}, To: callscribe.StatusFailed,
		Error: &callscribe.JobError{Code: callscribe.JobErrBadAudio, Message: "unreadable"}, At: baseTime.Add(time.Minute),
	}
	_, err := s.TransitionJob(t.Context(), fail)
	requireNoError(t, err, "queued -> failed")
	requireUsed(t, s, account, "2025-03", 50)

	_, err = s.TransitionJob(t.Context(), fail)
	requireCode(t, err, callscribe.CodeConflict, "second failed transition")
	requireUsed(t, s, account, "2025-03", 50)

	// Even a transition that allows failed -> failed does not release again.
	fail.From = []callscribe.JobStatus{callscribe.StatusFailed}
	_, err = s.TransitionJob(t.Context(), fail)
	requireNoError(t, err, "failed -> failed")
	requireUsed(t, s, account, "2025-03", 50)

	_, err = s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: succeeding.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusSucceeded,
		Result: json.RawMessage(`{"transcript": []}`), At: baseTime.Add(time.Minute),
	})
	requireNoError(t, err, "queued -> succeeded")
	requireUsed(t, s, account, "2025-03", 50)

	// The released seconds are available again.
	refill := newTranscription(account, baseTime)
	refill.AudioSeconds = 950
	mustCreate(t, s, refill, quotaFor("2025-03", 1000))
	requireUsed(t, s, account, "2025-03", 1000)
}

func testTransitionReleaseMonth(t *testing.T, s callscribe.JobStore) {
	account := newID()
	march := newTranscription(account, baseTime)
	march.AudioSeconds = 70
	mustCreate(t, s, march, quotaFor("2025-03", 1000))
	april := newTranscription(account, baseTime.AddDate(0, 1, 0))
	april.AudioSeconds = 30
	mustCreate(t, s, april, quotaFor("2025-04", 1000))

	// The March job fails in April: March gets its seconds back, April keeps its own.
	_, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: march.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusFailed,
		Error: &callscribe.JobError{Code: callscribe.JobErrInternal, Message: "x"}, At: baseTime.AddDate(0, 1, 1),
	})
	requireNoError(t, err, "failing the March job in April")
	requireUsed(t, s, account, "2025-03", 0)
	requireUsed(t, s, account, "2025-04", 30)
}

func testDeleteHides(t *testing.T, s callscribe.JobStore) {
	account := newID()
	kept := newTranscription(account, baseTime)
	gone := newTranscription(account, baseTime.Add(time.Second))
	mustCreate(t, s, kept, nil)
	mustCreate(t, s, gone, nil)

	requireNoError(t, s.DeleteJob(t.Context(), gone.ID, baseTime.Add(time.Hour)), "DeleteJob")
	_, err := s.GetJob(t.Context(), gone.ID)
	requireCode(t, err, callscribe.CodeJobNotFound, "GetJob after DeleteJob")
	if ids := listAllIDs(t, s, callscribe.ListRequest{AccountID: account, Limit: 10}); !slices.Equal(ids, []string{kept.ID}) {
		t.Fatalf("listing after delete = %v, want only %s", ids, kept.ID)
	}
	if ids := listAllIDs(t, s, callscribe.ListRequest{AccountID: account, Filter: callscribe.JobFilter{JobID: gone.ID}, Limit: 10}); len(ids) != 0 {
		t.Fatalf("job_id filter finds the deleted job: %v", ids)
	}
	requireCode(t, s.DeleteJob(t.Context(), gone.ID, baseTime.Add(2*time.Hour)), callscribe.CodeJobNotFound, "second DeleteJob")
	requireCode(t, s.DeleteJob(t.Context(), newID(), baseTime), callscribe.CodeJobNotFound, "DeleteJob of a missing id")
	assertJobEqual(t, kept, mustGet(t, s, kept.ID))
}

func testDeleteKeepsQuota(t *testing.T, s callscribe.JobStore) {
	account := newID()
	j := newTranscription(account, baseTime)
	j.AudioSeconds = 80
	mustCreate(t, s, j, quotaFor("2025-03", 1000))
	requireNoError(t, s.DeleteJob(t.Context(), j.ID, baseTime.Add(time.Hour)), "DeleteJob")
	requireUsed(t, s, account, "2025-03", 80)
	n, err := s.PurgeDeletedJobs(t.Context(), baseTime.Add(48*time.Hour))
	requireNoError(t, err, "PurgeDeletedJobs")
	if n != 1 {
		t.Fatalf("PurgeDeletedJobs = %d, want 1", n)
	}
	requireUsed(t, s, account, "2025-03", 80)
}

func testPurge(t *testing.T, s callscribe.JobStore) {
	account := newID()
	early := newTranscription(account, baseTime)
	late := newTranscription(account, baseTime)
	live := newTranscription(account, baseTime)
	for _, j := range []*callscribe.Job{early, late, live} {
		mustCreate(t, s, j, nil)
	}
	t1 := baseTime.Add(time.Hour)
	t2 := baseTime.Add(2 * time.Hour)
	requireNoError(t, s.DeleteJob(t.Context(), early.ID, t1), "DeleteJob early")
	requireNoError(t, s.DeleteJob(t.Context(), late.ID, t2), "DeleteJob late")

	purge := func(before time.Time, want int) {
		t.Helper()
		n, err := s.PurgeDeletedJobs(t.Context(), before)
		requireNoError(t, err, "PurgeDeletedJobs")
		if n != want {
			t.Fatalf("PurgeDeletedJobs(%s) = %d, want %d", before.Format(time.RFC3339Nano), n, want)
		}
	}
	purge(t1, 0) // strictly before: a job deleted exactly at t1 stays
	purge(t1.Add(time.Nanosecond), 1)
	purge(t1.Add(time.Nanosecond), 0)
	purge(baseTime.Add(1000*time.Hour), 1)
	purge(baseTime.Add(1000*time.Hour), 0)
	assertJobEqual(t, live, mustGet(t, s, live.ID))
	for _, id := range []string{early.ID, late.ID} {
		_, err := s.GetJob(t.Context(), id)
		requireCode(t, err, callscribe.CodeJobNotFound, "GetJob of a purged job")
	}
	requireCode(t, s.DeleteJob(t.Context(), early.ID, t2), callscribe.CodeJobNotFound, "DeleteJob of a purged job")
}

// listAllIDs walks every page of req and returns the ids in order, checking the
// paging invariants on the way.
func listAllIDs(t *testing.T, s callscribe.JobStore, req callscribe.ListRequest) []string {
	t.Helper()
	var ids []string
	for page := 0; ; page++ {
		if page > 10000 {
			t.Fatal("listing does not end")
		}
		p, err := s.ListJobs(t.Context(), req)
		requireNoError(t, err, "ListJobs")
		if p == nil {
			t.Fatal("ListJobs returned a nil page")
		}
		if len(p.Jobs) > req.Limit {
			t.Fatalf("page of %d jobs, limit %d", len(p.Jobs), req.Limit)
		}
		for _, j := range p.Jobs {
			ids = append(ids, j.ID)
		}
		if p.Next == nil {
			return ids
		}
		if len(p.Jobs) != req.Limit {
			t.Fatalf("page of %d jobs with a Next, want a full page of %d", len(p.Jobs), req.Limit)
		}
		last := p.Jobs[len(p.Jobs)-1]
		if p.Next.JobID != last.ID || !p.Next.CreatedAt.Equal(last.CreatedAt) {
			t.Fatalf("Next = %v/%s, want the last job's position %v/%s", p.Next.CreatedAt, p.Next.JobID, last.CreatedAt, last.ID)
		}
		req.After = p.Next
	}
}

// newestFirst sorts jobs as listings must: CreatedAt DESC, ID DESC.
func newestFirst(jobs []*callscribe.Job) []string {
	sorted := slices.Clone(jobs)
	slices.SortFunc(sorted, func(a, b *callscribe.Job) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		switch {
		case a.ID > b.ID:
			return -1
		case a.ID < b.ID:
			return 1
		}
		return 0
	})
	ids := make([]string, len(sorted))
	for i, j := range sorted {
		ids[i] = j.ID
	}
	return ids
}

func testListOrder(t *testing.T, s callscribe.JobStore) {
	account := newID()
	var jobs []*callscribe.Job
	// Three jobs share one instant, two share another; creation order is not
	// the listing order.
	for _, at := range []time.Time{baseTime.Add(time.Second), baseTime, baseTime.Add(time.Second), baseTime.Add(time.Second), baseTime, baseTime.Add(time.Nanosecond)} {
		j := newTranscription(account, at)
		mustCreate(t, s, j, nil)
		jobs = append(jobs, j)
	}
	want := newestFirst(jobs)
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 100})
	requireNoError(t, err, "ListJobs")
	var got []string
	for _, j := range p.Jobs {
		got = append(got, j.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listing order = %v, want %v", got, want)
	}
	if p.Next != nil {
		t.Fatalf("single page has Next %+v", p.Next)
	}
	// Walking the ties one at a time gives the same order.
	if got := listAllIDs(t, s, callscribe.ListRequest{AccountID: account, Limit: 1}); !slices.Equal(got, want) {
		t.Fatalf("listing order with limit 1 = %v, want %v", got, want)
	}
}

func testListLimitAndNext(t *testing.T, s callscribe.JobStore) {
	account := newID()
	var jobs []*callscribe.Job
	for i := range 5 {
		j := newTranscription(account, baseTime.Add(time.Duration(i)*time.Minute))
		mustCreate(t, s, j, nil)
		jobs = append(jobs, j)
	}
	want := newestFirst(jobs)

	var pages [][]string
	req := callscribe.ListRequest{AccountID: account, Limit: 2}
	for {
		p, err := s.ListJobs(t.Context(), req)
		requireNoError(t, err, "ListJobs")
		var ids []string
		for _, j := range p.Jobs {
			ids = append(ids, j.ID)
		}
		pages = append(pages, ids)
		if p.Next == nil || len(pages) > 5 {
			break
		}
		req.After = p.Next
	}
	wantPages := [][]string{want[0:2], want[2:4], want[4:5]}
	if !reflect.DeepEqual(pages, wantPages) {
		t.Fatalf("pages of 2 = %v, want %v", pages, wantPages)
	}

	for _, limit := range []int{5, 6, 100} {
		p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: limit})
		requireNoError(t, err, "ListJobs")
		if len(p.Jobs) != 5 || p.Next != nil {
			t.Fatalf("limit %d over 5 jobs: %d jobs, Next %v; want 5 jobs and no Next", limit, len(p.Jobs), p.Next)
		}
	}
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 4})
	requireNoError(t, err, "ListJobs")
	if len(p.Jobs) != 4 || p.Next == nil {
		t.Fatalf("limit 4 over 5 jobs: %d jobs, Next %v; want 4 jobs and a Next", len(p.Jobs), p.Next)
	}
	// The page after the exact end is empty, not an error.
	p, err = s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 4, After: &callscribe.Position{CreatedAt: jobs[0].CreatedAt, JobID: jobs[0].ID}})
	requireNoError(t, err, "ListJobs after the oldest job")
	if len(p.Jobs) != 0 || p.Next != nil {
		t.Fatalf("page after the oldest job: %d jobs, Next %v; want none", len(p.Jobs), p.Next)
	}
}

func testListSummaryFields(t *testing.T, s callscribe.JobStore) {
	account := newID()
	a := newTranscription(account, baseTime)
	a.Status = callscribe.StatusProcessing
	a.UpdatedAt = baseTime.Add(time.Second + 3)
	b := newTranscription(account, baseTime.Add(time.Minute))
	b.OriginalFilename = nil
	b.Language = ""
	b.Type = callscribe.TypeSummary
	b.AudioSeconds = 0
	for _, j := range []*callscribe.Job{a, b} {
		mustCreate(t, s, j, nil)
	}
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 10})
	requireNoError(t, err, "ListJobs")
	if len(p.Jobs) != 2 {
		t.Fatalf("listed %d jobs, want 2", len(p.Jobs))
	}
	for i, want := range []*callscribe.Job{b, a} {
		got := p.Jobs[i]
		if got.ID != want.ID || got.AccountID != want.AccountID || got.Type != want.Type || got.Status != want.Status ||
			!reflect.DeepEqual(got.OriginalFilename, want.OriginalFilename) || got.Language != want.Language ||
			got.AudioSeconds != want.AudioSeconds || !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
			t.Errorf("listed job %d = %+v, want the summary fields of %+v", i, got, want)
		}
	}
}

func testListCursorAfterDelete(t *testing.T, s callscribe.JobStore) {
	account := newID()
	var jobs []*callscribe.Job
	for i := range 6 {
		j := newTranscription(account, baseTime.Add(time.Duration(i/2)*time.Second)) // pairs share an instant
		mustCreate(t, s, j, nil)
		jobs = append(jobs, j)
	}
	want := newestFirst(jobs)
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 3})
	requireNoError(t, err, "ListJobs")
	if p.Next == nil {
		t.Fatal("first page of 3 over 6 jobs has no Next")
	}
	// The job the cursor points at disappears before the next page is read.
	requireNoError(t, s.DeleteJob(t.Context(), p.Next.JobID, baseTime.Add(time.Hour)), "DeleteJob")
	p, err = s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 3, After: p.Next})
	requireNoError(t, err, "ListJobs after a deleted cursor job")
	var got []string
	for _, j := range p.Jobs {
		got = append(got, j.ID)
	}
	if !slices.Equal(got, want[3:]) || p.Next != nil {
		t.Fatalf("second page = %v (Next %v), want %v and no Next", got, p.Next, want[3:])
	}
}

func testListEmpty(t *testing.T, s callscribe.JobStore) {
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: newID(), Limit: 10})
	requireNoError(t, err, "ListJobs of an account without jobs")
	if p == nil || len(p.Jobs) != 0 || p.Next != nil {
		t.Fatalf("empty listing = %+v, want no jobs and no Next", p)
	}
}

// testListPaging walks a larger data set with every filter and some
// combinations, comparing against the expected set computed here.
func testListPaging(t *testing.T, s callscribe.JobStore) {
	account, other := newID(), newID()
	types := []callscribe.JobType{callscribe.TypeTranscription, callscribe.TypeSummary, callscribe.TypeTags, ""}
	statuses := []callscribe.JobStatus{callscribe.StatusQueued, callscribe.StatusProcessing, callscribe.StatusSucceeded, callscribe.StatusFailed}
	languages := []string{"en", "de", "en-US", "", "EN"}

	var live []*callscribe.Job
	var deletedIDs []string
	for i := range 250 {
		// Two of every three jobs share a creation instant and the third is one
		// nanosecond later: ties everywhere, and only nanosecond precision orders them.
		j := newTranscription(account, baseTime.Add(time.Duration(i/3)*time.Second+time.Duration(i%3/2)))
		j.Type = types[i%len(types)]
		j.Status = statuses[(i/2)%len(statuses)]
		j.Language = languages[(i/3)%len(languages)]
		mustCreate(t, s, j, nil)
		if i%17 == 5 {
			requireNoError(t, s.DeleteJob(t.Context(), j.ID, baseTime), "DeleteJob")
			deletedIDs = append(deletedIDs, j.ID)
			continue
		}
		live = append(live, j)
	}
	// Another account's jobs sit at the same instants with the same values.
	var foreign []*callscribe.Job
	for i := range 40 {
		j := newTranscription(other, baseTime.Add(time.Duration(i*5)*time.Second))
		j.Type = types[i%len(types)]
		j.Status = statuses[i%len(statuses)]
		j.Language = "en"
		mustCreate(t, s, j, nil)
		foreign = append(foreign, j)
	}

	// Sanity checks on the data set itself, so that a broken generator cannot
	// make the filter subtests vacuous.
	if len(live) < 200 || len(deletedIDs) < 10 {
		t.Fatalf("data set too small: %d live jobs, %d deleted", len(live), len(deletedIDs))
	}

	middle := live[len(live)/2].CreatedAt // may be shared by two jobs: "after" must exclude both
	matches := func(j *callscribe.Job, f callscribe.JobFilter) bool {
		return (f.Status == "" || j.Status == f.Status) &&
			(f.Type == "" || j.Type.OrDefault() == f.Type) &&
			(f.Language == "" || j.Language == f.Language) &&
			(f.CreatedAfter == nil || j.CreatedAt.After(*f.CreatedAfter)) &&
			(f.JobID == "" || j.ID == f.JobID)
	}
	filters := []struct {
		name   string
		filter callscribe.JobFilter
		limits []int
		empty  bool // the filter matches nothing on purpose
	}{
		{"None", callscribe.JobFilter{}, []int{1, 7, 100}, false},
		{"StatusQueued", callscribe.JobFilter{Status: callscribe.StatusQueued}, []int{7}, false},
		{"StatusFailed", callscribe.JobFilter{Status: callscribe.StatusFailed}, []int{10}, false},
		{"TypeTranscriptionIncludesLegacy", callscribe.JobFilter{Type: callscribe.TypeTranscription}, []int{7}, false},
		{"TypeSummary", callscribe.JobFilter{Type: callscribe.TypeSummary}, []int{7}, false},
		{"TypeTags", callscribe.JobFilter{Type: callscribe.TypeTags}, []int{3}, false},
		{"LanguageExact", callscribe.JobFilter{Language: "en"}, []int{7}, false},
		{"CreatedAfterIsStrict", callscribe.JobFilter{CreatedAfter: &middle}, []int{7}, false},
		{"JobID", callscribe.JobFilter{JobID: live[100].ID}, []int{1, 10}, false},
		{"JobIDOfDeletedJob", callscribe.JobFilter{JobID: deletedIDs[0]}, []int{10}, true},
		{"JobIDOfOtherAccount", callscribe.JobFilter{JobID: foreign[3].ID}, []int{10}, true},
		{"StatusAndType", callscribe.JobFilter{Status: callscribe.StatusSucceeded, Type: callscribe.TypeTranscription}, []int{4}, false},
		{"TypeLanguageCreatedAfter", callscribe.JobFilter{Type: callscribe.TypeSummary, Language: "de", CreatedAfter: &middle}, []int{2}, false},
		{"JobIDAndWrongStatus", callscribe.JobFilter{JobID: live[100].ID, Status: otherStatus(live[100].Status)}, []int{10}, true},
		{"JobIDAndRightStatus", callscribe.JobFilter{JobID: live[100].ID, Status: live[100].Status}, []int{10}, false},
	}
	for _, f := range filters {
		var expected []*callscribe.Job
		for _, j := range live {
			if matches(j, f.filter) {
				expected = append(expected, j)
			}
		}
		if (len(expected) == 0) != f.empty {
			t.Fatalf("data set broken: filter %s matches %d jobs", f.name, len(expected))
		}
		want := newestFirst(expected)
		for _, limit := range f.limits {
			t.Run(fmt.Sprintf("%s/Limit%d", f.name, limit), func(t *testing.T) {
				got := listAllIDs(t, s, callscribe.ListRequest{AccountID: account, Filter: f.filter, Limit: limit})
				if !slices.Equal(got, want) {
					t.Fatalf("walked %d ids, want %d:\n got  %v\n want %v", len(got), len(want), got, want)
				}
			})
		}
	}
}

func otherStatus(s callscribe.JobStatus) callscribe.JobStatus {
	if s == callscribe.StatusQueued {
		return callscribe.StatusFailed
	}
	return callscribe.StatusQueued
}

func testUnfinished(t *testing.T, s callscribe.JobStore) {
	account := newID()
	mk := func(minute int, status callscribe.JobStatus) *callscribe.Job {
		j := newTranscription(account, baseTime.Add(time.Duration(minute)*time.Minute))
		j.Status = status
		mustCreate(t, s, j, nil)
		return j
	}
	// Created out of order on purpose.
	p3 := mk(3, callscribe.StatusProcessing)
	q1 := mk(1, callscribe.StatusQueued)
	mk(2, callscribe.StatusSucceeded)
	mk(0, callscribe.StatusFailed)
	q5 := mk(5, callscribe.StatusQueued)
	deleted := mk(4, callscribe.StatusQueued)
	requireNoError(t, s.DeleteJob(t.Context(), deleted.ID, baseTime), "DeleteJob")
	otherAccount := newTranscription(newID(), baseTime.Add(4*time.Minute+time.Second))
	mustCreate(t, s, otherAccount, nil)

	ids, err := s.UnfinishedJobIDs(t.Context(), 100)
	requireNoError(t, err, "UnfinishedJobIDs")
	want := []string{q1.ID, p3.ID, otherAccount.ID, q5.ID}
	if !slices.Equal(ids, want) {
		t.Fatalf("UnfinishedJobIDs = %v, want %v", ids, want)
	}
	ids, err = s.UnfinishedJobIDs(t.Context(), 2)
	requireNoError(t, err, "UnfinishedJobIDs limit 2")
	if !slices.Equal(ids, want[:2]) {
		t.Fatalf("UnfinishedJobIDs(2) = %v, want %v", ids, want[:2])
	}
	// Once finished, a job drops out.
	_, err = s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: q1.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusSucceeded,
		Result: json.RawMessage(`{}`), At: baseTime.Add(time.Hour),
	})
	requireNoError(t, err, "finish q1")
	ids, err = s.UnfinishedJobIDs(t.Context(), 100)
	requireNoError(t, err, "UnfinishedJobIDs")
	if !slices.Equal(ids, want[1:]) {
		t.Fatalf("UnfinishedJobIDs after finishing one = %v, want %v", ids, want[1:])
	}
}
