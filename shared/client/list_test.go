package client_test

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/client"
	"github.com/callscribe/callscribe/shared/testkit/apitest"
)

func TestListAndAllJobs(t *testing.T) {
	c := account(t)
	ctx := t.Context()
	start := time.Now().Add(-time.Second)
	var transcriptions []string // newest first
	for i := range 5 {
		lang := "en"
		if i%2 == 1 {
			lang = "en-GB"
		}
		created, err := c.CreateTranscriptionFromReader(ctx, "call.wav", bytes.NewReader(apitest.MakeWAV(0.5, 1, false)), client.TranscriptionOptions{Language: lang})
		if err != nil {
			t.Fatal(err)
		}
		transcriptions = slices.Insert(transcriptions, 0, created.ID)
		if _, err := c.WaitForJob(ctx, created.ID, fast); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // distinct creation times
	}
	summary, err := c.Summarize(ctx, client.SummarizeRequest{TranscriptText: "Agent: hello. User: hi."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitForJob(ctx, summary.ID, fast); err != nil {
		t.Fatal(err)
	}

	t.Run("Pages", func(t *testing.T) {
		first, err := c.ListJobs(ctx, client.ListOptions{Limit: 2, Type: client.TypeTranscription})
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Jobs) != 2 || first.NextCursor == "" || first.RequestID == "" {
			t.Fatalf("first page %+v", first)
		}
		if first.Jobs[0].ID != transcriptions[0] || first.Jobs[1].ID != transcriptions[1] {
			t.Errorf("first page %v, want newest first %v", ids(first.Jobs), transcriptions[:2])
		}
		var all []string
		for p := first; ; {
			all = append(all, ids(p.Jobs)...)
			if p.NextCursor == "" {
				break
			}
			p, err = c.ListJobs(ctx, client.ListOptions{Limit: 2, Type: client.TypeTranscription, Cursor: p.NextCursor})
			if err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(all, transcriptions) {
			t.Errorf("paged %v, want %v", all, transcriptions)
		}
	})

	t.Run("AllJobs", func(t *testing.T) {
		var got []string
		for j, err := range c.AllJobs(ctx, client.ListOptions{Limit: 2, Type: client.TypeTranscription}) {
			if err != nil {
				t.Fatal(err)
			}
			if j.Type != client.TypeTranscription {
				t.Errorf("filter lost on a later page: %+v", j)
			}
			got = append(got, j.ID)
		}
		if !slices.Equal(got, transcriptions) {
			t.Errorf("AllJobs %v, want %v", got, transcriptions)
		}
		// Every type, one job per page.
		var n, summaries int
		for j, err := range c.AllJobs(ctx, client.ListOptions{Limit: 1, CreatedAfter: start}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if j.Type == client.TypeSummary {
				summaries++
				if j.AudioSeconds != 0 || j.ID != summary.ID {
					t.Errorf("summary entry %+v", j)
				}
			}
		}
		if n != 6 || summaries != 1 {
			t.Errorf("%d jobs, %d summaries; want 6, 1", n, summaries)
		}
		// Filters combine, on every page.
		var british []string
		for j, err := range c.AllJobs(ctx, client.ListOptions{Limit: 1, Language: "en-GB", Status: client.StatusSucceeded}) {
			if err != nil {
				t.Fatal(err)
			}
			british = append(british, j.ID)
		}
		if want := []string{transcriptions[1], transcriptions[3]}; !slices.Equal(british, want) {
			t.Errorf("en-GB %v, want %v", british, want)
		}
		// Stopping early stops paging.
		count := 0
		for range c.AllJobs(ctx, client.ListOptions{Limit: 1}) {
			count++
			if count == 2 {
				break
			}
		}
		// No jobs after now.
		for j, err := range c.AllJobs(ctx, client.ListOptions{CreatedAfter: time.Now().Add(time.Hour)}) {
			t.Errorf("future filter yielded %+v, %v", j, err)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		_, err := c.ListJobs(ctx, client.ListOptions{Status: "done"})
		if !client.IsCode(err, client.CodeInvalidFilter) || client.ErrorStatus(err) != 400 {
			t.Errorf("bad status: %v", err)
		}
		_, err = c.ListJobs(ctx, client.ListOptions{JobID: "not-a-uuid"})
		if !client.IsCode(err, client.CodeInvalidFilter) {
			t.Errorf("bad job_id: %v", err)
		}
		_, err = c.ListJobs(ctx, client.ListOptions{Limit: -1})
		if !client.IsCode(err, client.CodeInvalidPagination) {
			t.Errorf("bad limit: %v", err)
		}
		_, err = c.ListJobs(ctx, client.ListOptions{Cursor: "garbage"})
		if !client.IsCode(err, client.CodeInvalidPagination) {
			t.Errorf("bad cursor: %v", err)
		}
		// The iterator yields the error once and stops.
		n := 0
		for j, err := range c.AllJobs(ctx, client.ListOptions{Type: "audio"}) {
			n++
			if !client.IsCode(err, client.CodeInvalidFilter) || j.ID != "" {
				t.Errorf("AllJobs error: %+v, %v", j, err)
			}
		}
		if n != 1 {
			t.Errorf("AllJobs yielded %d times on an error", n)
		}
		_, err = c.ListJobs(ctx, client.ListOptions{SourceJobID: "call-1"})
		if !client.IsCode(err, client.CodeInvalidFilter) {
			t.Errorf("bad source_job_id: %v", err)
		}
	})

	// Last: it adds derived jobs the listings above do not expect.
	t.Run("BySource", func(t *testing.T) {
		source := transcriptions[2]
		sum, err := c.Summarize(ctx, client.SummarizeRequest{TranscriptionJobID: source})
		if err != nil {
			t.Fatal(err)
		}
		tags, err := c.Tag(ctx, client.TagRequest{TranscriptionJobID: source})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for j, err := range c.AllJobs(ctx, client.ListOptions{Limit: 1, SourceJobID: source}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, j.ID)
		}
		if want := []string{tags.ID, sum.ID}; !slices.Equal(sorted(got), sorted(want)) {
			t.Errorf("derived jobs of %s: %v, want %v", source, got, want)
		}
		page, err := c.ListJobs(ctx, client.ListOptions{SourceJobID: source, Type: client.TypeTags})
		if err != nil || len(page.Jobs) != 1 || page.Jobs[0].ID != tags.ID {
			t.Errorf("tags of %s: %+v, %v; want %s", source, page, err, tags.ID)
		}
		page, err = c.ListJobs(ctx, client.ListOptions{SourceJobID: transcriptions[0]})
		if err != nil || len(page.Jobs) != 0 {
			t.Errorf("derived jobs of %s, which has none: %+v, %v", transcriptions[0], page, err)
		}
	})
}

func sorted(xs []string) []string {
	return slices.Sorted(slices.Values(xs))
}

func ids(jobs []client.JobSummary) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.ID)
	}
	return out
}
