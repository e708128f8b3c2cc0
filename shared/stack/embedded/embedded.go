// Package embedded wires the whole service into one process on the embedded
// stack (`make run`): SQLite for jobs, accounts and the durable queue, files
// for audio, in-process workers, and the engines of the embedded table
// (EngineTable: the embedded PocketSphinx engine, the built-in insights, the
// OpenAI-compatible engines). Nothing on AWS imports it.
package embedded

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/callscribe/callscribe/shared/adapters/diskaudio"
	"github.com/callscribe/callscribe/shared/adapters/sqlite"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/service/callback"
	"github.com/callscribe/callscribe/shared/service/identity"
	"github.com/callscribe/callscribe/shared/service/jobs"
	"github.com/callscribe/callscribe/shared/service/pipeline"
	"github.com/callscribe/callscribe/shared/stack/config"
	"github.com/callscribe/callscribe/shared/transport/dashboard"
	"github.com/callscribe/callscribe/shared/transport/httpapi"
)

// Local is the whole service in one process on the embedded stack: SQLite for
// jobs, accounts and the durable queue, files for audio, in-process workers.
type Local struct {
	Config config.Config
	Logger *slog.Logger
	DB     *sqlite.DB
	Audio  *diskaudio.Store
	// Uploads receives the two-step path's presigned uploads and Links serves
	// the audio player's presigned reads (S3's roles on AWS).
	Uploads *diskaudio.Uploads
	Links   *diskaudio.Links
	Engines *engines.Engines
	Service *jobs.Service
	Server  *httpapi.Server
	Worker  *pipeline.Worker

	// Set by Run's shutdown for Close: when closing must be done by, and
	// whether a worker was still running at the end.
	closeBy        time.Time
	workersRunning atomic.Bool
}

// Open builds the local stack under cfg.DataDir with the providers of table
// (EngineTable(), plus a test build's own).
func Open(cfg config.Config, logger *slog.Logger, table engines.Table[config.Config]) (*Local, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating DATA_DIR: %w", err)
	}
	secret, err := sessionSecret(cfg)
	if err != nil {
		return nil, err
	}
	db, err := sqlite.Open(filepath.Join(cfg.DataDir, "callscribe.db"))
	if err != nil {
		return nil, err
	}
	audio, err := diskaudio.New(filepath.Join(cfg.DataDir, "audio"))
	if err != nil {
		db.Close()
		return nil, err
	}
	providers, err := engines.Build(table, cfg, engines.Selection{Transcriber: cfg.Transcriber, Summarizer: cfg.Summarizer, Tagger: cfg.Tagger})
	if err != nil {
		db.Close()
		return nil, err
	}
	sessions := httpapi.BearerSessions{Sessions: identity.NewSessions(secret, identity.SessionTTL, time.Now)}
	uploads := diskaudio.NewUploads(audio, identity.DeriveKey(secret, "local-uploads"), time.Now)
	links := diskaudio.NewLinks(audio, identity.DeriveKey(secret, "local-audio-links"), time.Now)
	queue := db.Queue()
	service := jobs.New(jobs.Deps{
		Jobs: db.Jobs(), Accounts: db.Accounts(), Audio: audio, Queue: queue, Uploads: uploads, AudioLinks: links, Logger: logger,
		Idempotency: db.Idempotency(),
	}, jobs.Config{QuotaMinutes: cfg.QuotaMinutes, CallbackAllowHosts: cfg.CallbackAllowHosts, RedactPII: cfg.RedactPII})
	webhooks := callback.NewWebhooks(db.Webhooks(), nil)
	server := httpapi.New(httpapi.Deps{Service: service, Webhooks: webhooks, Sessions: sessions, Issuer: sessions, Logger: logger},
		httpapi.Config{GatewayKey: cfg.GatewayKey, CursorKey: identity.DeriveKey(secret, "list-cursor"),
			RateLimit: httpapi.RateLimit{RPS: cfg.RateLimitRPS, Burst: cfg.RateLimitBurst}})
	worker := &pipeline.Worker{
		Jobs: service, Audio: audio, Queue: queue,
		Transcriber: providers.Transcriber, Summarizer: providers.Summarizer, Tagger: providers.Tagger,
		Sentiment:           providers.Sentiment,
		Notifier:            callback.NewNotifier(callback.NotifierConfig{AllowHosts: cfg.CallbackAllowHosts, Timeout: cfg.CallbackTimeout}),
		Logger:              logger,
		CallbackBackoffBase: cfg.CallbackBackoffBase,
		CallbackTimeout:     cfg.CallbackTimeout,
		Webhooks:            webhooks,
	}
	return &Local{Config: cfg, Logger: logger, DB: db, Audio: audio, Uploads: uploads, Links: links, Engines: providers, Service: service, Server: server, Worker: worker}, nil
}

