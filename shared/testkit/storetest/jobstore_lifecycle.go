package storetest

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore contract: deletion, purging past retention, and the unfinished jobs a restart requeues.

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
	j := mustReserve(t, s, account, baseTime, 80, quotaFor("2025-03", 1000))
	requireNoError(t, s.DeleteJob(t.Context(), j.ID, baseTime.Add(time.Hour)), "DeleteJob")
	requireUsed(t, s, account, "2025-03", 80)
	// A deleted job cannot fail either, so nothing gives its seconds back.
	_, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusFailed,
		Error: &callscribe.JobError{Code: callscribe.JobErrInternal, Message: "x"}, At: baseTime.Add(2 * time.Hour),
	})
	requireCode(t, err, callscribe.CodeConflict, "failing a deleted job")
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
