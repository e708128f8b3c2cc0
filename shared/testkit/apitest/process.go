package apitest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
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

// Binaries builds the service in the test's package directory once per set
// of build tags, for the black-box tests that start it as a child process:
// they run in parallel, and linking the same binary once per test would cost
// each of them seconds of CPU. A failed build fails every test that asks for
// the same tags. The package's TestMain calls Remove after m.Run.
type Binaries struct {
	// Name prefixes the binaries' file names.
	Name string

	mu     sync.Mutex
	dir    string
	byTags map[string]*binaryBuild
}

type binaryBuild struct {
	once sync.Once
	path string
	err  error
}

// Build returns the path of the service built with tags ("" for none),
// building it on the first call.
func (b *Binaries) Build(t testing.TB, tags string) string {
	t.Helper()
	b.mu.Lock()
	if b.dir == "" {
		dir, err := os.MkdirTemp("", b.Name+"-test-")
		if err != nil {
			b.mu.Unlock()
			t.Fatal(err)
		}
		b.dir = dir
	}
	if b.byTags == nil {
		b.byTags = map[string]*binaryBuild{}
	}
	bb := b.byTags[tags]
	if bb == nil {
		bb = &binaryBuild{path: filepath.Join(b.dir, b.Name+strings.ReplaceAll("-"+tags, ",", "-"))}
		b.byTags[tags] = bb
	}
	b.mu.Unlock()
	bb.once.Do(func() {
		wd, _ := os.Getwd()
		out, err := exec.Command(GoTool(), "build", "-tags", tags, "-o", bb.path, ".").CombinedOutput()
		if err != nil {
			bb.err = fmt.Errorf("go build -tags %q in %s: %v\n%s", tags, wd, err, out)
		}
	})
	if bb.err != nil {
		t.Fatal(bb.err)
	}
	return bb.path
}

// Remove deletes the binaries built.
func (b *Binaries) Remove() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}
