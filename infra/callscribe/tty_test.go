package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/client"
)

// newAPIKey signs up an account through the library and returns an API key.
func newAPIKey(t *testing.T, base string, opts ...client.Option) string {
	t.Helper()
	ctx := context.Background()
	anon, err := client.New(base, opts...)
	if err != nil {
		t.Fatal(err)
	}
	email, password := "tty-"+uuid.NewString()[:8]+"@example.com", "a-long-password-123"
	if err := anon.Signup(ctx, email, password); err != nil {
		t.Fatal(err)
	}
	session, err := anon.Login(ctx, email, password)
	if err != nil {
		t.Fatal(err)
	}
	key, err := anon.With(client.WithSessionToken(session.Token)).CreateAPIKey(ctx, "tty")
	if err != nil {
		t.Fatal(err)
	}
	return key.Secret
}

// buildCLI builds the callscribe binary into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "callscribe")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command(goTool, append(args, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// inTerminal runs a shell command line with stdout on a pseudo-terminal and
// returns everything the terminal received: under script(1), else tmux
// (CALLSCRIBE_TEST_TTY=tmux picks tmux).
func inTerminal(t *testing.T, env []string, cmdline string) string {
	t.Helper()
	if script, err := exec.LookPath("script"); err == nil && os.Getenv("CALLSCRIBE_TEST_TTY") != "tmux" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// The pty script makes has no size (0x0): the CLI must still draw.
		cmd := exec.CommandContext(ctx, script, "-qfec", cmdline, "/dev/null")
		cmd.Env = env
		cmd.Stdin = nil
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("script -qfec %q: %v\n%s", cmdline, err, out.String())
		}
		return out.String()
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("neither script nor tmux is installed: no pseudo-terminal to run the CLI in")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "tmux.sock")
	logFile := filepath.Join(dir, "pane.log")
	session := "cli-" + uuid.NewString()[:8]
	tm := func(args ...string) *exec.Cmd {
		c := exec.Command(tmux, append([]string{"-S", sock}, args...)...)
		c.Env = env
		return c
	}
	if out, err := tm("new-session", "-d", "-s", session, "-x", "120", "-y", "40", "sh", "-c", "sleep 0.5; "+cmdline+"; echo CLI-EXIT=$?; sleep 60").CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	defer tm("kill-server").Run()
	// The raw output (escape sequences too) while the command sleeps first.
	tm("pipe-pane", "-t", session, "-o", "cat >> "+logFile).Run()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		out, _ := tm("capture-pane", "-p", "-t", session).Output()
		if strings.Contains(string(out), "CLI-EXIT=") {
			time.Sleep(200 * time.Millisecond)
			if logged, _ := os.ReadFile(logFile); strings.Contains(string(logged), "CLI-EXIT=") {
				return string(logged)
			}
			return string(out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the CLI did not finish in the tmux pane in 2 minutes")
	return ""
}

// TestTerminalProgress runs the built binary on a pseudo-terminal: each file
// gets an upload bar, then a status line that follows its job while --wait
// polls, and the whole job ids are printed once all are done.
func TestTerminalProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	base := startStack(t, 700*time.Millisecond) // a slow engine: statuses to watch
	key := newAPIKey(t, base)
	bin := buildCLI(t)
	wav := repoFile(t, "testdata/audio/tone-16k-stereo-s24-0.25s.wav")
	mp3 := repoFile(t, "testdata/audio/tone-44k1-stereo-mpeg1-128k-1.0s.mp3")
	env := append(os.Environ(),
		"TERM=xterm", "CALLSCRIBE_NO_PROGRESS=",
		envBaseURL+"="+base, envAPIKey+"="+key, envConfig+"="+filepath.Join(t.TempDir(), "config.json"))
	out := inTerminal(t, env, strings.Join([]string{bin, "transcribe", "--wait", "--poll-interval", "100ms", wav, mp3}, " "))
	if strings.Contains(out, "DATA RACE") {
		t.Errorf("the race detector reported:\n%s", out)
	}

	// Redrawn in place: the cursor moves up over the previous frame.
	if !regexp.MustCompile(`\x1b\[\d*A`).MatchString(out) {
		t.Errorf("no cursor movement: the bars were not redrawn in place:\n%q", out)
	}
	for _, name := range []string{filepath.Base(wav), filepath.Base(mp3)} {
		bar := regexp.MustCompile(regexp.QuoteMeta(name) + `\s+\[[=>\-_ ]*\]`)
		if !bar.MatchString(out) {
			t.Errorf("no progress bar for %s:\n%q", name, out)
		}
	}
	if !regexp.MustCompile(`job [0-9a-f]{8} (queued|processing)`).MatchString(out) {
		t.Errorf("no status line while polling (queued or processing):\n%q", out)
	}
	if n := len(regexp.MustCompile(`job [0-9a-f]{8} succeeded`).FindAllString(out, -1)); n < 2 {
		t.Errorf("final status lines: %d, want one per file:\n%q", n, out)
	}
	ids := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\s+succeeded`).FindAllString(out, -1)
	if len(ids) != 2 {
		t.Errorf("summary after the bars: %d whole job ids, want 2:\n%q", len(ids), out)
	}
}

// TestPlainOutputWhenPiped: the same binary writing to pipes prints the
// transcript on stdout and plain status lines on stderr, with no escape
// sequences.
func TestPlainOutputWhenPiped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	base := startStack(t, 0)
	key := newAPIKey(t, base)
	bin := buildCLI(t)
	wav := repoFile(t, "testdata/audio/tone-8k-mono-s16-0.5s.wav")
	cmd := exec.Command(bin, "transcribe", "--wait", "--poll-interval", "50ms", wav)
	cmd.Env = append(os.Environ(), envBaseURL+"="+base, envAPIKey+"="+key, envConfig+"="+filepath.Join(t.TempDir(), "c.json"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if strings.Contains(string(out)+stderr.String(), "\x1b") {
		t.Errorf("escape sequences on a pipe: %q, %q", out, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[1], "\tsucceeded") {
		t.Errorf("plain status %q: want a created line and a succeeded line", stderr.String())
	}
	if !regexp.MustCompile(`^(\[\d\d:\d\d\.\d\] (Agent|User): .+\n)+$`).Match(out) {
		t.Errorf("stdout %q: want the transcript alone", out)
	}
}

// TestTerminalLogin: on a terminal, login prompts for the email and reads the
// password without echo.
func TestTerminalLogin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script is not installed")
	}
	base := startStack(t, 0)
	ctx := context.Background()
	anon, err := client.New(base)
	if err != nil {
		t.Fatal(err)
	}
	email, password := "pty-"+uuid.NewString()[:8]+"@example.com", "secret-pass-"+uuid.NewString()[:8]
	if err := anon.Signup(ctx, email, password); err != nil {
		t.Fatal(err)
	}
	bin := buildCLI(t)
	cfg := filepath.Join(t.TempDir(), "config.json")
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, script, "-qfec", bin+" login", "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=xterm", envBaseURL+"="+base, envConfig+"="+cfg)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Type each answer once its prompt is on the screen (and, for the
	// password, echo is off).
	waitFor := func(s string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if strings.Contains(out.String(), s) {
				return
			}
		}
		t.Fatalf("no %q prompt; terminal shows %q", s, out.String())
	}
	waitFor("Email: ")
	stdin.Write([]byte(email + "\r"))
	waitFor("Password: ")
	time.Sleep(200 * time.Millisecond)
	stdin.Write([]byte(password + "\r"))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("login under a terminal: %v\n%q", err, out.String())
	}
	screen := out.String()
	if strings.Contains(screen, password) {
		t.Errorf("the password was echoed: %q", screen)
	}
	if !strings.Contains(screen, email) || !strings.Contains(screen, "Signed in") {
		t.Errorf("terminal shows %q", screen)
	}
	if saved, _ := loadConfig(cfg); saved.SessionToken == "" {
		t.Error("no session saved")
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
