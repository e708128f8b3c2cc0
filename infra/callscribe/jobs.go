package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/callscribe/callscribe/shared/client"
)

// JobsCmd groups the job commands.
type JobsCmd struct {
	List       JobsListCmd       `cmd:"" help:"List jobs of every type, newest first."`
	Get        JobsGetCmd        `cmd:"" help:"Show one job: a transcript, a summary or tags."`
	Metrics    JobsMetricsCmd    `cmd:"" help:"Show a transcription's call metrics: talk, turns, silence, overtalk, response time."`
	Delete     JobsDeleteCmd     `cmd:"" help:"Delete a job (its audio at once, its record after the retention period)."`
	Deliveries JobsDeliveriesCmd `cmd:"" help:"Show the callback delivery attempts of a tags job."`
}

// JobsListCmd lists jobs.
type JobsListCmd struct {
	Status       string    `help:"Only jobs with this status: queued, processing, succeeded or failed." placeholder:"STATUS"`
	Type         string    `help:"Only jobs of this type: transcription, summary or tags." placeholder:"TYPE"`
	Language     string    `help:"Only jobs with exactly this language." placeholder:"LANG"`
	CreatedAfter time.Time `name:"created-after" help:"Only jobs created after this RFC 3339 time, e.g. 2026-01-31T00:00:00Z." format:"2006-01-02T15:04:05Z07:00" placeholder:"TIME"`
	JobID        string    `name:"job-id" help:"Only the job with this id." placeholder:"ID"`
	Source       string    `help:"Only the summaries and tags made from this transcription." placeholder:"ID"`
	Q            string    `name:"q" help:"Only jobs whose transcript (or summary, or the text a summary or tags job was made from) holds every word; \"quote\" a phrase. Each hit shows where it matched." placeholder:"WORDS"`
	Speaker      string    `help:"With --q, search only one speaker's lines: Agent or User." placeholder:"SPEAKER"`
	Limit        int       `help:"Jobs per page (the service's default is 10, its maximum 100)." placeholder:"N"`
	Cursor       string    `help:"Start at this cursor (printed after a page that has more)." placeholder:"CURSOR"`
	All          bool      `help:"Follow the cursor through every page."`
}

func (JobsListCmd) Help() string {
	return `Examples:

    callscribe jobs list
    callscribe jobs list --status succeeded --type transcription --limit 50
    callscribe jobs list --all --json | jq -r .job_id
    callscribe jobs list --created-after 2026-01-31T00:00:00Z --all
    callscribe jobs list --source 3f0c…  # a call's summaries and tags
    callscribe jobs list --q 'refund "card number"' --speaker User`
}

// Validate checks the filters before any request (a usage error, exit 2).
func (c *JobsListCmd) Validate() error {
	if c.Status != "" && !slices.Contains([]string{client.StatusQueued, client.StatusProcessing, client.StatusSucceeded, client.StatusFailed}, c.Status) {
		return fmt.Errorf("--status must be queued, processing, succeeded or failed, not %q", c.Status)
	}
	if c.Type != "" && !slices.Contains([]string{client.TypeTranscription, client.TypeSummary, client.TypeTags}, c.Type) {
		return fmt.Errorf("--type must be transcription, summary or tags, not %q", c.Type)
	}
	if c.Limit < 0 {
		return fmt.Errorf("--limit must be positive")
	}
	if c.Speaker != "" && !strings.EqualFold(c.Speaker, "agent") && !strings.EqualFold(c.Speaker, "user") {
		return fmt.Errorf("--speaker must be Agent or User, not %q", c.Speaker)
	}
	if c.Speaker != "" && c.Q == "" {
		return fmt.Errorf("--speaker applies to a search: add --q")
	}
	return nil
}

