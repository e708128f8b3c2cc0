package callback

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// receiver is a real HTTP server on loopback that records what it got.
type receiver struct {
	*httptest.Server
	hits atomic.Int32

	mu      sync.Mutex
	headers http.Header
	body    []byte
	method  string
}

// newReceiver starts a receiver whose handler answers with respond(hit number).
func newReceiver(t *testing.T, respond func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	t.Helper()
	rv := &receiver{}
	rv.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(rv.hits.Add(1))
		body, _ := io.ReadAll(r.Body)
		rv.mu.Lock()
		rv.headers, rv.body, rv.method = r.Header.Clone(), body, r.Method
		rv.mu.Unlock()
		respond(n, w, r)
	}))
	t.Cleanup(rv.Close)
	return rv
}

func status(code int) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

// hostPort returns the receiver's "127.0.0.1:port".
func (rv *receiver) hostPort() string { return strings.TrimPrefix(rv.URL, "http://") }

func samplePayload() callscribe.TagDeliveredPayload {
	p, err := BuildPayload(tagsJob(callscribe.StatusSucceeded, `{"tags":{"agent_approach":["empathetic"],"call_outcome":["resolved"],"customer_sentiment":["positive"]}}`), msgID)
	if err != nil {
		panic(err)
	}
	return p
}

func delivery(url string) callscribe.CallbackDelivery {
	return callscribe.CallbackDelivery{URL: url, Payload: samplePayload()}
}

// loopbackNotifier may reach 127.0.0.1 over http, as local development does.
func loopbackNotifier(timeout time.Duration) *Notifier {
	return NewNotifier(NotifierConfig{AllowHosts: ParseAllowHosts("127.0.0.1"), Timeout: timeout})
}

func TestDeliverSuccess204(t *testing.T) {
	rv := newReceiver(t, status(http.StatusNoContent))
	if err := loopbackNotifier(0).Deliver(t.Context(), delivery(rv.URL+"/hook")); err != nil {
		t.Fatalf("Deliver to a 204 receiver: %v", err)
	}
	if rv.hits.Load() != 1 {
		t.Fatalf("receiver hit %d times, want 1", rv.hits.Load())
	}
}

func TestDeliverAny2xxIsSuccessAndBodyIgnored(t *testing.T) {
	for _, code := range []int{200, 201, 202, 299} {
		rv := newReceiver(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(code)
			// A body bigger than the drain limit must not matter.
			_, _ = w.Write([]byte(strings.Repeat("x", 3*maxDrain)))
		})
		if err := loopbackNotifier(0).Deliver(t.Context(), delivery(rv.URL)); err != nil {
			t.Errorf("status %d: %v", code, err)
		}
	}
}

