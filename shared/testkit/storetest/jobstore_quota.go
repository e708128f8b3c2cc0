package storetest

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore contract: the monthly quota reserved atomically with CreateJob.

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

	mustReserve(t, s, account, baseTime, 30.25, quotaFor("2025-03", 6000))
	requireUsed(t, s, account, "2025-03", 150.75)
}

func testQuotaExceeded(t *testing.T, s callscribe.JobStore) {
	account := newID()
	first := mustReserve(t, s, account, baseTime, 540, quotaFor("2025-03", 600))

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
	mustReserve(t, s, account, baseTime, 450, quotaFor("2025-03", 600))
	mustReserve(t, s, account, baseTime, 150, quotaFor("2025-03", 600))
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
	mustReserve(t, s, alice, baseTime, 100, quotaFor("2025-03", 100))

	// March is full for alice; April and bob are untouched.
	mustReserve(t, s, alice, baseTime.AddDate(0, 1, 0), 100, quotaFor("2025-04", 100))
	mustReserve(t, s, bob, baseTime, 100, quotaFor("2025-03", 100))

	requireUsed(t, s, alice, "2025-03", 100)
	requireUsed(t, s, alice, "2025-04", 100)
	requireUsed(t, s, alice, "2025-05", 0)
	requireUsed(t, s, bob, "2025-03", 100)
	requireUsed(t, s, bob, "2025-04", 0)
}

func testQuotaNoReservation(t *testing.T, s callscribe.JobStore) {
	account := newID()
	mustReserve(t, s, account, baseTime, 60, quotaFor("2025-03", 1000))

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