func (c *JobsListCmd) Run(e *env) error {
	cl, err := e.apiClient()
	if err != nil {
		return err
	}
	opts := client.ListOptions{
		Limit: c.Limit, Cursor: c.Cursor, Status: c.Status, Type: c.Type,
		Language: c.Language, CreatedAfter: c.CreatedAfter, JobID: c.JobID, SourceJobID: c.Source,
		Query: c.Q, Speaker: c.Speaker,
	}
	var jobs []client.JobSummary
	next := ""
	if c.All {
		for j, err := range cl.AllJobs(e.ctx, opts) {
			if err != nil {
				return err
			}
			if e.globals.JSON {
				if err := writeJSONLine(e.stdout, j); err != nil {
					return err
				}
				continue
			}
			jobs = append(jobs, j)
		}
	} else {
		page, err := cl.ListJobs(e.ctx, opts)
		if err != nil {
			return err
		}
		jobs, next = page.Jobs, page.NextCursor
		if e.globals.JSON {
			for _, j := range jobs {
				if err := writeJSONLine(e.stdout, j); err != nil {
					return err
				}
			}
		}
	}
	if !e.globals.JSON {
		if err := writeJobTable(e.stdout, jobs); err != nil {
			return err
		}
	}
	if next != "" {
		fmt.Fprintf(e.stderr, "More jobs: add --cursor %s (same filters), or use --all.\n", next)
	}
	return nil
}

