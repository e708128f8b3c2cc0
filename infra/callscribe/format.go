package main

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// clock formats a transcript offset in seconds as mm:ss.s (minutes grow past
// 59 rather than adding an hour field), rounded to the tenth of a second.
func clock(seconds float64) string {
	if math.IsNaN(seconds) || seconds < 0 {
		seconds = 0
	}
	tenths := int64(math.Round(seconds * 10))
	m := tenths / 600
	rest := tenths % 600
	return fmt.Sprintf("%02d:%02d.%d", m, rest/10, rest%10)
}

// turnLine is one transcript turn: `[mm:ss.s] Agent: text`.
func turnLine(start float64, speaker, text string) string {
	if speaker == "" {
		speaker = "Speaker"
	}
	return fmt.Sprintf("[%s] %s: %s", clock(start), speaker, oneLine(text))
}

// oneLine folds newlines and runs of blanks into single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// orDash is s, or "-" when blank (table cells).
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return oneLine(s)
}

// formatWhen formats a timestamp for tables: UTC, to the second.
func formatWhen(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// formatSeconds formats an audio duration for tables: 1.5s, 3m04.2s.
func formatSeconds(s float64) string {
	if s <= 0 {
		return "-"
	}
	if s < 60 {
		return fmt.Sprintf("%.1fs", s)
	}
	tenths := int64(math.Round(s * 10))
	return fmt.Sprintf("%dm%02d.%ds", tenths/600, tenths%600/10, tenths%10)
}

// formatMinutes formats a minute figure of the usage record.
func formatMinutes(m float64) string {
	return fmt.Sprintf("%.2f min", m)
}