// sessionSecret is SESSION_SECRET, or a random secret generated once and kept
// in DATA_DIR so sessions and cursors survive restarts.
func sessionSecret(cfg config.Config) ([]byte, error) {
	if cfg.SessionSecret != "" {
		return []byte(cfg.SessionSecret), nil
	}
	path := filepath.Join(cfg.DataDir, "session.secret")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return []byte(strings.TrimSpace(string(b))), nil
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return nil, err
	}
	secret := hex.EncodeToString(buf)
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return []byte(secret), nil
}

// Close releases the engines and the database. After Run's shutdown it
// finishes within the grace: it gives up waiting at the budget's closeBy (the
// process is about to exit; SQLite recovers its journal at the next start),
// and leaves the engines open when a worker may still be inside one.
func (l *Local) Close() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if !l.workersRunning.Load() {
			l.Engines.Close()
		}
		l.DB.Close()
	}()
	if l.closeBy.IsZero() {
		<-done
		return
	}
	select {
	case <-done:
	case <-time.After(time.Until(l.closeBy)):
		l.Logger.Warn("closing the engines and the database did not finish within the grace")
	}
}

// Run serves HTTP and runs the workers until ctx is cancelled, then shuts down
// gracefully. ready, if not nil, receives the bound address.
func (l *Local) Run(ctx context.Context, ready func(addr string)) error {
	queue := l.DB.Queue()
	if n, err := queue.RecoverInFlight(ctx); err != nil {
		return fmt.Errorf("recovering in-flight messages: %w", err)
	} else if n > 0 {
		l.Logger.Info("recovered messages left in flight by the previous run", "count", n)
	}
	if err := l.requeueOrphans(ctx); err != nil {
		return err
	}
	// What a killed predecessor was writing is garbage now; before serving,
	// so nothing of this run's is mistaken for it.
	l.sweepTemps(time.Now())
	ln, err := net.Listen("tcp", l.Config.ListenAddr)
	if err != nil {
		return fmt.Errorf("listening on LISTEN_ADDR=%s: %w", l.Config.ListenAddr, err)
	}
	l.Uploads.SetBaseURL("http://" + ln.Addr().String())
	l.Links.SetBaseURL("http://" + ln.Addr().String())
	routes := http.NewServeMux()
	routes.Handle(diskaudio.UploadPath, l.Uploads)
	routes.Handle(diskaudio.AudioPath, l.Links)
	// The web dashboard: its page at / and its assets; every other path is the API's.
	page := dashboard.Handler(dashboard.Options{})
	routes.Handle("GET /{$}", page)
	routes.Handle("GET /assets/", page)
	routes.Handle("/", l.Server)
	// A path the mux would clean ("//", ".", "..") goes to the API as it is,
	// which answers in the error shape rather than with the mux's redirect.
	srv := httpapi.NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !httpapi.CanonicalPath(r) {
			l.Server.ServeHTTP(w, r)
			return
		}
		routes.ServeHTTP(w, r)
	}))

	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	budget := newShutdownBudget(l.shutdownGrace())
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		if err := queue.Consume(workCtx, l.Config.Workers, l.Worker, sqlite.ConsumeOptions{Logger: l.Logger, HandBackAfter: budget.handBack}); err != nil && !errors.Is(err, context.Canceled) {
			l.Logger.Error("queue consumer stopped", "err", err)
		}
	}()
	go func() {
		defer wg.Done()
		l.purgeLoop(workCtx)
	}()
	go func() {
		defer wg.Done()
		l.searchMergeLoop(workCtx)
	}()

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		stopWork()
		wg.Wait()
		return err
	}
	// Stop taking work and connections at once. Everything after fits in
	// ShutdownGrace, counted from here, so a supervisor that kills at the
	// grace never cuts a step off: requests and jobs in flight get until
	// budget.handBack to finish, then open connections are closed and jobs
	// handed back to the queue for the next start
	// (sqlite.ConsumeOptions.HandBackAfter); the workers get until
	// budget.workersBy to return, and Close the rest of the grace.
	start := time.Now()
	l.Logger.Info("shutting down", "grace", l.shutdownGrace().String())
	stopWork()
	drainCtx, cancel := context.WithDeadline(context.Background(), start.Add(budget.handBack))
	defer cancel()
	err = srv.Shutdown(drainCtx)
	if err != nil {
		// Requests still running at the hand-back point are cut off; their
		// clients see the connection close, as after a crash.
		srv.Close()
		l.Logger.Warn("requests still in flight at the end of the grace were cut off", "err", err)
	}
	stopped := make(chan struct{})
	go func() { wg.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(time.Until(start.Add(budget.workersBy))):
		// A handler that ignores cancellation (an engine deep in a decode)
		// is left behind: its message is still leased, and RecoverInFlight
		// at the next start redelivers it, as after a crash.
		l.workersRunning.Store(true)
		l.Logger.Warn("workers did not stop within the grace; their jobs run again at the next start")
	}
	l.closeBy = start.Add(budget.closeBy)
	return nil
}

