package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/callscribe/callscribe/shared/client"
)

// TranscribeCmd uploads audio files.
type TranscribeCmd struct {
	Files       []string `arg:"" name:"file" help:"MP3 or WAV files (at most 10 MB each)." type:"existingfile"`
	Language    string   `help:"Language hint, BCP-47 (e.g. en, en-GB)."`
	Metadata    string   `help:"A JSON object stored with each job." placeholder:"JSON"`
	Keyterms    []string `name:"keyterm" sep:"none" help:"A word or phrase to favour (a product, company or person name, a domain term); repeat for more, up to 100, each at most 50 characters and 6 words." placeholder:"TERM"`
	Wait        bool     `help:"Wait for each transcription to finish."`
	Concurrency int      `help:"Files uploaded at the same time." default:"4"`
	PollFlags
}

func (TranscribeCmd) Help() string {
	return `Uploads every file as its own transcription job, several at a time. On a terminal
each file gets an upload progress bar and then a status line while --wait polls;
otherwise one tab-separated line per file (file, job id, status) is printed when its
job is created and, with --wait, another when it ends.

Examples:

    callscribe transcribe call.wav
    callscribe transcribe --wait --language en monday/*.mp3
    callscribe transcribe --metadata '{"ticket":"T-1234"}' call.wav
    callscribe transcribe --keyterm "Northwind Energy" --keyterm "smart meter" call.wav
    callscribe transcribe call.wav | cut -f2     # just the job ids`
}

func (c *TranscribeCmd) Run(e *env) error {
	var meta json.RawMessage
	if c.Metadata != "" {
		var obj map[string]any
		if err := json.Unmarshal([]byte(c.Metadata), &obj); err != nil {
			return usagef("--metadata must be a JSON object: %v", err)
		}
		meta = json.RawMessage(c.Metadata)
	}
	if c.Concurrency < 1 {
		return usagef("--concurrency must be at least 1")
	}
	cl, err := e.apiClient()
	if err != nil {
		return err
	}
	opts := client.TranscriptionOptions{Language: c.Language, Metadata: meta, Keyterms: c.Keyterms}

	var (
		mu       sync.Mutex // plain output lines and failures
		failures []string
		p        *mpb.Progress
	)
	fancy := e.fancy()
	if fancy {
		p = newProgress(e, 30)
	}
	nameWidth := 0
	for _, f := range c.Files {
		nameWidth = max(nameWidth, len(filepath.Base(f)))
	}
	fail := func(file string, err error) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, file+": "+errorText(err))
	}
	line := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(e.stdout, format, args...)
	}

	sem := make(chan struct{}, c.Concurrency)
	var wg sync.WaitGroup
	var tasks []*fileTask
	for _, file := range c.Files {
		t := &fileTask{path: file, name: filepath.Base(file)}
		// The size is set once, before the bar's decorators read it.
		if st, err := os.Stat(file); err == nil {
			t.size = st.Size()
		}
		tasks = append(tasks, t)
		if fancy {
			t.addBar(p, nameWidth)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			job, err := t.run(e, cl, opts, c, func(id, status string) {
				if !fancy {
					line("%s\t%s\t%s\n", file, id, status)
				}
			})
			if err != nil {
				fail(file, err)
				if !fancy && job != nil {
					line("%s\t%s\t%s\n", file, job.ID, statusText(job))
				}
				return
			}
			if !fancy && job != nil {
				line("%s\t%s\t%s\n", file, job.ID, job.Status)
			}
		}()
	}
	wg.Wait()
	if p != nil {
		p.Wait()
		// The bars show short ids; the whole ids once everything is done.
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		for _, t := range tasks {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", t.path, t.jobID, t.final)
		}
		tw.Flush()
	}
	for _, f := range failures {
		fmt.Fprintf(e.stderr, "callscribe: %s\n", f)
	}
	if len(failures) == 1 && len(c.Files) == 1 {
		return &reportedError{1}
	}
	if len(failures) > 0 {
		return &reportedError{len(failures)}
	}
	return nil
}

// fileTask is one file of a transcribe run.
type fileTask struct {
	path, name string
	size       int64
	status     atomic.Value // string shown after the bar
	bar        *mpb.Bar
	// jobID and final are the summary line printed after the bars.
	jobID, final string
}

