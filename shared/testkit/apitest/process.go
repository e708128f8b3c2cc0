package apitest

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Helpers for the tests that build a service binary and run it as a child
// process (infra/embeddedserver, infra/awsemulator).

// FreeAddr returns a loopback address with a port that was free a moment ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// GoTool is the go command of the toolchain running the tests.
func GoTool() string {
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return "go"
}
