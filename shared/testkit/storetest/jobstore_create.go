package storetest

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore contract: creating and reading jobs.

func testRoundTripTranscription(t *testing.T, s callscribe.JobStore) {
	j := newTranscription(newID(), baseTime)
	j.QuotaMonth = "2025-03"
	j.Attempts = 2
	j.UpdatedAt = baseTime.Add(1500 * time.Millisecond)
	j.Keyterms = []string{"Northwind Energy", "meter reading"}
	j.RedactPII = true
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

// A transcription's keyterms come back exactly as stored, in order (case,
// spaces inside a phrase, quotes and non-ASCII letters kept), through a
// transition too; a job without any reads back none.
func testRoundTripKeyterms(t *testing.T, s callscribe.JobStore) {
	j := newTranscription(newID(), baseTime)
	j.Keyterms = []string{"Northwind Energy", "broadband", "Zoë's \"Café\"", "set top box", "ACME"}
	want := slices.Clone(j.Keyterms)
	mustCreate(t, s, j, nil)
	if got := mustGet(t, s, j.ID).Keyterms; !slices.Equal(got, want) {
		t.Fatalf("keyterms = %q, want %q", got, want)
	}
	done, err := s.TransitionJob(t.Context(), callscribe.Transition{
		JobID: j.ID, From: []callscribe.JobStatus{callscribe.StatusQueued}, To: callscribe.StatusSucceeded,
		Result: json.RawMessage(`{"transcript": [], "meta_data": {"keyterms": {"method": "echo", "applied": ["broadband"], "unknown_words": []}}}`),
		At:     baseTime.Add(time.Second),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(done.Keyterms, want) {
		t.Errorf("keyterms after a transition = %q, want %q", done.Keyterms, want)
	}
	if got := mustGet(t, s, j.ID).Keyterms; !slices.Equal(got, want) {
		t.Errorf("keyterms read after a transition = %q, want %q", got, want)
	}

	none := newTranscription(j.AccountID, baseTime)
	none.Keyterms = nil
	mustCreate(t, s, none, nil)
	if got := mustGet(t, s, none.ID).Keyterms; got != nil {
		t.Errorf("a job without keyterms reads back %q", got)
	}
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