// shutdownBudget splits ShutdownGrace, counted from the signal, between the
// steps of a shutdown: in-flight work until handBack, the workers returning
// until workersBy, closing the engines and the database until closeBy, which
// falls short of the grace by a margin for the process to exit.
type shutdownBudget struct {
	handBack, workersBy, closeBy time.Duration
}

func newShutdownBudget(grace time.Duration) shutdownBudget {
	// A tenth of the grace, at most a second, for each step after the hand
	// back and for the exit: 16 s of work within 20 s, 1.2 s within 2 s.
	step := min(grace/10, time.Second)
	return shutdownBudget{handBack: grace - 4*step, workersBy: grace - 3*step, closeBy: grace - step}
}

// shutdownGrace is SHUTDOWN_GRACE, or its default for a Config built by hand.
func (l *Local) shutdownGrace() time.Duration {
	if l.Config.ShutdownGrace > 0 {
		return l.Config.ShutdownGrace
	}
	return 20 * time.Second
}

// requeueOrphans gives every unfinished job without a queue message one: a
// crash between storing a job and queueing it must not strand the job.
func (l *Local) requeueOrphans(ctx context.Context) error {
	pending, err := l.DB.Queue().PendingJobIDs(ctx)
	if err != nil {
		return fmt.Errorf("listing queued messages: %w", err)
	}
	requeued, err := l.Service.RequeueUnfinished(ctx, func(id string) bool { return pending[id] })
	if err != nil {
		return err
	}
	if requeued > 0 {
		l.Logger.Info("requeued unfinished jobs that had no queue message", "count", requeued)
	}
	return nil
}

// StaleTempAge is how old a temporary file must be before the sweep removes
// it. The process's own temporaries live for one request or one write
// (seconds; a slow client's presigned upload, minutes), so an hour-old one
// belongs to a process that was killed. Other processes sharing the OS
// temporary directory keep theirs: they are younger than this while in use.
const StaleTempAge = time.Hour

// tempPatterns are the files this process names in the OS temporary
// directory: upload spools (jobs.SpoolPattern) and the embedded engine's
// keyterm models (engines/sphinx, removed right after being read). The
// engine's model directory (callscribe-sphinx-*) is not among them: it lives
// as long as its process, so its age says nothing.
var tempPatterns = []string{jobs.SpoolPattern, "callscribe-keyterms-*.arpa"}

