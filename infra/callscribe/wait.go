package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/callscribe/callscribe/shared/client"
)

// PollFlags tune waiting for a job. Unlike the client library's WaitForJob
// (the spec's 60 polls 2 s apart), the CLI waits until the job ends: a long
// call takes minutes.
type PollFlags struct {
	PollInterval time.Duration `name:"poll-interval" help:"Pause between two polls of a job." default:"2s"`
	Timeout      time.Duration `name:"timeout" help:"Give up waiting after this long, e.g. 30m (default 0: no limit; Ctrl-C stops waiting too). The job keeps running; exit status 4." default:"0"`
	MaxAttempts  int           `name:"max-attempts" help:"Polls before giving up (default 0: no limit)." default:"0"`
	// ProgressEvery is how often plain (not terminal) output repeats a status
	// line while a job runs; hidden, tests shorten it.
	ProgressEvery time.Duration `name:"progress-every" hidden:"" default:"30s"`
}

// realTimeFactor turns an audio length into the estimate shown while a
// transcription runs: the embedded engine decodes each channel at about 0.15
// of real time (README, speech engine figures), and a call has two channels.
// Other engines and a busy queue differ, which is why it is shown as an
// estimate.
const realTimeFactor = 0.3

// statusText is what a status line shows of a job.
func statusText(job *client.Job) string {
	switch job.Status {
	case client.StatusFailed:
		if job.Error != nil {
			return "failed: " + orDefault(job.Error.Code, "error") + ": " + oneLine(job.Error.Message)
		}
		return "failed"
	default:
		return job.Status
	}
}

// progressText is the elapsed time of a wait and, when the audio length is
// known, the estimate: "1m05s elapsed, estimate 1m00s for 3m20s of audio".
func progressText(elapsed time.Duration, audioSeconds float64) string {
	s := formatDuration(elapsed) + " elapsed"
	if audioSeconds > 0 {
		s += ", estimate " + formatDuration(time.Duration(audioSeconds*realTimeFactor*float64(time.Second))) +
			" for " + formatSeconds(audioSeconds) + " of audio"
	}
	return s
}

// formatDuration is a wait's length to the tenth of a second: 4.2s, 3m04.2s.
func formatDuration(d time.Duration) string {
	return formatSeconds(max(d.Seconds(), 0.05))
}

// audioSeconds is the audio length the service measured for a transcription
// (0 when unknown): the job read carries none, its list entry does.
func audioSeconds(e *env, cl *client.Client, id string) float64 {
	page, err := cl.ListJobs(e.ctx, client.ListOptions{JobID: id, Limit: 1})
	if err != nil || len(page.Jobs) == 0 {
		return 0
	}
	return page.Jobs[0].AudioSeconds
}

// pollJob polls a job until it ends, --timeout passes, or --max-attempts
// polls were made (a *stillRunningError, exit 4, for the last two). onPoll
// sees every job read.
func pollJob(e *env, cl *client.Client, id string, poll PollFlags, onPoll func(*client.Job)) (*client.Job, error) {
	ctx := e.ctx
	if poll.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, poll.Timeout)
		defer cancel()
	}
	attempts := poll.MaxAttempts
	if attempts <= 0 {
		attempts = client.NoAttemptLimit
	}
	job, err := cl.WaitForJob(ctx, id, client.WaitOptions{Interval: poll.PollInterval, MaxAttempts: attempts, OnPoll: onPoll})
	status := client.StatusProcessing
	if job != nil {
		status = job.Status
	}
	switch {
	case err == nil:
	case e.ctx.Err() == nil && ctx.Err() != nil:
		return job, &stillRunningError{id: id, status: status, why: "after " + poll.Timeout.String() + " (--timeout)"}
	case errors.Is(err, client.ErrWaitExhausted):
		return job, &stillRunningError{id: id, status: status, why: fmt.Sprintf("after %d polls (--max-attempts)", poll.MaxAttempts)}
	}
	return job, err
}

// waitJob polls a job until it ends. On a terminal a spinner with the job's
// status and the time so far stays on one line of stderr while it polls.
func waitJob(e *env, cl *client.Client, id string, poll PollFlags) (*client.Job, error) {
	if !e.fancy() {
		return pollJob(e, cl, id, poll, nil)
	}
	start := time.Now()
	var status atomic.Value
	status.Store("waiting")
	p := newProgress(e, 16)
	bar := p.AddSpinner(0,
		mpb.PrependDecorators(decor.Name("job "+id+" ")),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
			return " " + status.Load().(string) + " (" + formatDuration(time.Since(start)) + ")"
		})),
		mpb.BarFillerClearOnComplete(),
	)
	job, err := pollJob(e, cl, id, poll, func(j *client.Job) { status.Store(statusText(j)) })
	if job != nil {
		status.Store(statusText(job))
	}
	if err != nil && job == nil {
		status.Store("error")
	}
	bar.SetTotal(-1, true)
	p.Wait()
	return job, err
}

// WaitCmd waits for a job and prints its result.
type WaitCmd struct {
	ID string `arg:"" name:"job-id" help:"The job's id (a transcription, summary or tags job)."`
	PollFlags
}

func (WaitCmd) Help() string {
	return `Polls the job until it succeeds or fails, then prints it as 'jobs get' does (with
--json, the job as JSON). Waits as long as the job runs unless --timeout says
otherwise. Exit status 1 when the job failed, 4 when --timeout or --max-attempts
ended the wait first (the job keeps running).

Examples:

    callscribe wait 7c0e8a4e-...
    callscribe wait 7c0e8a4e-... --timeout 30m --poll-interval 5s`
}

func (c *WaitCmd) Run(e *env) error {
	cl, err := e.apiClient()
	if err != nil {
		return err
	}
	job, err := waitJob(e, cl, c.ID, c.PollFlags)
	if err != nil {
		return err
	}
	if e.globals.JSON {
		return writeJSONLine(e.stdout, job)
	}
	return writeJobText(e.stdout, job)
}
