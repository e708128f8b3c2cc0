package dynamodb

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/testkit/storetest"
)

// TestSyntheticResultSizes logs the sizes and compression ratios the package
// documentation quotes, and checks resultMinutesThatFit against them: a
// result of that many minutes fits in a bare job's item, one 10% longer does
// not.
func TestSyntheticResultSizes(t *testing.T) {
	for _, m := range []int{1, 10, 30, 60, 120} {
		r := storetest.LongResult(t, m, 7)
		av, err := largeJSONAttr(r)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%3d min: %8d bytes JSON, %7d stored, ratio %.1f", m, len(r), attrBytes(av), float64(len(r))/float64(attrBytes(av)))
	}
	bare, err := jobItem(job("acc", t0))
	if err != nil {
		t.Fatal(err)
	}
	room := itemLimitBytes - itemMarginBytes - itemBytes(bare, "") - len(attrResult)
	for _, c := range []struct {
		minutes int
		fits    bool
	}{{resultMinutesThatFit, true}, {resultMinutesThatFit * 11 / 10, false}} {
		av, err := largeJSONAttr(storetest.LongResult(t, c.minutes, 7))
		if err != nil {
			t.Fatal(err)
		}
		if fits := attrBytes(av) <= room; fits != c.fits {
			t.Errorf("%d minutes: %d bytes stored, room %d: fits = %v, want %v", c.minutes, attrBytes(av), room, fits, c.fits)
		}
	}
}

func startedJob(t *testing.T, s *JobStore, j *callscribe.Job, q *callscribe.QuotaReservation) {
	t.Helper()
	mustCreate(t, s, j, q)
	if _, err := s.TransitionJob(t.Context(), callscribe.TransitionStart.For(j.ID, t0)); err != nil {
		t.Fatal(err)
	}
}

