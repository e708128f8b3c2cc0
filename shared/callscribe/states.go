package callscribe

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// The job state machine: every status change a job makes is one of the named
// transitions below, and the table (stateTable) says from which statuses each
// may start and which status it reaches. The jobs service builds every status
// write from it (TransitionName.For); the stores apply those writes as
// compare-and-set operations (Job.Apply, or its DynamoDB condition expression)
// whose allowed statuses come from the table through Transition.From, and ask
// the table which statuses are unfinished (UnfinishedStatuses).
//
//	                        start, resume
//	                         +--------+
//	                         v        |
//	queued --start, resume--> processing --succeed--> succeeded
//	  |                          |
//	  |                          +--fail, fail_submission--> failed
//	  |                                                        ^
//	  +---------------------fail_submission--------------------+
//
//	start            a worker starts an attempt (counts one more attempt).
//	                 From processing too: a crashed worker leaves its job
//	                 there and the queue delivers the message again.
//	resume           a worker re-checks an asynchronous provider's running
//	                 work (callscribe.Pending): the same attempt goes on.
//	succeed          the engine produced a result.
//	fail             the engine failed the job (a *JobError), or the job
//	                 ran out of attempts or re-checks (see retrypolicy.go).
//	fail_submission  the queue refused the job's first message; the job is
//	                 failed at once so it does not sit queued forever.
//
// Deleting a job is not a status change: it hides the job whatever its status,
// and a deleted job takes no transition at all (Job.Apply refuses with
// CONFLICT), so a worker racing a delete can never bring the job back.
// succeeded and failed are terminal: no transition leaves them.

// TransitionName names one transition of the job state machine.
type TransitionName string

const (
	TransitionStart          TransitionName = "start"
	TransitionResume         TransitionName = "resume"
	TransitionSucceed        TransitionName = "succeed"
	TransitionFail           TransitionName = "fail"
	TransitionFailSubmission TransitionName = "fail_submission"
)

// stateTable is the allowed-transition table: from-status x transition ->
// to-status. A pair that is not in the table is refused.
var stateTable = map[JobStatus]map[TransitionName]JobStatus{
	StatusQueued: {
		TransitionStart:          StatusProcessing,
		TransitionResume:         StatusProcessing,
		TransitionFailSubmission: StatusFailed,
	},
	StatusProcessing: {
		TransitionStart:          StatusProcessing,
		TransitionResume:         StatusProcessing,
		TransitionSucceed:        StatusSucceeded,
		TransitionFail:           StatusFailed,
		TransitionFailSubmission: StatusFailed,
	},
	StatusSucceeded: {},
	StatusFailed:    {},
}

// jobStatuses is every status in lifecycle order, the order in which lists of
// statuses derived from the table are given (stable SQL text and conditions).
var jobStatuses = []JobStatus{StatusQueued, StatusProcessing, StatusSucceeded, StatusFailed}

// transitionNames is every transition, in the order of the diagram.
var transitionNames = []TransitionName{TransitionStart, TransitionResume, TransitionSucceed, TransitionFail, TransitionFailSubmission}

// Transition is the store write of a status change, a compare-and-set: it
// applies only when the job exists, is not deleted and its status is one of
// From. The service builds it from the state machine (TransitionName.For), so
// From and To come from the table; a store applies whatever it is given.
type Transition struct {
	JobID string
	// Name is the state machine's transition this write performs; "" for a
	// write built by hand (tests of the compare-and-set itself).
	Name   TransitionName
	From   []JobStatus
	To     JobStatus
	Result json.RawMessage // set with To == succeeded
	Error  *JobError       // set with To == failed
	// Language is the detected language of a succeeded transcription; the store
	// records it when the job has none, so listings and the language filter see
	// the requested or detected language as the spec says.
	Language string
	// Audio, set with To == succeeded, is where the job's recording is now
	// when the attempt stored it elsewhere (PII redaction's WAV rendition of
	// an MP3); the job takes its key and format. nil leaves them.
	Audio *StoredAudio
	// CountAttempt increments Attempts (a worker starting the job).
	CountAttempt bool
	At           time.Time
}