func TestDeliverRequestShape(t *testing.T) {
	rv := newReceiver(t, status(http.StatusOK))
	d := delivery(rv.URL + "/hooks/tags?tenant=7")
	d.APIKey = "gw-key-123"
	if err := loopbackNotifier(0).Deliver(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.method != http.MethodPost {
		t.Errorf("method = %s, want POST", rv.method)
	}
	for name, want := range map[string]string{"Content-Type": "application/json", "Apikey": "gw-key-123", "User-Agent": DefaultUserAgent} {
		if got := rv.headers.Get(name); got != want {
			t.Errorf("header %s = %q, want %q", name, got, want)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(rv.body, &m); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, rv.body)
	}
	assertWireShape(t, m, "succeeded", "call-42", tagsJob("", "").ID, msgID, map[string][]string{
		"agent_approach": {"empathetic"}, "call_outcome": {"resolved"}, "customer_sentiment": {"positive"},
	})
}

func TestDeliverNoAPIKeyHeaderWhenUnsetAndArraysNeverNull(t *testing.T) {
	rv := newReceiver(t, status(http.StatusOK))
	d := delivery(rv.URL)
	// A hand-built payload with nil slices must still go out as arrays.
	d.Payload = callscribe.TagDeliveredPayload{Status: "failed", CallUUID: "c-1", Data: callscribe.TagDeliveredData{RequestID: "r-1", MsgID: "m-1"}}
	n := NewNotifier(NotifierConfig{AllowHosts: []string{"127.0.0.1"}, UserAgent: "test-agent/2"})
	if err := n.Deliver(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if _, ok := rv.headers["Apikey"]; ok {
		t.Errorf("apikey header sent although unset: %q", rv.headers.Get("apikey"))
	}
	if got := rv.headers.Get("User-Agent"); got != "test-agent/2" {
		t.Errorf("User-Agent = %q, want the configured one", got)
	}
	const want = `{"status":"failed","call_uuid":"c-1","data":{"tags":[{"agent_approach":[],"call_outcome":[],"customer_sentiment":[]}],"request_id":"r-1","msg_id":"m-1"}}`
	if string(rv.body) != want {
		t.Errorf("body =\n%s\nwant\n%s", rv.body, want)
	}
}

func TestDeliverFailsOn500ThenSucceeds(t *testing.T) {
	rv := newReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	n := loopbackNotifier(0)
	err := n.Deliver(t.Context(), delivery(rv.URL))
	se, ok := errors.AsType[*StatusError](err)
	if !ok || se.StatusCode != http.StatusInternalServerError {
		t.Fatalf("first attempt: err = %v, want a StatusError 500", err)
	}
	if !strings.Contains(err.Error(), "500") {
		t.Errorf("error %q does not name the status", err)
	}
	if err := n.Deliver(t.Context(), delivery(rv.URL)); err != nil {
		t.Fatalf("second attempt: %v", err)
	}
	if rv.hits.Load() != 2 {
		t.Fatalf("receiver hit %d times, want 2 (one per Deliver)", rv.hits.Load())
	}
}

func TestDeliverNon2xxStatusesFail(t *testing.T) {
	for _, code := range []int{100 + 3, 400, 401, 404, 429, 503} {
		rv := newReceiver(t, status(code))
		err := loopbackNotifier(0).Deliver(t.Context(), delivery(rv.URL))
		if code == 103 {
			// 1xx are informational; the server then sends its final 200.
			if err != nil {
				t.Errorf("103 then 200: %v", err)
			}
			continue
		}
		if se, ok := errors.AsType[*StatusError](err); !ok || se.StatusCode != code {
			t.Errorf("status %d: err = %v, want StatusError", code, err)
		}
	}
}

func TestDeliverDoesNotFollowRedirects(t *testing.T) {
	target := newReceiver(t, status(http.StatusOK))
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		redirector := newReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/elsewhere", code)
		})
		err := loopbackNotifier(0).Deliver(t.Context(), delivery(redirector.URL))
		if se, ok := errors.AsType[*StatusError](err); !ok || se.StatusCode != code {
			t.Fatalf("redirect %d: err = %v, want StatusError %d", code, err, code)
		}
		if !strings.Contains(err.Error(), "redirects are not followed") {
			t.Errorf("error %q does not say the redirect was not followed", err)
		}
		if redirector.hits.Load() != 1 {
			t.Errorf("redirector hit %d times, want 1", redirector.hits.Load())
		}
	}
	if target.hits.Load() != 0 {
		t.Fatalf("redirect target was hit %d times; redirects must not be followed", target.hits.Load())
	}
}

