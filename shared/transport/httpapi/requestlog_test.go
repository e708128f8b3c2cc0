package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestRequestLoggerPutsTheRequestIDOnEveryLine(t *testing.T) {
	var out bytes.Buffer
	base := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	log := requestLogger(base, "req-1")
	log.Info("plain", "k", 1)
	log.With("jobId", "j-1").Warn("with attrs")
	log.WithGroup("g").Info("grouped", "k", 2)
	log.Debug("below the level")

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got %d:\n%s", len(lines), out.String())
	}
	for _, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if m["requestId"] != "req-1" {
			t.Errorf("requestId missing or not top-level: %s", line)
		}
	}
	if !strings.Contains(lines[1], `"jobId":"j-1"`) || !strings.Contains(lines[2], `"g":{"k":2}`) {
		t.Errorf("attributes or group lost:\n%s", out.String())
	}
}