// NextStatus checks transition name from status from and returns the status it
// leads to. A transition the table does not allow from that status is refused
// with CONFLICT, the code a store's compare-and-set gives for the same case.
func NextStatus(from JobStatus, name TransitionName) (JobStatus, error) {
	if !slices.Contains(transitionNames, name) {
		return "", fmt.Errorf("unknown job transition %q", name)
	}
	to, ok := stateTable[from][name]
	if !ok {
		return "", Errorf(CodeConflict, "A %s job cannot take the %s transition (allowed from %v).", from, name, name.From())
	}
	return to, nil
}

// From returns the statuses the table lets the transition leave, in lifecycle
// order: the compare-and-set's allowed statuses.
func (n TransitionName) From() []JobStatus {
	var from []JobStatus
	for _, s := range jobStatuses {
		if _, ok := stateTable[s][n]; ok {
			from = append(from, s)
		}
	}
	return from
}

// To returns the status the transition reaches (the same from every status it
// may leave; TestStateTable holds the table to that); "" for an unknown name.
func (n TransitionName) To() JobStatus {
	for _, s := range jobStatuses {
		if to, ok := stateTable[s][n]; ok {
			return to
		}
	}
	return ""
}

// CountsAttempt reports whether the transition starts a new attempt of the
// job (Job.Attempts, bounded by MaxJobAttempts): only start does; a resume
// continues the attempt that is waiting on a provider.
func (n TransitionName) CountsAttempt() bool { return n == TransitionStart }

// For returns the store write of the transition on job jobID at time at: a
// compare-and-set from the table's statuses to its target. The caller adds
// what the transition carries (Result, Language and Audio with succeed, Error with
// fail and fail_submission).
func (n TransitionName) For(jobID string, at time.Time) Transition {
	return Transition{JobID: jobID, Name: n, From: n.From(), To: n.To(), CountAttempt: n.CountsAttempt(), At: at}
}

// Terminal reports whether polling stops at this status: no transition leaves it.
func (s JobStatus) Terminal() bool { return len(stateTable[s]) == 0 }

// UnfinishedStatuses returns the statuses some transition still leaves, in
// lifecycle order: the jobs a restarted process must make sure have a queue
// message (JobStore.UnfinishedJobIDs).
func UnfinishedStatuses() []JobStatus {
	var out []JobStatus
	for _, s := range jobStatuses {
		if !s.Terminal() {
			out = append(out, s)
		}
	}
	return out
}

// HoldsQuota reports whether the job's seconds are counted in its quota
// month: it reserved some when it was created (derived jobs never do), and it
// has not failed (failed jobs do not count toward quota).
func (j *Job) HoldsQuota() bool {
	return j.QuotaMonth != "" && j.AudioSeconds > 0 && j.Status != StatusFailed
}

// MayReleaseQuota reports whether applying t can release the job's quota: it
// moves the job to failed, the one status that holds none. Stores use it to
// choose the write that also updates the month's usage.
func (t Transition) MayReleaseQuota() bool { return t.To == StatusFailed }

// Apply is the effect of a compare-and-set transition on a stored job, which
// deleted says is soft-deleted (Job has no field for it: the API never shows a
// deleted job). It fails with CONFLICT, changing nothing, when the job is
// deleted or its status is not one of t.From. Otherwise the job takes t's
// status and time, its result and error when given, one more attempt when
// counted, the detected language only when it has none (a requested
// language stays), and the audio's new key and format when given.
// releaseQuota reports that the job's seconds must be released in the same
// atomic step: it held quota and is moving to failed.
func (j *Job) Apply(t Transition, deleted bool) (releaseQuota bool, err error) {
	if deleted {
		return false, Errorf(CodeConflict, "Job %s is deleted.", j.ID)
	}
	if !slices.Contains(t.From, j.Status) {
		if t.Name != "" {
			return false, Errorf(CodeConflict, "Job %s is %s; the %s transition applies only from %v.", j.ID, j.Status, t.Name, t.From)
		}
		return false, Errorf(CodeConflict, "Job %s is %s, not one of %v.", j.ID, j.Status, t.From)
	}
	releaseQuota = t.MayReleaseQuota() && j.HoldsQuota()
	j.Status = t.To
	j.UpdatedAt = t.At
	if len(t.Result) > 0 {
		j.Result = t.Result
	}
	if t.Error != nil {
		j.Error = t.Error
	}
	if t.CountAttempt {
		j.Attempts++
	}
	if j.Language == "" {
		j.Language = t.Language
	}
	if t.Audio != nil {
		j.AudioKey, j.AudioFormat = t.Audio.Key, t.Audio.Format
	}
	return releaseQuota, nil
}