func TestDeliverTimesOutOnHangingReceiver(t *testing.T) {
	seen := make(chan struct{}, 1)
	release := make(chan struct{})
	rv := newReceiver(t, func(_ int, _ http.ResponseWriter, r *http.Request) {
		seen <- struct{}{}
		select { // hang until the client gives up or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release) // runs before rv.Close (registered earlier in Cleanup)

	start := time.Now()
	err := loopbackNotifier(200*time.Millisecond).Deliver(t.Context(), delivery(rv.URL))
	elapsed := time.Since(start)
	if !errors.Is(err, ErrAttemptTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrAttemptTimeout wrapping DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), "timed out after 200ms") {
		t.Errorf("error %q does not say it timed out", err)
	}
	select {
	case <-seen:
	default:
		t.Fatal("the receiver never saw the request")
	}
	if elapsed > 10*time.Second {
		t.Fatalf("Deliver took %s with a 200ms timeout", elapsed)
	}
}

func TestDeliverHonoursCallerCancellation(t *testing.T) {
	rv := newReceiver(t, func(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for rv.hits.Load() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	err := loopbackNotifier(time.Minute).Deliver(ctx, delivery(rv.URL))
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrAttemptTimeout) {
		t.Fatalf("err = %v, want context.Canceled and not a timeout", err)
	}
}

func TestDeliverTransportErrorNamesHostNotURL(t *testing.T) {
	// A listener closed at once: its port refuses connections.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	err = loopbackNotifier(0).Deliver(t.Context(), delivery("http://"+addr+"/hook?token=s3cret"))
	if err == nil {
		t.Fatal("Deliver to a closed port succeeded")
	}
	if !strings.Contains(err.Error(), addr) || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error %q should name %s and not echo the query", err, addr)
	}
	if errors.Is(err, ErrAddressRefused) || errors.Is(err, ErrAttemptTimeout) {
		t.Fatalf("connection refusal misreported: %v", err)
	}
}

// assertRefusedAtDial checks that err is an address refusal and the receiver
// never saw a request.
func assertRefusedAtDial(t *testing.T, err error, rv *receiver, wantInMsg string) {
	t.Helper()
	if !errors.Is(err, ErrAddressRefused) {
		t.Fatalf("err = %v, want ErrAddressRefused", err)
	}
	if !strings.Contains(err.Error(), wantInMsg) {
		t.Errorf("error %q does not contain %q", err, wantInMsg)
	}
	if rv != nil && rv.hits.Load() != 0 {
		t.Fatalf("receiver was hit %d times; the dial should have been refused", rv.hits.Load())
	}
}

func TestSSRFLoopbackRefusedAtDialWithoutAllowList(t *testing.T) {
	rv := newReceiver(t, status(http.StatusOK))
	n := NewNotifier(NotifierConfig{})
	// https so the URL rules pass and the decision falls to the dialer; the
	// refusal happens before the TLS handshake, so no certificate is needed.
	err := n.Deliver(t.Context(), delivery("https://"+rv.hostPort()+"/hook"))
	assertRefusedAtDial(t, err, rv, "127.0.0.1")
	assertRefusedAtDial(t, err, rv, "loopback")

	// Plain http to it is refused even earlier, by the URL rules.
	err = n.Deliver(t.Context(), delivery(rv.URL))
	if err == nil || !callscribe.IsCode(err, callscribe.CodeInvalidCallback) || rv.hits.Load() != 0 {
		t.Fatalf("http to loopback without allow list: err = %v, hits = %d", err, rv.hits.Load())
	}
}

func TestSSRFHostnameResolvingToLoopback(t *testing.T) {
	rv := newReceiver(t, status(http.StatusOK))
	_, port, _ := net.SplitHostPort(rv.hostPort())

	err := NewNotifier(NotifierConfig{}).Deliver(t.Context(), delivery("https://localhost:"+port+"/hook"))
	assertRefusedAtDial(t, err, rv, "localhost resolves to")

	// An allow list naming another host does not help.
	err = NewNotifier(NotifierConfig{AllowHosts: []string{"receiver.internal"}}).Deliver(t.Context(), delivery("https://localhost:"+port+"/hook"))
	assertRefusedAtDial(t, err, rv, "loopback")

	// Allowed by name, it is reached.
	if err := NewNotifier(NotifierConfig{AllowHosts: []string{"localhost"}}).Deliver(t.Context(), delivery("http://localhost:"+port+"/hook")); err != nil {
		t.Fatalf("allowed localhost: %v", err)
	}
	if rv.hits.Load() != 1 {
		t.Fatalf("receiver hit %d times, want 1", rv.hits.Load())
	}
}

func TestSSRFAllowedByIPOrCIDRReachesLoopback(t *testing.T) {
	rv := newReceiver(t, status(http.StatusOK))
	for _, allow := range []string{"127.0.0.1", "127.0.0.0/8", "::ffff:127.0.0.1"} {
		if err := NewNotifier(NotifierConfig{AllowHosts: ParseAllowHosts(allow)}).Deliver(t.Context(), delivery(rv.URL)); err != nil {
			t.Errorf("allow %q: %v", allow, err)
		}
	}
	// An IP entry lets any name that resolves to it through (over https, since
	// the name itself is not listed).
	_, port, _ := net.SplitHostPort(rv.hostPort())
	err := NewNotifier(NotifierConfig{AllowHosts: []string{"127.0.0.1"}}).Deliver(t.Context(), delivery("https://localhost:"+port))
	if errors.Is(err, ErrAddressRefused) {
		t.Errorf("localhost -> 127.0.0.1 refused although 127.0.0.1 is allowed: %v", err)
	}
	// A different loopback address is still refused.
	err = NewNotifier(NotifierConfig{AllowHosts: []string{"127.0.0.2"}}).Deliver(t.Context(), delivery("https://"+rv.hostPort()))
	if !errors.Is(err, ErrAddressRefused) {
		t.Errorf("127.0.0.1 with only 127.0.0.2 allowed: err = %v, want refusal", err)
	}
}

func TestSSRFInternalAddressesRefusedBeforeConnecting(t *testing.T) {
	// None of these may be contacted: the dialer's Control refuses them after
	// the socket is created and before connect(), so no packet leaves. The
	// allow list holds 127.0.0.1 to show it does not open other addresses.
	n := NewNotifier(NotifierConfig{AllowHosts: []string{"127.0.0.1"}, Timeout: 5 * time.Second})
	for url, want := range map[string]string{
		"https://169.254.169.254/latest/meta-data/": "link-local",
		"https://10.0.0.1/hook":                     "private",
		"https://10.255.1.2:8443/hook":              "private",
		"https://172.16.5.4/hook":                   "private",
		"https://192.168.0.1/hook":                  "private",
		"https://100.64.0.1/hook":                   "carrier-grade NAT",
		"https://0.0.0.0:9/hook":                    "unspecified",
		"https://[::1]:9/hook":                      "loopback",
		"https://[fd00:ec2::254]/hook":              "unique-local",
		"https://[fe80::1]/hook":                    "link-local",
		"https://[::ffff:169.254.169.254]/hook":     "link-local",
		"https://[::ffff:10.0.0.1]/hook":            "private",
		"https://[64:ff9b::a9fe:a9fe]/hook":         "link-local (embedded IPv4)",
	} {
		err := n.Deliver(t.Context(), delivery(url))
		if !errors.Is(err, ErrAddressRefused) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want an address refusal (%s)", url, err, want)
		}
	}
}

func TestSSRFIPv6LoopbackServer(t *testing.T) {
	l, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	}
	rv := &receiver{}
	rv.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		rv.hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	rv.Listener.Close()
	rv.Listener = l
	rv.Start()
	t.Cleanup(rv.Close)

	err = NewNotifier(NotifierConfig{}).Deliver(t.Context(), delivery("https://"+l.Addr().String()))
	assertRefusedAtDial(t, err, rv, "loopback")
	if err := NewNotifier(NotifierConfig{AllowHosts: ParseAllowHosts("[::1]")}).Deliver(t.Context(), delivery(rv.URL)); err != nil {
		t.Fatalf("allowed [::1]: %v", err)
	}
	if rv.hits.Load() != 1 {
		t.Fatalf("receiver hit %d times, want 1", rv.hits.Load())
	}
}

