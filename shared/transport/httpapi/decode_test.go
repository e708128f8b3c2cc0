package httpapi

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestFormatTimeMatchesTheLayout(t *testing.T) {
	const layout = "2006-01-02T15:04:05.000Z"
	rng := rand.New(rand.NewPCG(1, 2))
	instants := []time.Time{
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2026, 11, 24, 23, 59, 59, 999999, time.FixedZone("east", 5*3600)),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),    // outside 0-9999: the fallback
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), // likewise
	}
	for range 10000 {
		instants = append(instants, time.Unix(0, rng.Int64N(1<<62)))
	}
	for _, at := range instants {
		if got, want := formatTime(at), at.UTC().Format(layout); got != want {
			t.Fatalf("formatTime(%v) = %q, want %q", at, got, want)
		}
	}
}
