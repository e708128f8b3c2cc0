package callscribe

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestJobHoldsQuota(t *testing.T) {
	cases := []struct {
		name string
		job  Job
		want bool
	}{
		{"reserved transcription", Job{QuotaMonth: "2026-11", AudioSeconds: 30, Status: StatusQueued}, true},
		{"succeeded still counts", Job{QuotaMonth: "2026-11", AudioSeconds: 30, Status: StatusSucceeded}, true},
		{"failed counts no more", Job{QuotaMonth: "2026-11", AudioSeconds: 30, Status: StatusFailed}, false},
		{"derived job reserves nothing", Job{Type: TypeTags, Status: StatusQueued}, false},
		{"no month", Job{AudioSeconds: 30, Status: StatusProcessing}, false},
		{"zero seconds", Job{QuotaMonth: "2026-11", Status: StatusProcessing}, false},
	}
	for _, c := range cases {
		if got := c.job.HoldsQuota(); got != c.want {
			t.Errorf("%s: HoldsQuota = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestJobApply(t *testing.T) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	earlier := at.Add(-time.Hour)
	stored := json.RawMessage(`{"transcript":[]}`)
	result := json.RawMessage(`{"language":"en"}`)
	jerr := &JobError{Code: JobErrBadAudio, Message: "x"}
	// processing is a reserved transcription in its first attempt.
	processing := Job{ID: "j", Status: StatusProcessing, QuotaMonth: "2026-11", AudioSeconds: 12, Attempts: 1, UpdatedAt: earlier}
	with := func(j Job, change func(*Job)) Job { change(&j); return j }
	from := func(s ...JobStatus) []JobStatus { return s }

	cases := []struct {
		name        string
		job         Job
		deleted     bool
		t           Transition
		want        Job // the job afterwards; unchanged when wantCode is set
		wantRelease bool
		wantCode    string
	}{
		{
			name: "status not in From conflicts",
			job:  processing, t: Transition{From: from(StatusQueued), To: StatusProcessing, CountAttempt: true, At: at},
			want: processing, wantCode: CodeConflict,
		},
		{
			name: "empty From matches nothing",
			job:  processing, t: Transition{To: StatusFailed, Error: jerr, At: at},
			want: processing, wantCode: CodeConflict,
		},
		{
			name: "a deleted job takes no transition, even from an allowed status",
			job:  processing, deleted: true, t: Transition{From: from(StatusProcessing), To: StatusFailed, Error: jerr, At: at},
			want: processing, wantCode: CodeConflict,
		},
		{
			name: "claim counts an attempt",
			job:  processing, t: Transition{From: from(StatusQueued, StatusProcessing), To: StatusProcessing, CountAttempt: true, At: at},
			want: with(processing, func(j *Job) { j.Attempts = 2; j.UpdatedAt = at }),
		},
		{
			name: "succeed records result and detected language",
			job:  processing, t: Transition{From: from(StatusProcessing), To: StatusSucceeded, Result: result, Language: "en", At: at},
			want: with(processing, func(j *Job) { j.Status = StatusSucceeded; j.Result = result; j.Language = "en"; j.UpdatedAt = at }),
		},
		{
			name: "a requested language stays",
			job:  with(processing, func(j *Job) { j.Language = "en-GB" }),
			t:    Transition{From: from(StatusProcessing), To: StatusSucceeded, Result: result, Language: "en", At: at},
			want: with(processing, func(j *Job) { j.Status = StatusSucceeded; j.Result = result; j.Language = "en-GB"; j.UpdatedAt = at }),
		},
		{
			name: "no result or error keeps the stored ones",
			job:  with(processing, func(j *Job) { j.Result = stored; j.Error = jerr }),
			t:    Transition{From: from(StatusProcessing), To: StatusQueued, At: at},
			want: with(processing, func(j *Job) { j.Status = StatusQueued; j.Result = stored; j.Error = jerr; j.UpdatedAt = at }),
		},
		{
			name: "failing a job that holds quota releases it",
			job:  processing, t: Transition{From: from(StatusProcessing), To: StatusFailed, Error: jerr, At: at},
			want:        with(processing, func(j *Job) { j.Status = StatusFailed; j.Error = jerr; j.UpdatedAt = at }),
			wantRelease: true,
		},
		{
			name: "failing again releases nothing: the seconds went back once",
			job:  with(processing, func(j *Job) { j.Status = StatusFailed; j.Error = jerr }),
			t:    Transition{From: from(StatusFailed), To: StatusFailed, Error: jerr, At: at},
			want: with(processing, func(j *Job) { j.Status = StatusFailed; j.Error = jerr; j.UpdatedAt = at }),
		},
		{
			name: "a derived job never held quota",
			job:  Job{ID: "d", Type: TypeSummary, Status: StatusProcessing},
			t:    Transition{From: from(StatusProcessing), To: StatusFailed, Error: jerr, At: at},
			want: Job{ID: "d", Type: TypeSummary, Status: StatusFailed, Error: jerr, UpdatedAt: at},
		},
	}
	for _, c := range cases {
		j := c.job
		release, err := j.Apply(c.t, c.deleted)
		switch {
		case c.wantCode != "" && !IsCode(err, c.wantCode):
			t.Errorf("%s: error %v, want %s", c.name, err, c.wantCode)
		case c.wantCode == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		}
		if release != c.wantRelease {
			t.Errorf("%s: releaseQuota = %v, want %v", c.name, release, c.wantRelease)
		}
		if !reflect.DeepEqual(j, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, j, c.want)
		}
	}
}

// TestStateTable spells out every (status, transition) pair: the allowed ones
// with the status they lead to, every other one refused with CONFLICT.
func TestStateTable(t *testing.T) {
	const refused = JobStatus("")
	cases := []struct {
		from JobStatus
		name TransitionName
		want JobStatus
	}{
		{StatusQueued, TransitionStart, StatusProcessing},
		{StatusQueued, TransitionResume, StatusProcessing},
		{StatusQueued, TransitionSucceed, refused},
		{StatusQueued, TransitionFail, refused},
		{StatusQueued, TransitionFailSubmission, StatusFailed},

		{StatusProcessing, TransitionStart, StatusProcessing},
		{StatusProcessing, TransitionResume, StatusProcessing},
		{StatusProcessing, TransitionSucceed, StatusSucceeded},
		{StatusProcessing, TransitionFail, StatusFailed},
		{StatusProcessing, TransitionFailSubmission, StatusFailed},

		{StatusSucceeded, TransitionStart, refused},
		{StatusSucceeded, TransitionResume, refused},
		{StatusSucceeded, TransitionSucceed, refused},
		{StatusSucceeded, TransitionFail, refused},
		{StatusSucceeded, TransitionFailSubmission, refused},

		{StatusFailed, TransitionStart, refused},
		{StatusFailed, TransitionResume, refused},
		{StatusFailed, TransitionSucceed, refused},
		{StatusFailed, TransitionFail, refused},
		{StatusFailed, TransitionFailSubmission, refused},
	}
	if len(cases) != len(jobStatuses)*len(transitionNames) {
		t.Fatalf("%d cases, want one per status and transition (%d)", len(cases), len(jobStatuses)*len(transitionNames))
	}
	for _, c := range cases {
		got, err := NextStatus(c.from, c.name)
		switch {
		case c.want == refused && !IsCode(err, CodeConflict):
			t.Errorf("%s from %s: (%q, %v), want CONFLICT", c.name, c.from, got, err)
		case c.want != refused && (err != nil || got != c.want):
			t.Errorf("%s from %s: (%q, %v), want %s", c.name, c.from, got, err, c.want)
		}
	}
	if _, err := NextStatus(StatusQueued, "retry"); err == nil || IsCode(err, CodeConflict) {
		t.Errorf("an unknown transition: %v, want an internal error", err)
	}
}

// TestTransitionFor checks the store writes the service builds: their
// compare-and-set statuses and targets are the table's.
func TestTransitionFor(t *testing.T) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	inProgress := []JobStatus{StatusQueued, StatusProcessing}
	cases := []struct {
		name         TransitionName
		from         []JobStatus
		to           JobStatus
		countAttempt bool
	}{
		{TransitionStart, inProgress, StatusProcessing, true},
		{TransitionResume, inProgress, StatusProcessing, false},
		{TransitionSucceed, []JobStatus{StatusProcessing}, StatusSucceeded, false},
		{TransitionFail, []JobStatus{StatusProcessing}, StatusFailed, false},
		{TransitionFailSubmission, inProgress, StatusFailed, false},
	}
	for _, c := range cases {
		want := Transition{JobID: "j", Name: c.name, From: c.from, To: c.to, CountAttempt: c.countAttempt, At: at}
		if got := c.name.For("j", at); !reflect.DeepEqual(got, want) {
			t.Errorf("%s.For:\n got %+v\nwant %+v", c.name, got, want)
		}
		// Every status the write accepts leads, by the table, to its target.
		for _, from := range c.from {
			if to, err := NextStatus(from, c.name); err != nil || to != c.to {
				t.Errorf("%s from %s: (%q, %v), want %s", c.name, from, to, err, c.to)
			}
		}
	}
}

func TestTerminalAndUnfinishedStatuses(t *testing.T) {
	for s, want := range map[JobStatus]bool{StatusQueued: false, StatusProcessing: false, StatusSucceeded: true, StatusFailed: true} {
		if s.Terminal() != want {
			t.Errorf("%s.Terminal() = %v, want %v", s, s.Terminal(), want)
		}
	}
	if got := UnfinishedStatuses(); !slices.Equal(got, []JobStatus{StatusQueued, StatusProcessing}) {
		t.Errorf("UnfinishedStatuses() = %v, want [queued processing]", got)
	}
}

func TestApplyNamesTheRefusedTransition(t *testing.T) {
	j := Job{ID: "j", Status: StatusSucceeded}
	_, err := j.Apply(TransitionFail.For("j", time.Now()), false)
	if !IsCode(err, CodeConflict) || ErrorMessage(err) != "Job j is succeeded; the fail transition applies only from [processing]." {
		t.Errorf("refused fail of a succeeded job: %v", err)
	}
}
