package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/callscribe/callscribe/shared/client"
	"github.com/callscribe/callscribe/shared/stack/config"
)

// keys signing-secret shows the secret that verifies the callbacks, --rotate
// replaces it; jobs deliveries lists a tags job's attempts.
func TestSigningSecretAndDeliveries(t *testing.T) {
	base := startStackWith(t, 0, func(cfg *config.Config) { cfg.CallbackAllowHosts = []string{"127.0.0.1"} })
	var (
		mu       sync.Mutex
		received []*http.Request
		bodies   [][]byte
	)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		received, bodies = append(received, r), append(bodies, b)
		n := len(received)
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer receiver.Close()

	email, password := "hooks-"+uuid.NewString()[:8]+"@example.com", "a-long-password-123"
	anon, _ := client.New(base)
	if err := anon.Signup(context.Background(), email, password); err != nil {
		t.Fatal(err)
	}
	cli := &cliRunner{t: t, env: map[string]string{envBaseURL: base, envConfig: filepath.Join(t.TempDir(), "config.json")}}
	cli.ok(password+"\n", "login", "--email", email)
	cli.ok("", "keys", "create", "--save")

	r := cli.ok("Agent: Thanks for calling.\nUser: I was charged twice and want a refund.\n", "tag", "--text", "-", "--callback-url", receiver.URL+"/hook", "--wait", "--poll-interval", "50ms", "--json")
	var job client.Job
	if err := json.Unmarshal([]byte(r.stdout), &job); err != nil {
		t.Fatalf("tag --json: %v\n%s", err, r.stdout)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r = cli.ok("", "jobs", "deliveries", job.ID)
		if strings.Count(strings.TrimSpace(r.stdout), "\n") == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	host := strings.TrimPrefix(receiver.URL, "http://")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !regexp.MustCompile(`^2\s.*`+regexp.QuoteMeta(host)+`\s+200\s+delivered\s+-$`).MatchString(lines[1]) ||
		!regexp.MustCompile(`^1\s.*`+regexp.QuoteMeta(host)+`\s+502\s+retrying\s+\S`).MatchString(lines[2]) {
		t.Fatalf("jobs deliveries:\n%s", r.stdout)
	}

	secret := strings.TrimSpace(cli.ok("", "keys", "signing-secret").stdout)
	mu.Lock()
	for i, req := range received {
		if err := client.VerifyWebhook(secret, req.Header, bodies[i], time.Minute); err != nil {
			t.Errorf("attempt %d does not verify with keys signing-secret's %q: %v", i+1, secret, err)
		}
	}
	mu.Unlock()
	r = cli.ok("", "keys", "signing-secret", "--rotate")
	if rotated := strings.TrimSpace(r.stdout); rotated == secret || !strings.HasPrefix(rotated, "whsec_") || !strings.Contains(r.stderr, "previous secret keeps signing") {
		t.Errorf("keys signing-secret --rotate: stdout %q, stderr %q", r.stdout, r.stderr)
	}
}
