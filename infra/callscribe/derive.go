package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/callscribe/callscribe/shared/client"
)

// SourceFlags name the transcript a derived job is made from.
type SourceFlags struct {
	Job  string `help:"A succeeded transcription job to use." placeholder:"ID" xor:"source"`
	Text string `help:"A file of plain transcript text, or - for stdin." placeholder:"FILE" xor:"source"`
	// RedactPII is sent only when given, so the deployment's default holds otherwise.
	RedactPII bool `name:"redact-pii" help:"Redact card numbers, phone numbers, e-mail addresses and long digit runs from the job's copy of the transcript before it is stored."`
}

// redactPII is the request's redact_pii: set only when the flag was given.
func (s SourceFlags) redactPII() *bool {
	if !s.RedactPII {
		return nil
	}
	on := true
	return &on
}

func (s SourceFlags) resolve(e *env) (jobID, text string, err error) {
	switch {
	case s.Job != "" && s.Text != "":
		return "", "", usagef("give either --job or --text, not both")
	case s.Job != "":
		return s.Job, "", nil
	case s.Text == "":
		return "", "", usagef("give --job ID or --text FILE (- for stdin)")
	}
	var b []byte
	if s.Text == "-" {
		b, err = io.ReadAll(e.stdin)
	} else {
		b, err = os.ReadFile(s.Text)
	}
	if err != nil {
		return "", "", fmt.Errorf("reading the transcript: %w", err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", "", usagef("the transcript text is empty")
	}
	return "", string(b), nil
}

// SummarizeCmd creates a summary job.
type SummarizeCmd struct {
	SourceFlags
	Wait bool `help:"Wait for the summary and print it."`
	PollFlags
}

func (SummarizeCmd) Help() string {
	return `Without --wait prints the new job's id and status (tab-separated); with --wait
prints the summary.

Examples:

    callscribe summarize --job 7c0e8a4e-... --wait
    callscribe summarize --text call.txt
    callscribe jobs get 7c0e8a4e-... | callscribe summarize --text - --wait`
}

func (c *SummarizeCmd) Run(e *env) error {
	jobID, text, err := c.SourceFlags.resolve(e)
	if err != nil {
		return err
	}
	cl, err := e.apiClient()
	if err != nil {
		return err
	}
	created, err := cl.Summarize(e.ctx, client.SummarizeRequest{TranscriptionJobID: jobID, TranscriptText: text, RedactPII: c.redactPII()})
	if err != nil {
		return err
	}
	return finishDerived(e, cl, created, c.Wait, c.PollFlags)
}

// TagCmd creates a tags job.
type TagCmd struct {
	SourceFlags
	CallbackURL    string `name:"callback-url" help:"Send the result to this URL (POST, tagDelivered)." placeholder:"URL"`
	CallbackAPIKey string `name:"callback-api-key" help:"apikey header for the callback." placeholder:"KEY"`
	CallUUID       string `name:"call-uuid" help:"Call identifier echoed in the callback." placeholder:"UUID"`
	Wait           bool   `help:"Wait for the tags and print them."`
	PollFlags
}

func (TagCmd) Help() string {
	return `Without --wait prints the new job's id and status (tab-separated); with --wait
prints one line per category.

Examples:

    callscribe tag --job 7c0e8a4e-... --wait
    callscribe tag --text call.txt --callback-url https://hooks.example.com/tags --call-uuid 1b4e28ba-...
    cat call.txt | callscribe tag --text - --wait`
}

func (c *TagCmd) Run(e *env) error {
	jobID, text, err := c.SourceFlags.resolve(e)
	if err != nil {
		return err
	}
	cl, err := e.apiClient()
	if err != nil {
		return err
	}
	created, err := cl.Tag(e.ctx, client.TagRequest{
		TranscriptionJobID: jobID, TranscriptText: text,
		CallbackURL: c.CallbackURL, CallbackAPIKey: c.CallbackAPIKey, CallUUID: c.CallUUID,
		RedactPII: c.redactPII(),
	})
	if err != nil {
		return err
	}
	return finishDerived(e, cl, created, c.Wait, c.PollFlags)
}

func finishDerived(e *env, cl *client.Client, created *client.CreatedJob, wait bool, poll PollFlags) error {
	if !wait {
		if e.globals.JSON {
			return writeJSONLine(e.stdout, created)
		}
		_, err := fmt.Fprintf(e.stdout, "%s\t%s\n", created.ID, created.Status)
		return err
	}
	job, err := waitJob(e, cl, created.ID, poll)
	if err != nil {
		return err
	}
	if e.globals.JSON {
		return writeJSONLine(e.stdout, job)
	}
	return writeJobText(e.stdout, job)
}