func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func writeJSONIndent(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeJobTable writes jobs as an aligned table; a search's hits get their
// matching lines under their row.
func writeJobTable(w io.Writer, jobs []client.JobSummary) error {
	if len(jobs) == 0 {
		_, err := fmt.Fprintln(w, "No jobs.")
		return err
	}
	// The table is aligned first, then the match lines go between its rows:
	// written inside it they would break tabwriter's columns.
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB ID\tTYPE\tSTATUS\tLANGUAGE\tAUDIO\tFILE\tCREATED")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			j.ID, orDash(j.Type), j.Status, orDash(deref(j.Language)), formatSeconds(j.AudioSeconds),
			orDash(deref(j.OriginalFilename)), formatWhen(j.CreatedAt))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	lines := strings.SplitAfter(table.String(), "\n")
	var out strings.Builder
	out.WriteString(lines[0])
	for i, j := range jobs {
		out.WriteString(lines[i+1])
		for _, m := range j.Matches {
			out.WriteString("    " + formatMatch(m) + "\n")
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// formatMatch is one line of a search hit: where (a time, a line of input
// text, or the summary), who, and the text.
func formatMatch(m client.SearchMatch) string {
	where := ""
	switch {
	case m.TimeStart != nil:
		where = fmt.Sprintf("at %s", formatOffset(*m.TimeStart))
	case m.Field == client.SearchMatchFieldInput:
		where = fmt.Sprintf("line %d", m.Segment+1)
	default:
		where = string(m.Field)
	}
	if m.SpeakerAlias != nil {
		where += " " + string(*m.SpeakerAlias)
	}
	return where + ": " + oneLine(m.Text)
}

// formatOffset is a time into a call: 7.5s, 3:04.
func formatOffset(s float64) string {
	if s < 60 {
		return fmt.Sprintf("%.1fs", s)
	}
	return fmt.Sprintf("%d:%02d", int(s)/60, int(s)%60)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// JobsGetCmd shows one job.
type JobsGetCmd struct {
	ID     string `arg:"" name:"job-id" help:"The job's id."`
	Format string `short:"f" help:"Output: text (readable), json (the job as the API returns it, words and metrics included), srt or vtt (subtitles of a transcription)." enum:"text,json,srt,vtt" default:"text"`
	// MarkLowConfidence is a flag with an optional value: see lowConfidenceFlag.
	MarkLowConfidence lowConfidenceFlag `name:"mark-low-confidence" help:"In the text format, write each word the engine is less sure of than T as [word?]; T is 0.5 unless given as --mark-low-confidence=T (0 < T <= 1). Words without a confidence are never marked."`
}

func (JobsGetCmd) Help() string {
	return `The text format prints a transcript one line per turn ("[00:01.5] Agent: ..."),
a summary as its topic and prose, tags as one line per category.
--mark-low-confidence marks the transcript's uncertain words: "[bill?]" is a
word recognised with a confidence below the threshold.

Examples:

    callscribe jobs get 7c0e8a4e-...
    callscribe jobs get 7c0e8a4e-... --mark-low-confidence=0.7
    callscribe jobs get 7c0e8a4e-... --format json | jq .result.duration_seconds
    callscribe jobs get 7c0e8a4e-... --format srt > call.srt`
}

// Validate refuses --mark-low-confidence outside the text format, where it
// would change nothing (a usage error, exit 2).
func (c *JobsGetCmd) Validate() error {
	if c.MarkLowConfidence.threshold > 0 && c.Format != "text" {
		return usagef("--mark-low-confidence marks words in the text format only, not in --format %s", c.Format)
	}
	return nil
}

func (c *JobsGetCmd) Run(e *env) error {
	cl, err := e.apiClient()
	if err != nil {
		return err
	}
	switch c.Format {
	case "srt", "vtt":
		b, err := cl.Export(e.ctx, c.ID, client.ExportFormat(c.Format))
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(b)
		return err
	}
	job, err := cl.GetJob(e.ctx, c.ID)
	if err != nil {
		return err
	}
	if c.Format == "json" {
		return writeJSONIndent(e.stdout, job)
	}
	return writeJobTextMarked(e.stdout, job, c.MarkLowConfidence.threshold)
}

// writeJobText writes a job readably: its result when it succeeded, its error
// when it failed, its status otherwise.
func writeJobText(w io.Writer, job *client.Job) error { return writeJobTextMarked(w, job, 0) }

// writeJobTextMarked is writeJobText with a transcript's words below the
// confidence threshold marked (0: none; see markedText).
func writeJobTextMarked(w io.Writer, job *client.Job, threshold float64) error {
	switch job.Status {
	case client.StatusSucceeded:
	case client.StatusFailed:
		msg := "failed"
		if job.Error != nil {
			msg = "failed: " + orDefault(job.Error.Code, "error") + ": " + oneLine(job.Error.Message)
			if pe := job.Error.ProviderError; pe != nil {
				msg += " (provider: " + pe.Code + ": " + oneLine(pe.Message) + ")"
			}
		}
		_, err := fmt.Fprintf(w, "Job %s (%s) %s\n", job.ID, job.Type, msg)
		return err
	default:
		_, err := fmt.Fprintf(w, "Job %s (%s) is %s.\n", job.ID, job.Type, job.Status)
		return err
	}
	var b strings.Builder
	switch job.Type {
	case client.TypeSummary:
		r, err := job.Summary()
		if err != nil {
			return err
		}
		writeSummary(&b, r)
	case client.TypeTags:
		r, err := job.Tags()
		if err != nil {
			return err
		}
		writeTags(&b, r)
	default:
		r, err := job.Transcription()
		if err != nil {
			return err
		}
		writeTranscript(&b, r, threshold)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTranscript writes one line per turn, `[mm:ss.s] Agent: text`, with
// the words below the confidence threshold marked (0: none).
func writeTranscript(b *strings.Builder, r *client.TranscriptionResult, threshold float64) {
	if len(r.Transcript) == 0 {
		b.WriteString("(no speech)\n")
		return
	}
	segs := slices.Clone(r.Transcript)
	slices.SortStableFunc(segs, func(a, b client.Segment) int {
		switch {
		case a.TimeStart < b.TimeStart:
			return -1
		case a.TimeStart > b.TimeStart:
			return 1
		}
		return 0
	})
	for _, s := range segs {
		b.WriteString(turnLine(s.TimeStart, s.SpeakerAlias, markedText(s, threshold)))
		b.WriteByte('\n')
	}
}

func writeSummary(b *strings.Builder, r *client.SummaryResult) {
	if r.Topic != nil && strings.TrimSpace(*r.Topic) != "" {
		fmt.Fprintf(b, "Topic: %s\n\n", oneLine(*r.Topic))
	}
	b.WriteString(strings.TrimSpace(r.Summary))
	b.WriteByte('\n')
}

func writeTags(b *strings.Builder, r *client.TagsResult) {
	if len(r.Tags) == 0 {
		b.WriteString("(no tags)\n")
		return
	}
	names := make([]string, 0, len(r.Tags))
	for k := range r.Tags {
		names = append(names, k)
	}
	slices.Sort(names)
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		values := r.Tags[n]
		v := strings.Join(values, ", ")
		if len(values) == 0 {
			v = "-"
		}
		fmt.Fprintf(b, "%-*s  %s\n", width+1, n+":", v)
	}
}

// JobsDeleteCmd deletes a job.
type JobsDeleteCmd struct {
	ID string `arg:"" name:"job-id" help:"The job's id."`
}

func (JobsDeleteCmd) Help() string {
	return `Deleting a transcription leaves the summaries and tags made from it.

Example:

    callscribe jobs delete 7c0e8a4e-...`
}

func (c *JobsDeleteCmd) Run(e *env) error {
	cl, err := e.apiClient()
	if err != nil {
		return err
	}
	if err := cl.DeleteJob(e.ctx, c.ID); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "Deleted job %s.\n", c.ID)
	return err
}

// JobsDeliveriesCmd lists a tags job's tagDelivered attempts.
type JobsDeliveriesCmd struct {
	ID string `arg:"" name:"job-id" help:"The tags job's id."`
}

func (JobsDeliveriesCmd) Help() string {
	return `Each attempt to POST the job's tags to its callback URL, newest first: when,
to which host, what the receiver answered, and the next attempt or the outcome.

Examples:

    callscribe jobs deliveries 7c0e8a4e-...
    callscribe jobs deliveries 7c0e8a4e-... --json`
}

func (c *JobsDeliveriesCmd) Run(e *env) error {
	cl, err := e.apiClient()
	if err != nil {
		return err
	}
	attempts, err := cl.Deliveries(e.ctx, c.ID)
	if err != nil {
		return err
	}
	if e.globals.JSON {
		for _, d := range attempts {
			if err := writeJSONLine(e.stdout, d); err != nil {
				return err
			}
		}
		return nil
	}
	if len(attempts) == 0 {
		_, err := fmt.Fprintln(e.stdout, "No deliveries: the job has no callback URL, or has not finished yet.")
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ATTEMPT\tSENT\tHOST\tANSWER\tOUTCOME\tNEXT ATTEMPT")
	for _, d := range attempts {
		answer := deref(d.Error)
		if d.StatusCode != nil {
			answer = fmt.Sprint(*d.StatusCode)
		}
		next := "-"
		if d.NextAttemptAt != nil {
			next = formatWhen(*d.NextAttemptAt)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", d.Attempt, formatWhen(d.At), d.Host, answer, d.Outcome, next)
	}
	return tw.Flush()
}

// TaxonomyCmd prints the tag taxonomy.
type TaxonomyCmd struct {
}

func (TaxonomyCmd) Help() string {
	return "Examples:\n\n    callscribe taxonomy\n    callscribe taxonomy --json"
}

func (c *TaxonomyCmd) Run(e *env) error {
	cl, err := e.apiClient()
	if err != nil {
		return err
	}
	t, err := cl.Taxonomy(e.ctx)
	if err != nil {
		return err
	}
	if e.globals.JSON {
		return writeJSONIndent(e.stdout, t.Categories)
	}
	var b strings.Builder
	for i, cat := range t.Categories {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s (%d to %d values)\n", cat.Name, cat.MinValues, cat.MaxValues)
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		for _, v := range cat.Values {
			fmt.Fprintf(tw, "  %s\t%s\n", v.Value, oneLine(v.Description))
		}
		tw.Flush()
	}
	_, err = io.WriteString(e.stdout, b.String())
	return err
}
