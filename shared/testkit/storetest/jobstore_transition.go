package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore contract: compare-and-set status transitions and the quota they release.

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

// testTransitionLongResult: an hour-long call's result with word timings
// (about 1 MB of JSON, over DynamoDB's 400 KB item limit uncompressed) is
// stored and read back byte for byte.
func testTransitionLongResult(t *testing.T, s callscribe.JobStore) {
	j := newTranscription(newID(), baseTime)
	j.Status = callscribe.StatusProcessing
	mustCreate(t, s, j, nil)
	result := LongResult(t, 60, 11)
	got, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusProcessing}, To: callscribe.StatusSucceeded,
		Result: result, At: baseTime.Add(time.Hour),
	})
	requireNoError(t, err, "succeed with an hour-long result")
	if got.Status != callscribe.StatusSucceeded || string(got.Result) != string(result) {
		t.Fatalf("succeed returned status %s and %d result bytes, want succeeded and the %d bytes stored", got.Status, len(got.Result), len(result))
	}
	if stored := mustGet(t, s, j.ID); string(stored.Result) != string(result) {
		t.Fatalf("GetJob returned %d result bytes, want the %d bytes stored", len(stored.Result), len(result))
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

// A succeed that carries Audio points the job at it (PII redaction's WAV
// rendition of an MP3 upload); one without leaves the job's audio alone.
func testTransitionAudio(t *testing.T, s callscribe.JobStore) {
	account := newID()
	moved := newTranscription(account, baseTime)
	moved.Status, moved.AudioKey, moved.AudioFormat = callscribe.StatusProcessing, "audio/"+account+"/"+moved.ID+".mp3", callscribe.FormatMP3
	kept := newTranscription(account, baseTime.Add(time.Second))
	kept.Status = callscribe.StatusProcessing
	rendition := &callscribe.StoredAudio{Key: "audio/" + account + "/" + moved.ID + ".redacted.wav", Format: callscribe.FormatWAV}
	for _, tc := range []struct {
		job   *callscribe.Job
		audio *callscribe.StoredAudio
		want  callscribe.StoredAudio
	}{
		{moved, rendition, *rendition},
		{kept, nil, callscribe.StoredAudio{Key: kept.AudioKey, Format: kept.AudioFormat}},
	} {
		mustCreate(t, s, tc.job, nil)
		got, err := s.TransitionJob(t.Context(), callscribe.Transition{
			JobID: tc.job.ID, From: []callscribe.JobStatus{callscribe.StatusProcessing}, To: callscribe.StatusSucceeded,
			Result: json.RawMessage(`{"transcript":[]}`), Audio: tc.audio, At: baseTime.Add(time.Minute),
		})
		requireNoError(t, err, "processing -> succeeded")
		stored := mustGet(t, s, tc.job.ID)
		for name, j := range map[string]*callscribe.Job{"TransitionJob": got, "GetJob": stored} {
			if j.AudioKey != tc.want.Key || j.AudioFormat != tc.want.Format {
				t.Errorf("job %s: %s gives audio %q (%s), want %q (%s)", tc.job.ID, name, j.AudioKey, j.AudioFormat, tc.want.Key, tc.want.Format)
			}
		}
	}
	page, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: account, Limit: 10})
	requireNoError(t, err, "ListJobs")
	for _, j := range page.Jobs {
		if j.ID == moved.ID && j.AudioFormat != "" && j.AudioFormat != callscribe.FormatWAV {
			t.Errorf("the listing gives the moved job's format %q, want wav", j.AudioFormat)
		}
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
	failing := mustReserve(t, s, account, baseTime, 100, quotaFor("2025-03", 1000))
	succeeding := mustReserve(t, s, account, baseTime, 50, quotaFor("2025-03", 1000))
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
	mustReserve(t, s, account, baseTime, 950, quotaFor("2025-03", 1000))
	requireUsed(t, s, account, "2025-03", 1000)
}

func testTransitionReleaseMonth(t *testing.T, s callscribe.JobStore) {
	account := newID()
	march := mustReserve(t, s, account, baseTime, 70, quotaFor("2025-03", 1000))
	mustReserve(t, s, account, baseTime.AddDate(0, 1, 0), 30, quotaFor("2025-04", 1000))

	// The March job fails in April: March gets its seconds back, April keeps its own.
	_, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: march.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusFailed,
		Error: &callscribe.JobError{Code: callscribe.JobErrInternal, Message: "x"}, At: baseTime.AddDate(0, 1, 1),
	})
	requireNoError(t, err, "failing the March job in April")
	requireUsed(t, s, account, "2025-03", 0)
	requireUsed(t, s, account, "2025-04", 30)
}
