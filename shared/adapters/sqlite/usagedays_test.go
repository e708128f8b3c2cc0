package sqlite

import (
	"database/sql"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// TestUsageDaysMigrationCountsExistingJobs opens a database left just before
// the usage_days migration, holding jobs of two UTC days: the migration fills
// the day counters from the jobs that hold quota (deleted ones too, as the
// month counter keeps them; not failed or derived jobs).
func TestUsageDaysMigrationCountsExistingJobs(t *testing.T) {
	before := -1
	for i, m := range migrations {
		if strings.Contains(m, "CREATE TABLE usage_days") {
			before = i
		}
	}
	if before < 0 {
		t.Fatal("no usage_days migration")
	}
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	day1 := time.Date(2026, 11, 26, 23, 59, 0, 0, time.UTC).UnixNano()
	day2 := time.Date(2026, 11, 27, 0, 1, 0, 0, time.UTC).UnixNano()
	for _, stmt := range append(migrations[:before:before],
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		`INSERT INTO schema_version (version) VALUES (`+strconv.Itoa(before)+`)`,
	) {
		if _, err := raw.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for _, row := range []struct {
		id, status, quotaMonth, language string
		seconds                          float64
		created                          int64
		deleted                          bool
	}{
		{"a", "succeeded", "2026-11", "en", 60, day1, false},
		{"b", "queued", "2026-11", "en", 30, day1, true},
		{"c", "succeeded", "2026-11", "", 15, day2, false},
		{"failed", "failed", "2026-11", "en", 1000, day1, false},
		{"summary", "succeeded", "", "en", 0, day1, false},
	} {
		var deleted any
		if row.deleted {
			deleted = row.created
		}
		if _, err := raw.Exec(`INSERT INTO jobs (id, account_id, status, language, audio_seconds, quota_month, created_at, updated_at, deleted_at) VALUES (?, 'acc', ?, ?, ?, ?, ?, ?, ?)`,
			row.id, row.status, row.language, row.seconds, row.quotaMonth, row.created, row.created, deleted); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db := reopen(t, path)
	got, err := db.Jobs().DailyUsage(t.Context(), "acc", "2026-11-01", "2026-11-30")
	if err != nil {
		t.Fatal(err)
	}
	want := []callscribe.DayUsage{
		{Day: "2026-11-26", Seconds: 90, Jobs: 2, LanguageSeconds: map[string]float64{"en": 90}},
		{Day: "2026-11-27", Seconds: 15, Jobs: 1, LanguageSeconds: map[string]float64{"": 15}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after migrating: %+v, want %+v", got, want)
	}
}
