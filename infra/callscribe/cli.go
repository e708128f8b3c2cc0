package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"golang.org/x/term"

	"github.com/callscribe/callscribe/shared/client"
)

// Exit statuses (doc.go lists them for users).
const (
	exitOK    = 0
	exitError = 1 // API and runtime errors, a failed job
	exitUsage = 2 // bad flags or arguments
	// exitAuth: no credentials, or the service refused them (401).
	exitAuth = 3
	// exitStillRunning: the wait ended (--timeout, --max-attempts) before the
	// job did; the job keeps running on the service.
	exitStillRunning = 4
	// exitInterrupted is 128+SIGINT, what a shell reports for a command
	// stopped by Ctrl-C.
	exitInterrupted = 130
)

// CLI is the command tree.
type CLI struct {
	Globals

	Signup     SignupCmd     `cmd:"" help:"Create a dashboard account, then sign in like 'login'."`
	Login      LoginCmd      `cmd:"" help:"Sign in to the dashboard and save the session in the config file."`
	Keys       KeysCmd       `cmd:"" help:"Create, list and revoke API keys (needs 'login')."`
	Usage      UsageCmd      `cmd:"" help:"Show the account's transcription minute quota (needs 'login')."`
	Transcribe TranscribeCmd `cmd:"" help:"Upload audio files (MP3 or WAV) as transcription jobs."`
	Jobs       JobsCmd       `cmd:"" help:"List, show and delete jobs."`
	Summarize  SummarizeCmd  `cmd:"" help:"Create a summary job from a transcription or from transcript text."`
	Tag        TagCmd        `cmd:"" help:"Create a tags job from a transcription or from transcript text."`
	Taxonomy   TaxonomyCmd   `cmd:"" help:"Show the fixed tag taxonomy."`
	Wait       WaitCmd       `cmd:"" help:"Wait for a job to finish and print its result."`
	Version    VersionCmd    `cmd:"" help:"Print the CLI and client library versions."`
	Completion CompletionCmd `cmd:"" help:"Print a shell completion script (bash, zsh or fish)."`
}

const description = `Transcribe, summarize and tag calls with the callscribe API.

Settings come from flags, then the environment (CALLSCRIBE_BASE_URL, CALLSCRIBE_API_KEY,
CALLSCRIBE_GATEWAY_KEY, CALLSCRIBE_CONFIG), then the config file that 'callscribe login' writes.

Quick start:

    callscribe signup --email you@example.com     # or 'login' with an existing account
    callscribe keys create --save
    callscribe transcribe --wait call.wav          # prints the transcript
    callscribe jobs list
    callscribe jobs get JOB_ID

Exit status: 0 success; 1 API or runtime error, or a failed job; 2 usage error;
3 authentication (no API key or session, or the service answered 401); 4 gave up
waiting (--timeout, --max-attempts) while the job still runs; 130 interrupted.`

// usageError is a mistake in how the CLI was called: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// authError is missing or unusable credentials found before any request:
// exit status 3, like the service's 401.
type authError struct{ msg string }

func (e *authError) Error() string { return e.msg }

func authf(format string, args ...any) error { return &authError{fmt.Sprintf(format, args...)} }

// hintError adds advice to an API error's message (what to run instead).
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() + " " + e.hint }
func (e *hintError) Unwrap() error { return e.err }

// stillRunningError is a wait that ended before the job did.
type stillRunningError struct {
	id, status string
	why        string // "after 10m0s (--timeout)"
}

func (e *stillRunningError) Error() string {
	return fmt.Sprintf("job %s is still %s %s; it keeps running: 'callscribe wait %s' picks it up", e.id, e.status, e.why, e.id)
}

// reportedError is an error already reported on stderr (one line per file of
// a transcribe run): only the exit status is left to set.
type reportedError struct{ n, code int }

func (e *reportedError) Error() string { return fmt.Sprintf("%d errors", e.n) }

// kongExit is how kong's exit (after --help) unwinds out of Parse.
type kongExit int

// env is what the commands run with.
type env struct {
	ctx     context.Context
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	getenv  func(string) string
	globals *Globals
	set     *settings
}

// run is the whole CLI: main only wires it to the process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	var cli CLI
	parser, err := kong.New(&cli,
		kong.Name("callscribe"),
		kong.Vars{"version": versionText()},
		kong.Description(description),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { panic(kongExit(c)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, Summary: true}),
	)
	if err != nil {
		fmt.Fprintf(stderr, "callscribe: %v\n", err)
		return exitError
	}
	defer func() {
		if r := recover(); r != nil {
			c, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = int(c)
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		help := "callscribe --help"
		var pe *kong.ParseError
		if errors.As(err, &pe) && pe.Context != nil {
			if sel := pe.Context.Selected(); sel != nil {
				help = sel.FullPath() + " --help"
			}
		}
		msg := oneLine(err.Error()) + " (see '" + help + "')"
		// The flags parsed before the mistake are set; --json may come later.
		if cli.JSON || slices.Contains(args, "--json") {
			writeErrorJSON(stderr, codeUsage, msg, "", nil)
		} else {
			fmt.Fprintf(stderr, "callscribe: %s\n", msg)
		}
		return exitUsage
	}
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, globals: &cli.Globals}
	if err := kctx.Run(e); err != nil {
		if ctx.Err() != nil {
			// Interrupted (Ctrl-C, SIGTERM): the shell's convention, 128+SIGINT,
			// and no error line for what the user asked for. Jobs already
			// created keep running on the service.
			if cli.JSON {
				writeErrorJSON(stderr, codeInterrupted, "interrupted", "", nil)
			} else {
				fmt.Fprintln(stderr, "callscribe: interrupted")
			}
			return exitInterrupted
		}
		return report(stderr, err, cli.JSON)
	}
	return exitOK
}