// TestLongResultRoundTrips stores the longest result that fits (compressed,
// as a B attribute) and reads it back byte for byte through GetJob, and
// through the search confirmation, which decodes the stored transcript.
func TestLongResultRoundTrips(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	j := job("acc-long", t0)
	startedJob(t, s, j, nil)
	result := storetest.LongResult(t, resultMinutesThatFit, 7)
	succeed := callscribe.TransitionSucceed.For(j.ID, t0.Add(time.Minute))
	succeed.Result = result
	done, err := s.TransitionJob(t.Context(), succeed)
	if err != nil {
		t.Fatalf("succeed with a %d-minute result (%d bytes): %v", resultMinutesThatFit, len(result), err)
	}
	if done.Status != callscribe.StatusSucceeded || !bytes.Equal(done.Result, result) {
		t.Fatalf("succeed returned status %s and a %d-byte result, want succeeded and %d bytes", done.Status, len(done.Result), len(result))
	}
	if _, ok := rawItem(t, names.Jobs, j.ID)[attrResult].(*types.AttributeValueMemberB); !ok {
		t.Fatalf("a %d-byte result is stored as %T, want compressed bytes", len(result), rawItem(t, names.Jobs, j.ID)[attrResult])
	}
	got, err := s.GetJob(t.Context(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Result, result) {
		t.Fatalf("GetJob result differs: %d bytes, want %d", len(got.Result), len(result))
	}
	var parsed callscribe.TranscriptionResult
	if err := json.Unmarshal(result, &parsed); err != nil {
		t.Fatal(err)
	}
	last := parsed.Transcript[len(parsed.Transcript)-1]
	phrase := last.Words[len(last.Words)-2].Text + " " + last.Words[len(last.Words)-1].Text
	q, err := callscribe.ParseSearchQuery(`"`+phrase+`"`, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.ListJobs(t.Context(), callscribe.ListRequest{AccountID: "acc-long", Filter: callscribe.JobFilter{Search: q}, Limit: 10})
	if err != nil || len(p.Jobs) != 1 || p.Jobs[0].ID != j.ID {
		t.Fatalf("search for the result's last words %q = %+v, %v; want the job", phrase, p, err)
	}
}

// TestPlainStringResultStillReads reads an item written before compression:
// a large result stored as a plain string.
func TestPlainStringResultStillReads(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	j := job("acc-old", t0)
	j.Status = callscribe.StatusSucceeded
	result := storetest.LongResult(t, 15, 3)
	item, err := jobItem(j)
	if err != nil {
		t.Fatal(err)
	}
	item[attrResult] = str(string(result))
	if _, err := client.PutItem(t.Context(), &ddb.PutItemInput{TableName: aws.String(names.Jobs), Item: item}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetJob(t.Context(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Result, result) {
		t.Fatalf("plain-string result reads back as %d bytes, want %d", len(got.Result), len(result))
	}
}

// TestDerivedJobLargeInputRoundTrips stores a summary made from a long
// call's segments: its input is compressed like a result and reads back
// whole, and its result can still be stored (the transition reads the input).
func TestDerivedJobLargeInputRoundTrips(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	var call callscribe.TranscriptionResult
	if err := json.Unmarshal(storetest.LongResult(t, 60, 5), &call); err != nil {
		t.Fatal(err)
	}
	j := job("acc-derived", t0)
	j.Type = callscribe.TypeSummary
	j.Input = &callscribe.Transcript{Segments: call.Transcript}
	startedJob(t, s, j, nil)
	if _, ok := rawItem(t, names.Jobs, j.ID)[attrInput].(*types.AttributeValueMemberB); !ok {
		t.Fatalf("an hour's input is stored as %T, want compressed bytes", rawItem(t, names.Jobs, j.ID)[attrInput])
	}
	succeed := callscribe.TransitionSucceed.For(j.ID, t0.Add(time.Minute))
	succeed.Result = json.RawMessage(`{"summary":"a long call"}`)
	if _, err := s.TransitionJob(t.Context(), succeed); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetJob(t.Context(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(j.Input)
	have, _ := json.Marshal(got.Input)
	if !bytes.Equal(have, want) || string(got.Result) != `{"summary":"a long call"}` {
		t.Fatalf("input reads back as %d bytes (want %d), result %s", len(have), len(want), got.Result)
	}
}

// TestResultTooLargeFailsJob: a two-hour result does not fit even
// compressed; the succeed transition fails the job once with
// result_too_large, releases its quota, and writes nothing of the result
// (neither the attribute nor its search terms).
func TestResultTooLargeFailsJob(t *testing.T) {
	names := newTables(t)
	s := NewJobStore(client, names, retention)
	j := job("acc-big", t0)
	j.AudioSeconds = 7200
	startedJob(t, s, j, &callscribe.QuotaReservation{Month: "2025-03", LimitSeconds: 10000})
	succeed := callscribe.TransitionSucceed.For(j.ID, t0.Add(time.Minute))
	succeed.Result = storetest.LongResult(t, 120, 7)
	done, err := s.TransitionJob(t.Context(), succeed)
	if err != nil {
		t.Fatalf("succeed with a two-hour result: %v", err)
	}
	if done.Status != callscribe.StatusFailed || done.Error == nil || done.Error.Code != callscribe.JobErrResultTooLarge || len(done.Result) != 0 {
		t.Fatalf("succeed with a two-hour result returned %+v, want failed with %s", done, callscribe.JobErrResultTooLarge)
	}
	if !strings.Contains(done.Error.Message, "minutes") {
		t.Errorf("error message %q does not say how long a call fits", done.Error.Message)
	}
	got, err := s.GetJob(t.Context(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != callscribe.StatusFailed || got.Error == nil || got.Error.Code != callscribe.JobErrResultTooLarge {
		t.Fatalf("stored job = status %s, error %+v", got.Status, got.Error)
	}
	if _, ok := rawItem(t, names.Jobs, j.ID)[attrResult]; ok {
		t.Fatal("the failed job's item holds a result")
	}
	if used, err := s.UsedSeconds(t.Context(), "acc-big", "2025-03"); err != nil || used != 0 {
		t.Fatalf("used after the failure = %v, %v; want 0", used, err)
	}
	terms, err := client.Scan(t.Context(), &ddb.ScanInput{TableName: aws.String(names.Search), Select: types.SelectCount})
	if err != nil {
		t.Fatal(err)
	}
	if terms.Count != 0 {
		t.Fatalf("%d search terms written for a result that was not stored", terms.Count)
	}
	if _, err := s.TransitionJob(t.Context(), succeed); !callscribe.IsCode(err, callscribe.CodeConflict) {
		t.Fatalf("a redelivered succeed = %v, want CONFLICT", err)
	}
}
