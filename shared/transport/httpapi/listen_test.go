package httpapi_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/transport/httpapi"
)

// Fifty slowloris connections (headers trickled a byte at a time, never
// finished) neither stop other clients from being served nor stay open past
// the header timeout. The server is NewHTTPServer's, with the header timeout
// shortened so the test does not wait ten seconds.
func TestSlowClientsDoNotStopOthers(t *testing.T) {
	srv := httpapi.NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true}`)
	}))
	if srv.ReadHeaderTimeout != httpapi.ReadHeaderTimeout || srv.ReadTimeout == 0 || srv.IdleTimeout == 0 || srv.MaxHeaderBytes != httpapi.MaxHeaderBytes {
		t.Fatalf("server without its timeouts: %+v", srv)
	}
	srv.ReadHeaderTimeout = 500 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	const slow = 50
	conns := make([]net.Conn, slow)
	for i := range conns {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
		conns[i] = c
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() { // keep trickling
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				for _, c := range conns {
					c.Write([]byte("a"))
				}
			}
		}
	}()

	hc := &http.Client{Timeout: 5 * time.Second}
	for i := 0; i < 20; i++ {
		resp, err := hc.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			t.Fatalf("request %d while %d slow clients hold connections: %v", i, slow, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}

	// Every slow connection is closed once its header time is up: the
	// server answers 408 or just closes, and reading then ends.
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := io.Copy(io.Discard, bufio.NewReader(c))
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("slow connection %d still open 5 s after the header timeout", i)
		}
	}
}
