package callscribe

import "time"

// DayUsage is what an account's uploads reserved on one UTC day: the same
// seconds its monthly quota counts, kept per day by the store in the atomic
// step that reserves them, and given back the same way when a job fails.
type DayUsage struct {
	Day     string  // "2006-01-02", UTC
	Seconds float64 // reserved by jobs that have not failed
	Jobs    int     // jobs whose seconds are in Seconds
	// LanguageSeconds splits Seconds by the language given at upload. The key
	// "" holds uploads that left the language to detection: the split is
	// written with the reservation, before any detection has run.
	LanguageSeconds map[string]float64
}

// UsageDay returns the UTC day key of t. A reservation belongs to the day of
// its job's CreatedAt, so a store can find the day again when it releases it.
func UsageDay(t time.Time) string { return t.UTC().Format("2006-01-02") }
