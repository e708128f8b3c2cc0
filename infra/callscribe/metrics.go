package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/alecthomas/kong"

	"github.com/callscribe/callscribe/shared/client"
)

// JobsMetricsCmd prints a transcription's call metrics.
type JobsMetricsCmd struct {
	ID     string `arg:"" name:"job-id" help:"A succeeded transcription job's id."`
	Format string `short:"f" help:"Output: text (a table) or json (the result's metrics object as the API returns it)." enum:"text,json" default:"text"`
}

func (JobsMetricsCmd) Help() string {
	return `The table has one row per speaker (talk time, share of all talk, words per
minute, turns, longest monologue, interruptions it made), then the call's
figures: time nobody talked, the longest silence, overtalk (total and how many
stretches), and the Agent's median response after the User stops. The README
defines each figure. A job that is not a transcription, or has not succeeded,
is an error (exit 4 while it still runs: 'callscribe wait ID' first).

Examples:

    callscribe jobs metrics 7c0e8a4e-...
    callscribe jobs metrics 7c0e8a4e-... --format json | jq .overtalk_seconds`
}

func (c *JobsMetricsCmd) Run(e *env) error {
	cl, err := e.apiClient()
	if err != nil {
		return err
	}
	job, err := cl.GetJob(e.ctx, c.ID)
	if err != nil {
		return err
	}
	m, err := jobMetrics(job)
	if err != nil {
		return err
	}
	if c.Format == "json" || e.globals.JSON {
		return writeJSONIndent(e.stdout, m)
	}
	return writeMetricsTable(e.stdout, m)
}

// jobMetrics is a job's metrics, or why it has none: not a transcription
// (the error names the transcription a summary or tags job came from), not
// succeeded (still running: exit 4 as for a wait; failed: the job's error),
// or a result stored before metrics existed.
func jobMetrics(job *client.Job) (*client.CallMetrics, error) {
	if job.Type != "" && job.Type != client.TypeTranscription {
		msg := fmt.Sprintf("job %s is a %s job; metrics belong to transcriptions", job.ID, job.Type)
		if job.SourceJobID != "" {
			msg += fmt.Sprintf(": 'callscribe jobs metrics %s' shows its transcription's", job.SourceJobID)
		}
		return nil, fmt.Errorf("%s", msg)
	}
	switch job.Status {
	case client.StatusSucceeded:
	case client.StatusFailed:
		e := &client.Error{Code: "job_failed", Message: "The job failed.", RequestID: job.RequestID}
		if job.Error != nil {
			e.Code, e.Message = job.Error.Code, job.Error.Message
		}
		return nil, &client.JobFailedError{Job: job, Err: e}
	default:
		return nil, &stillRunningError{id: job.ID, status: job.Status, why: "and has no metrics yet"}
	}
	r, err := job.Transcription()
	if err != nil {
		return nil, err
	}
	if r.Metrics == nil {
		return nil, fmt.Errorf("job %s has no metrics: it was transcribed before the service computed them", job.ID)
	}
	return r.Metrics, nil
}

// writeMetricsTable writes the speakers' rows and then the call's.
func writeMetricsTable(w io.Writer, m *client.CallMetrics) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(m.Speakers) == 0 {
		fmt.Fprintln(tw, "(no speech)")
	} else {
		fmt.Fprintln(tw, "SPEAKER\tTALK\tSHARE\tWORDS/MIN\tTURNS\tLONGEST MONOLOGUE\tINTERRUPTIONS")
		for _, s := range m.Speakers {
			fmt.Fprintf(tw, "%s\t%s\t%.1f%%\t%.1f\t%d\t%s\t%d\n", orDefault(s.SpeakerAlias, "Speaker "+strconv.Itoa(s.SpeakerID)),
				metricSeconds(s.TalkSeconds), s.TalkShare*100, s.WordsPerMinute, s.Turns, metricSeconds(s.LongestMonologueSeconds), s.Interruptions)
		}
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "Non-talk time:\t%s\n", metricSeconds(m.NonTalkSeconds))
	fmt.Fprintf(tw, "Longest silence:\t%s\n", metricSeconds(m.LongestSilenceSeconds))
	fmt.Fprintf(tw, "Overtalk:\t%s in %d %s\n", metricSeconds(m.OvertalkSeconds), m.OvertalkCount, plural(m.OvertalkCount, "stretch", "stretches"))
	response := "- (no User turn the Agent answered)"
	if m.AgentMedianResponseSeconds != nil {
		response = metricSeconds(*m.AgentMedianResponseSeconds)
	}
	fmt.Fprintf(tw, "Agent median response:\t%s\n", response)
	return tw.Flush()
}

// metricSeconds is a metrics time figure to the hundredth: "12.34s".
func metricSeconds(s float64) string { return fmt.Sprintf("%.2fs", s) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// defaultLowConfidence is the threshold of --mark-low-confidence without a
// value.
const defaultLowConfidence = 0.5

// lowConfidenceFlag is --mark-low-confidence[=T]: absent, nothing is marked
// (threshold 0); bare, the threshold is defaultLowConfidence; =T, it is T.
type lowConfidenceFlag struct{ threshold float64 }

// Decode takes a value only when attached with '=', so the bare flag can
// stand before the job id.
func (f *lowConfidenceFlag) Decode(ctx *kong.DecodeContext) error {
	f.threshold = defaultLowConfidence
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		return nil
	}
	tok := ctx.Scan.Pop()
	v, err := strconv.ParseFloat(fmt.Sprint(tok.Value), 64)
	if err != nil || v <= 0 || v > 1 {
		return fmt.Errorf("--mark-low-confidence=%v: want a confidence above 0 and at most 1, e.g. 0.5", tok.Value)
	}
	f.threshold = v
	return nil
}

// IsBool lets the flag stand without a value.
func (lowConfidenceFlag) IsBool() bool { return true }

// markedText is a segment's text with each word whose confidence is below
// threshold written [word?]; words without a confidence are left as they
// are. A segment without word timings keeps its text.
func markedText(s client.Segment, threshold float64) string {
	if threshold <= 0 || len(s.Words) == 0 {
		return s.Text
	}
	words := make([]string, len(s.Words))
	for i, w := range s.Words {
		words[i] = w.Text
		if w.Confidence != nil && *w.Confidence < threshold {
			words[i] = "[" + w.Text + "?]"
		}
	}
	return strings.Join(words, " ")
}
