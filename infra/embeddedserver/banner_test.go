package main

import (
	"os"
	"strings"
	"testing"
)

// The start-up banner gives the CLI's quick start with the address the
// server listens on (not the CLI's default here: a free port).
func TestBannerHasCLIQuickStart(t *testing.T) {
	s := startService(t)
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"go build -o callscribe ./infra/callscribe\n",
		"export CALLSCRIBE_BASE_URL=http://" + s.addr + "\n",
		"./callscribe transcribe --wait call.wav\n",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the banner lacks %q:\n%s", want, b)
		}
	}
	if cliBaseURLLine("127.0.0.1:8080") != "" {
		t.Error("the default address needs no export line")
	}
}