func TestDeliverRechecksURL(t *testing.T) {
	rv := newReceiver(t, status(http.StatusOK))
	n := NewNotifier(NotifierConfig{AllowHosts: []string{"127.0.0.1"}})
	for _, u := range []string{
		"", "not a url", "ftp://" + rv.hostPort(), "http://user:pw@" + rv.hostPort(),
		"http://127.0.0.2:1/", // http for a host that is not listed
	} {
		if err := n.Deliver(t.Context(), delivery(u)); !callscribe.IsCode(err, callscribe.CodeInvalidCallback) {
			t.Errorf("Deliver(%q): err = %v, want an INVALID_CALLBACK refusal", u, err)
		}
	}
	d := delivery(rv.URL)
	d.APIKey = "a\r\nInjected: yes"
	if err := n.Deliver(t.Context(), d); err == nil {
		t.Error("apikey with CRLF was sent")
	}
	if rv.hits.Load() != 0 {
		t.Fatalf("receiver hit %d times by refused deliveries", rv.hits.Load())
	}
}

func TestDeliverHTTPSToAllowedLoopback(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	n := NewNotifier(NotifierConfig{AllowHosts: []string{"127.0.0.1"}, TLSConfig: &tls.Config{RootCAs: pool}})
	if err := n.Deliver(t.Context(), delivery(srv.URL)); err != nil {
		t.Fatalf("https delivery: %v", err)
	}
	if hits.Load() != 1 {
		t.Fatalf("hits = %d, want 1", hits.Load())
	}
}

func TestNotifierIgnoresProxyEnvironment(t *testing.T) {
	// ProxyFromEnvironment skips loopback destinations, so an end-to-end proxy
	// test could not fail here; check the transport directly.
	tr, ok := NewNotifier(NotifierConfig{}).client.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("transport is %T", NewNotifier(NotifierConfig{}).client.Transport)
	}
	if tr.Proxy != nil {
		t.Fatal("transport uses a proxy function; proxies would bypass the dial-time address check")
	}
}

func TestDeliverReportsCallerDeadlineAsTimeout(t *testing.T) {
	rv := newReceiver(t, func(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	// The pipeline wraps Deliver in its own deadline; a shorter caller deadline
	// must read as a timeout too, with the budget that applied.
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	err := loopbackNotifier(time.Minute).Deliver(ctx, delivery(rv.URL))
	if !errors.Is(err, ErrAttemptTimeout) {
		t.Fatalf("err = %v, want ErrAttemptTimeout", err)
	}
	if strings.Contains(err.Error(), "1m0s") {
		t.Errorf("error %q reports the notifier's budget, not the caller's shorter one", err)
	}
}