// report writes err on stderr, as one line or with asJSON as the API's error
// shape, and returns the exit status.
func report(stderr io.Writer, err error, asJSON bool) int {
	var reported *reportedError
	if errors.As(err, &reported) {
		return cmp.Or(reported.code, exitError)
	}
	if asJSON {
		writeError(stderr, err, nil)
	} else {
		var usage *usageError
		if errors.As(err, &usage) {
			fmt.Fprintf(stderr, "callscribe: %s\n", oneLine(usage.msg))
		} else {
			fmt.Fprintf(stderr, "callscribe: %s\n", errorText(err))
		}
	}
	return exitCode(err)
}

// exitCode is the exit status of an error of a command.
func exitCode(err error) int {
	var (
		usage   *usageError
		auth    *authError
		running *stillRunningError
	)
	switch {
	case errors.As(err, &usage):
		return exitUsage
	case errors.As(err, &auth), client.IsUnauthorized(err):
		return exitAuth
	case errors.As(err, &running), errors.Is(err, client.ErrWaitExhausted):
		return exitStillRunning
	}
	return exitError
}

// errorText is the one-line text of an error: for an API error its code, its
// message and its requestId.
func errorText(err error) string {
	var failed *client.JobFailedError
	if errors.As(err, &failed) && failed.Job != nil {
		text := "job " + failed.Job.ID + " failed"
		if je := failed.Job.Error; je != nil {
			text += ": " + orDefault(je.Code, "failed") + ": " + oneLine(je.Message)
		}
		return text
	}
	hint := ""
	var hinted *hintError
	if errors.As(err, &hinted) {
		hint = " " + hinted.hint
	}
	if apiErr, ok := client.AsError(err); ok {
		code := apiErr.Code
		if code == "" {
			code = fmt.Sprintf("HTTP_%d", apiErr.Status)
		}
		text := code + ": " + oneLine(apiErr.Message) + hint
		if apiErr.RequestID != "" {
			text += " (requestId " + apiErr.RequestID + ")"
		}
		return text
	}
	if errors.Is(err, context.Canceled) {
		return "interrupted"
	}

	return oneLine(strings.TrimPrefix(err.Error(), "callscribe: "))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// settings resolves the connection settings once.
func (e *env) settings() (*settings, error) {
	if e.set == nil {
		s, err := resolve(e.globals, e.getenv)
		if err != nil {
			return nil, err
		}
		e.set = s
	}
	return e.set, nil
}

// newClient is a client of the resolved service with opts added.
func (e *env) newClient(opts ...client.Option) (*client.Client, *settings, error) {
	s, err := e.settings()
	if err != nil {
		return nil, nil, err
	}
	base := []client.Option{client.WithUserAgent("callscribe-cli/" + cliVersion() + " " + client.DefaultUserAgent)}
	if s.GatewayKey != "" {
		base = append(base, client.WithGatewayKey(s.GatewayKey))
	}
	c, err := client.New(s.BaseURL, append(base, opts...)...)
	if err != nil {
		return nil, nil, usagef("%s", strings.TrimPrefix(err.Error(), "callscribe: "))
	}
	return c, s, nil
}

// apiClient is a client with the API key the /v1 routes need.
func (e *env) apiClient() (*client.Client, error) {
	s, err := e.settings()
	if err != nil {
		return nil, err
	}
	if s.APIKey == "" {
		return nil, authf("no API key for %s: pass --api-key, set %s, or run 'callscribe keys create --save' after 'callscribe login'", s.BaseURL, envAPIKey)
	}
	c, _, err := e.newClient(client.WithAPIKey(s.APIKey))
	return c, err
}

// sessionClient is a client with the dashboard session of 'callscribe login'.
func (e *env) sessionClient() (*client.Client, error) {
	s, err := e.settings()
	if err != nil {
		return nil, err
	}
	if s.SessionToken == "" {
		return nil, authf("not signed in to %s: run 'callscribe login' first", s.BaseURL)
	}
	if e.getenv(envSession) == "" && !s.File.SessionExpiresAt.IsZero() && time.Now().After(s.File.SessionExpiresAt) {
		return nil, authf("the session saved by 'callscribe login' for %s expired at %s: run 'callscribe login' again", s.BaseURL, formatWhen(s.File.SessionExpiresAt))
	}
	c, _, err := e.newClient(client.WithSessionToken(s.SessionToken))
	return c, err
}

// isTTY reports whether w is a terminal (progress bars and prompts).
func isTTY(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// fancy reports whether stderr gets progress bars and status lines drawn in
// place (a terminal, not --quiet).
func (e *env) fancy() bool {
	if e.globals.Quiet || e.getenv("CALLSCRIBE_NO_PROGRESS") != "" || e.getenv("TERM") == "dumb" {
		return false
	}
	return isTTY(e.stderr)
}

// status writes a progress or status line on stderr, unless --quiet.
func (e *env) status(format string, args ...any) {
	if !e.globals.Quiet {
		fmt.Fprintf(e.stderr, format, args...)
	}
}

// cliVersion is the module version the binary was built from (go install
// ...@v1.2.3), or "devel".
func cliVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// VersionCmd prints the versions.
type VersionCmd struct{}

func (VersionCmd) Help() string {
	return "Example:\n\n    callscribe version"
}

func (VersionCmd) Run(e *env) error {
	_, err := fmt.Fprintln(e.stdout, versionText())
	return err
}

// versionText is what version and --version print.
func versionText() string {
	return fmt.Sprintf("callscribe %s (client library %s)", cliVersion(), client.Version)
}
