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
	"time"

	"github.com/alecthomas/kong"
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
	RedactPII   bool     `name:"redact-pii" help:"Replace card numbers, phone numbers, e-mail addresses and runs of six or more digits (written or spoken) with [REDACTED:...] tokens, and tone them out of the stored audio (names and addresses are not caught). Without it, the deployment's REDACT_PII default applies."`
	Wait        bool     `short:"w" help:"Wait for each transcription to finish and print its transcript on stdout."`
	Format      string   `short:"f" help:"Transcript format with --wait: text (or txt: one line per turn, [mm:ss.s] Agent: ...), json (the transcript as the API exports it), srt or vtt (subtitles). Case-insensitive." default:"text" placeholder:"FORMAT"`
	Output      string   `short:"o" help:"With --wait, write the transcript to this file instead of stdout; with several input files, PATH is a directory and each transcript goes to PATH/NAME.FORMAT." type:"path" placeholder:"PATH"`
	Concurrency int      `help:"Files uploaded at the same time." default:"4"`
	PollFlags
}

func (TranscribeCmd) Help() string {
	return `Uploads every file as its own transcription job, several at a time.

Without --wait, prints one tab-separated line per file on stdout (file, job id,
status) when its job is created (with --json, one JSON object per file).

With --wait, waits until each job ends, however long the call (bounded only by
--timeout and Ctrl-C), then prints each transcript on stdout in --format, after a
"==> FILE <==" line when there are several files (with --json, each job as one
JSON line). Status goes to stderr: on a terminal an upload bar per file that
turns into a status line with the time so far and an estimate; otherwise one
tab-separated line per file when its job is created, one every 30 s while it
runs (with the time so far and the estimate), and one when it ends. --quiet
silences the status. The estimate is the audio length times 0.3, what the
embedded speech engine takes; other engines and a queue of other jobs change it.

Examples:

    callscribe transcribe --wait call.wav
    callscribe transcribe --wait --format srt --output call.srt call.wav
    callscribe transcribe --wait --format txt --output transcripts/ monday/*.mp3
    callscribe transcribe --wait --json call.wav | jq .result.duration_seconds
    callscribe transcribe --wait --timeout 30m --language en long-call.mp3
    callscribe transcribe --metadata '{"ticket":"T-1234"}' call.wav
    callscribe transcribe --keyterm "Northwind Energy" --keyterm "smart meter" call.wav
    callscribe transcribe --redact-pii --wait call.wav
    callscribe transcribe call.wav | cut -f2     # just the job ids`
}

// transcriptFormats are --format's values; txt is text (the dashboard's name).
var transcriptFormats = map[string]string{"text": "text", "txt": "text", "json": "json", "srt": "srt", "vtt": "vtt"}

// extension is the file name extension of a transcript format.
func extension(format string) string {
	if format == "text" {
		return "txt"
	}
	return format
}

// Validate checks the output flags before any upload (a usage error, exit 2).
func (c *TranscribeCmd) Validate(kctx *kong.Context) error {
	f, ok := transcriptFormats[strings.ToLower(strings.TrimSpace(c.Format))]
	if !ok {
		return fmt.Errorf("--format must be text (or txt), json, srt or vtt, not %q", c.Format)
	}
	c.Format = f
	if !c.Wait && (c.Output != "" || c.Format != "text") {
		return fmt.Errorf("--format and --output need --wait (without it there is no transcript yet)")
	}
	if c.Output != "" && len(c.Files) > 1 {
		seen := map[string]string{}
		for _, file := range c.Files {
			name := outputName(file, c.Format)
			if prev, dup := seen[name]; dup {
				return fmt.Errorf("%s and %s would both be written to %s: give them different names or transcribe them separately", prev, file, filepath.Join(c.Output, name))
			}
			seen[name] = file
		}
	}
	return nil
}

// outputName is the name of a file's transcript in an --output directory.
func outputName(file, format string) string {
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base)) + "." + extension(format)
}

// createdLine is a created job as --json prints it, with its file.
type createdLine struct {
	File string `json:"file"`
	*client.CreatedJob
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
	if e.globals.JSON && c.Format != "text" {
		return usagef("--json prints the whole job; leave out --format %s, or --json", c.Format)
	}
	cl, err := e.apiClient()
	if err != nil {
		return err
	}
	opts := client.TranscriptionOptions{Language: c.Language, Metadata: meta, Keyterms: c.Keyterms}
	if c.RedactPII {
		opts.RedactPII = &c.RedactPII
	}

	var (
		mu       sync.Mutex // plain output lines and failures
		failures []failure
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
		failures = append(failures, failure{file, err})
	}
	// line writes a plain status line: on stdout when it is the result (the
	// job id, without --wait), on stderr when the transcript is.
	line := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if c.Wait {
			e.status(format, args...)
		} else {
			fmt.Fprintf(e.stdout, format, args...)
		}
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
			plain := !fancy
			job, err := t.run(e, cl, opts, c, func(created *client.CreatedJob) {
				switch {
				case e.globals.JSON && !c.Wait:
					mu.Lock()
					writeJSONLine(e.stdout, createdLine{file, created})
					mu.Unlock()
				case plain:
					line("%s\t%s\t%s\n", file, created.ID, created.Status)
				}
			}, func(j *client.Job, progress string) {
				if plain {
					line("%s\t%s\t%s\t%s\n", file, j.ID, j.Status, progress)
				}
			})
			t.job = job
			if err != nil {
				fail(file, err)
			}
			if plain && job != nil {
				line("%s\t%s\t%s\n", file, job.ID, statusText(job))
			}
		}()
	}
	wg.Wait()
	if p != nil {
		p.Wait()
		// The bars show short ids; the whole ids once everything is done: the
		// result without --wait, status beside the transcripts with it.
		w := e.stdout
		if c.Wait {
			w = e.stderr
		}
		if !(e.globals.JSON && !c.Wait) {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			for _, t := range tasks {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", t.path, t.jobID, t.final)
			}
			tw.Flush()
		}
	}
	if c.Wait {
		if err := c.writeTranscripts(e, cl, tasks); err != nil {
			fail("", err)
		}
	}
	code := 0
	for _, f := range failures {
		file := f.file
		if e.globals.JSON {
			writeError(e.stderr, f.err, &file)
		} else if file != "" {
			fmt.Fprintf(e.stderr, "callscribe: %s: %s\n", file, errorText(f.err))
		} else {
			fmt.Fprintf(e.stderr, "callscribe: %s\n", errorText(f.err))
		}
		code = worseExit(code, exitCode(f.err))
	}
	if len(failures) > 0 {
		return &reportedError{n: len(failures), code: code}
	}
	return nil
}