// sweepTemps removes temporary files older than StaleTempAge from every place
// the process writes them: the audio store's tree (diskaudio) and the OS
// temporary directory. SQLite's own files (-wal, -shm, -journal) are SQLite's
// to recover and are never matched.
func (l *Local) sweepTemps(now time.Time) {
	cutoff := now.Add(-StaleTempAge)
	n, err := l.Audio.RemoveStaleTemps(cutoff)
	if err != nil {
		l.Logger.Error("removing stale temporary audio files failed", "err", err)
	}
	m, err := removeStaleTempFiles(os.TempDir(), tempPatterns, cutoff)
	if err != nil {
		l.Logger.Error("removing stale spool files failed", "err", err)
	}
	if n+m > 0 {
		l.Logger.Info("removed temporary files left by a killed process", "audio", n, "spool", m)
	}
}

// removeStaleTempFiles deletes the regular files directly in dir matching one
// of patterns (os.CreateTemp patterns) and last written before cutoff.
func removeStaleTempFiles(dir string, patterns []string, cutoff time.Time) (int, error) {
	removed := 0
	for _, pattern := range patterns {
		matches, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return removed, err
		}
		for _, p := range matches {
			info, err := os.Lstat(p)
			if err != nil || !info.Mode().IsRegular() || !info.ModTime().Before(cutoff) {
				continue
			}
			if os.Remove(p) == nil {
				removed++
			}
		}
	}
	return removed, nil
}

// searchMergeCheck is how often the local process looks at the search index,
// and searchMergeSegments how fragmented it must be to be merged then: a
// burst of writes (an import, a busy hour) leaves the index in many segments,
// each of which every search reads, long before the hourly merge.
const (
	searchMergeCheck    = time.Minute
	searchMergeSegments = 8
)

// searchMergeLoop merges the search index when a burst of writes has left it
// in searchMergeSegments segments or more.
func (l *Local) searchMergeLoop(ctx context.Context) {
	tick := time.NewTicker(searchMergeCheck)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if merged, err := l.DB.OptimizeSearch(ctx, searchMergeSegments); err != nil && ctx.Err() == nil {
			l.Logger.Error("merging the search index failed", "err", err)
		} else if merged {
			l.Logger.Info("merged the search index after a burst of writes")
		}
	}
}

// purgeLoop removes the records of jobs deleted more than RETENTION_DAYS ago,
// abandoned staged uploads and stale temporary files, and merges the search
// index, hourly.
func (l *Local) purgeLoop(ctx context.Context) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		before := time.Now().Add(-time.Duration(l.Config.RetentionDays) * 24 * time.Hour)
		if n, err := l.DB.Jobs().PurgeDeletedJobs(ctx, before); err != nil {
			if ctx.Err() == nil {
				l.Logger.Error("purging deleted jobs failed", "err", err)
			}
		} else if n > 0 {
			l.Logger.Info("purged deleted jobs past retention", "count", n)
		}
		if n, err := l.Service.PurgeExpiredIdempotencyKeys(ctx); err != nil {
			if ctx.Err() == nil {
				l.Logger.Error("purging expired idempotency keys failed", "err", err)
			}
		} else if n > 0 {
			l.Logger.Info("purged expired idempotency keys", "count", n)
		}
		// One full-text segment again: searches look every word up in each.
		if _, err := l.DB.OptimizeSearch(ctx, 2); err != nil && ctx.Err() == nil {
			l.Logger.Error("optimizing the search index failed", "err", err)
		}
		l.sweepTemps(time.Now())
		// Like the bucket's lifecycle rule: staged uploads left for a day were abandoned.
		if n, err := l.Audio.RemoveStaleUploads(jobs.UploadsPrefix, time.Now().Add(-24*time.Hour)); err != nil {
			l.Logger.Error("removing abandoned staged uploads failed", "err", err)
		} else if n > 0 {
			l.Logger.Info("removed abandoned staged uploads", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
