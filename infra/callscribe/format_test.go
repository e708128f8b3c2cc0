package main

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "00:00.0"},
		{1.5, "00:01.5"},
		{9.94, "00:09.9"},
		{59.96, "01:00.0"}, // rounds into the next minute, never "00:60.0"
		{61.25, "01:01.3"},
		{3600, "60:00.0"},
		{-1, "00:00.0"},
	} {
		if got := clock(c.in); got != c.want {
			t.Errorf("clock(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTurnLine(t *testing.T) {
	if got, want := turnLine(2.04, "Agent", "thank you\nfor  calling"), "[00:02.0] Agent: thank you for calling"; got != want {
		t.Errorf("turnLine = %q, want %q", got, want)
	}
	if got, want := turnLine(0, "", "hi"), "[00:00.0] Speaker: hi"; got != want {
		t.Errorf("turnLine without alias = %q, want %q", got, want)
	}
}

func TestTableCells(t *testing.T) {
	if got := orDash("  "); got != "-" {
		t.Errorf("orDash(blank) = %q", got)
	}
	if got := formatSeconds(0); got != "-" {
		t.Errorf("formatSeconds(0) = %q", got)
	}
	if got := formatSeconds(1.5); got != "1.5s" {
		t.Errorf("formatSeconds(1.5) = %q", got)
	}
	if got := formatSeconds(184.2); got != "3m04.2s" {
		t.Errorf("formatSeconds(184.2) = %q", got)
	}
	if got := formatWhen(time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600))); got != "2026-01-02 02:04:05Z" {
		t.Errorf("formatWhen = %q", got)
	}
	if got := formatMinutes(999.5); got != "999.50 min" {
		t.Errorf("formatMinutes = %q", got)
	}
}