// failure is one file's error in a transcribe run ("" for none in particular).
type failure struct {
	file string
	err  error
}

// worseExit is the exit status of a run with errors of both statuses: an
// authentication failure first (nothing will work until it is fixed), then a
// plain error, then a job still running.
func worseExit(a, b int) int {
	rank := func(c int) int {
		switch c {
		case exitAuth:
			return 4
		case exitUsage:
			return 3
		case exitError:
			return 2
		case exitStillRunning:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// writeTranscripts writes the transcript of every succeeded job, in the order
// of the files: to stdout, to --output, or into the --output directory.
func (c *TranscribeCmd) writeTranscripts(e *env, cl *client.Client, tasks []*fileTask) error {
	if e.globals.JSON {
		for _, t := range tasks {
			if t.job != nil {
				if err := writeJSONLine(e.stdout, t.job); err != nil {
					return err
				}
			}
		}
		return nil
	}
	several := len(c.Files) > 1
	if several && c.Output != "" {
		if err := os.MkdirAll(c.Output, 0o755); err != nil {
			return err
		}
	}
	first := true
	for _, t := range tasks {
		if t.job == nil || t.job.Status != client.StatusSucceeded {
			continue
		}
		body, err := c.render(e, cl, t.job)
		if err != nil {
			return fmt.Errorf("%s: %w", t.path, err)
		}
		switch {
		case c.Output != "" && several:
			err = os.WriteFile(filepath.Join(c.Output, outputName(t.path, c.Format)), body, 0o644)
		case c.Output != "":
			err = os.WriteFile(c.Output, body, 0o644)
		case several:
			sep := "\n"
			if first {
				sep = ""
			}
			_, err = fmt.Fprintf(e.stdout, "%s==> %s <==\n%s", sep, t.path, body)
		default:
			_, err = e.stdout.Write(body)
		}
		first = false
		if err != nil {
			return err
		}
	}
	return nil
}

// render is a succeeded transcription in --format: text from the job's
// result, the other formats as the API's export route makes them.
func (c *TranscribeCmd) render(e *env, cl *client.Client, job *client.Job) ([]byte, error) {
	if c.Format != "text" {
		return cl.Export(e.ctx, job.ID, client.ExportFormat(c.Format))
	}
	r, err := job.Transcription()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	writeTranscript(&b, r, 0)
	return []byte(b.String()), nil
}

// fileTask is one file of a transcribe run.
type fileTask struct {
	path, name string
	size       int64
	status     atomic.Value // string shown after the bar
	bar        *mpb.Bar
	// jobID and final are the summary line printed after the bars.
	jobID, final string
	// job is the job as it ended (with --wait), nil otherwise.
	job *client.Job
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

// run uploads the file and, with --wait, waits for its job. created is
// called once the job exists, progress while it runs (plain output: every
// --progress-every, with the time so far and the estimate).
func (t *fileTask) run(e *env, cl *client.Client, opts client.TranscriptionOptions, c *TranscribeCmd,
	created func(*client.CreatedJob), progress func(j *client.Job, text string)) (*client.Job, error) {
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
	created(job)
	if t.bar != nil {
		t.bar.SetCurrent(t.size)
		t.status.Store("job " + shortID(job.ID) + " " + job.Status)
	}
	if !c.Wait {
		finish("job " + shortID(job.ID) + " " + job.Status)
		t.setFinal(job.ID, job.Status)
		return nil, nil
	}
	start := time.Now()
	audio := -1.0 // not asked yet
	var onPoll func(*client.Job)
	if t.bar != nil {
		audio = audioSeconds(e, cl, job.ID)
		onPoll = func(j *client.Job) {
			t.status.Store("job " + shortID(j.ID) + " " + statusText(j) + " " + progressText(time.Since(start), audio))
		}
	} else {
		last := start
		onPoll = func(j *client.Job) {
			if j.Done() || time.Since(last) < c.ProgressEvery {
				return
			}
			last = time.Now()
			if audio < 0 {
				audio = audioSeconds(e, cl, job.ID)
			}
			progress(j, progressText(time.Since(start), audio))
		}
	}
	done, err := pollJob(e, cl, job.ID, c.PollFlags, onPoll)
	switch {
	case done != nil:
		finish("job " + shortID(done.ID) + " " + statusText(done) + " in " + formatDuration(time.Since(start)))
		t.setFinal(done.ID, statusText(done))
	case err != nil:
		finish("job " + shortID(job.ID) + " error")
		t.setFinal(job.ID, "error")
	}
	// A failed job comes back with its *client.JobFailedError, a wait that
	// ended first with the job as last read: both are this file's failure.
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