func (t *fileTask) setFinal(id, status string) { t.jobID, t.final = id, status }

func (t *fileTask) addBar(p *mpb.Progress, nameWidth int) {
	t.status.Store("")
	// One more than the size: the bar completes when the job ends, not when
	// the last byte is sent, so its status line keeps updating while it polls.
	t.bar = p.AddBar(t.size+1,
		mpb.PrependDecorators(decor.Name(t.name, decor.WC{W: nameWidth + 1, C: decor.DindentRight})),
		mpb.AppendDecorators(decor.Any(func(s decor.Statistics) string {
			if st := t.status.Load().(string); st != "" {
				return " " + st
			}
			return fmt.Sprintf(" %s / %s", kib(min(s.Current, t.size)), kib(t.size))
		})),
	)
}

// kib formats a byte count for the upload bar.
func kib(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// shortID is a job id's first block, for the status line (the summary
// printed after the bars has the whole id).
func shortID(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	return id
}

// run uploads the file and, with --wait, waits for its job. created is called
// once the job exists (plain output).
func (t *fileTask) run(e *env, cl *client.Client, opts client.TranscriptionOptions, c *TranscribeCmd, created func(id, status string)) (*client.Job, error) {
	finish := func(status string) {
		if t.bar != nil {
			t.status.Store(status)
			t.bar.SetTotal(-1, true)
		}
	}
	f, err := os.Open(t.path)
	if err != nil {
		finish("error")
		t.setFinal("-", "error")
		return nil, err
	}
	defer f.Close()
	upload := cl
	if t.bar != nil {
		// The bar counts the bytes the HTTP transport sends of the request
		// bodies (the library reads the file into memory first, so counting
		// the file reads would show nothing of the upload itself).
		// A two-step upload sends the audio to storage and then a small
		// create: the bar shows the most any one request has sent.
		var sent atomic.Int64
		upload = cl.With(client.WithHTTPClient(&http.Client{Transport: &countingTransport{base: http.DefaultTransport, onBytes: func(n int64) {
			n = min(n, t.size)
			for {
				old := sent.Load()
				if n <= old {
					return
				}
				if sent.CompareAndSwap(old, n) {
					t.bar.SetCurrent(n)
					return
				}
			}
		}}}))
	}
	job, err := upload.CreateTranscriptionFromReader(e.ctx, t.name, f, opts)
	if err != nil {
		finish("error")
		t.setFinal("-", "error")
		return nil, err
	}
	created(job.ID, job.Status)
	if t.bar != nil {
		t.bar.SetCurrent(t.size)
		t.status.Store("job " + shortID(job.ID) + " " + job.Status)
	}
	if !c.Wait {
		finish("job " + shortID(job.ID) + " " + job.Status)
		t.setFinal(job.ID, job.Status)
		return nil, nil
	}
	var onPoll func(*client.Job)
	if t.bar != nil {
		onPoll = func(j *client.Job) { t.status.Store("job " + shortID(j.ID) + " " + statusText(j)) }
	}
	done, err := cl.WaitForJob(e.ctx, job.ID, c.options(onPoll))
	switch {
	case done != nil:
		finish("job " + shortID(done.ID) + " " + statusText(done))
		t.setFinal(done.ID, statusText(done))
	case err != nil:
		finish("job " + shortID(job.ID) + " error")
		t.setFinal(job.ID, "error")
	}
	// A failed job comes back with its *client.JobFailedError, a wait that
	// ran out with the job as last read: both are this file's failure.
	return done, err
}

// countingTransport reports how many bytes of request bodies it has sent.
type countingTransport struct {
	base    http.RoundTripper
	onBytes func(total int64)
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return t.base.RoundTrip(r)
	}
	r2 := r.Clone(r.Context())
	r2.Body = &countingBody{ReadCloser: r.Body, onBytes: t.onBytes}
	return t.base.RoundTrip(r2)
}

type countingBody struct {
	io.ReadCloser
	n       int64
	onBytes func(int64)
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.n += int64(n)
		b.onBytes(b.n)
	}
	return n, err
}
