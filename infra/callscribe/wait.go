package main

import (
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/callscribe/callscribe/shared/client"
)

// PollFlags tune waiting for a job (the spec's defaults: every 2 s, 60 times).
type PollFlags struct {
	PollInterval time.Duration `name:"poll-interval" help:"Pause between two polls of a job." default:"2s"`
	MaxAttempts  int           `name:"max-attempts" help:"Polls before giving up on a job." default:"60"`
}

func (p PollFlags) options(onPoll func(*client.Job)) client.WaitOptions {
	return client.WaitOptions{Interval: p.PollInterval, MaxAttempts: p.MaxAttempts, OnPoll: onPoll}
}

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

// waitJob polls a job until it ends. On a TTY a spinner with the job's status
// stays on one line while it polls.
func waitJob(e *env, cl *client.Client, id string, poll PollFlags) (*client.Job, error) {
	if !e.fancy() {
		return cl.WaitForJob(e.ctx, id, poll.options(nil))
	}
	var status atomic.Value
	status.Store("waiting")
	p := newProgress(e, 16)
	bar := p.AddSpinner(0,
		mpb.PrependDecorators(decor.Name("job "+id+" ")),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return " " + status.Load().(string) })),
		mpb.BarFillerClearOnComplete(),
	)
	job, err := cl.WaitForJob(e.ctx, id, poll.options(func(j *client.Job) { status.Store(statusText(j)) }))
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
	return `Polls the job until it succeeds or fails, then prints it as 'jobs get' does.
Exits with status 1 when the job failed or is still running after the last poll.

Examples:

    callscribe wait 7c0e8a4e-...
    callscribe wait 7c0e8a4e-... --poll-interval 5s --max-attempts 120`
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
	return writeJobText(e.stdout, job)
}
