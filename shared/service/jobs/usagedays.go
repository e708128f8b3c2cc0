package jobs

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// TopLanguagesShown bounds DailyUsage.TopLanguages.
const TopLanguagesShown = 5

// DailyUsage is the usage history the dashboard draws: every UTC day of two
// calendar months, zeros included, and the languages with the most seconds
// over both.
type DailyUsage struct {
	Months []MonthUsage // the earlier month first
	// TopLanguages are the languages given at upload by seconds, most first
	// (ties by name), at most TopLanguagesShown, none with zero seconds.
	// Language "" is uploads that left it to detection.
	TopLanguages []LanguageUsage
}

// MonthUsage is one month's days; Seconds is their sum.
type MonthUsage struct {
	Month   string // "2006-01"
	Seconds float64
	Days    []callscribe.DayUsage
}

// LanguageUsage is the seconds reserved under one upload language.
type LanguageUsage struct {
	Language string
	Seconds  float64
}

// DailyUsage returns month (a "2006-01" key; "" for the current UTC month)
// and the month before it, from the store's per-day counters: one range read,
// whatever the number of jobs. INVALID_REQUEST for a malformed month.
func (s *Service) DailyUsage(ctx context.Context, accountID, month string) (*DailyUsage, error) {
	if month == "" {
		month = callscribe.QuotaMonth(s.now())
	}
	start, err := time.Parse("2006-01", month)
	if err != nil || start.Year() < 2000 || start.Year() > 9999 {
		return nil, callscribe.Errorf(callscribe.CodeInvalidRequest, "month must be a UTC month written YYYY-MM, such as \"2026-11\".")
	}
	first := start.AddDate(0, -1, 0)
	last := start.AddDate(0, 1, -1)
	stored, err := s.deps.Jobs.DailyUsage(ctx, accountID, callscribe.UsageDay(first), callscribe.UsageDay(last))
	if err != nil {
		return nil, err
	}
	byDay := make(map[string]callscribe.DayUsage, len(stored))
	for _, d := range stored {
		byDay[d.Day] = d
	}
	out := &DailyUsage{}
	languages := map[string]float64{}
	for m := first; !m.After(start); m = m.AddDate(0, 1, 0) {
		mu := MonthUsage{Month: callscribe.QuotaMonth(m)}
		for d := m; d.Month() == m.Month(); d = d.AddDate(0, 0, 1) {
			day := callscribe.UsageDay(d)
			du, ok := byDay[day]
			if !ok {
				du = callscribe.DayUsage{Day: day}
			}
			mu.Seconds += du.Seconds
			for lang, sec := range du.LanguageSeconds {
				languages[lang] += sec
			}
			mu.Days = append(mu.Days, du)
		}
		out.Months = append(out.Months, mu)
	}
	for lang, sec := range languages {
		if sec > 0 {
			out.TopLanguages = append(out.TopLanguages, LanguageUsage{Language: lang, Seconds: sec})
		}
	}
	slices.SortFunc(out.TopLanguages, func(a, b LanguageUsage) int {
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), cmp.Compare(a.Language, b.Language))
	})
	if len(out.TopLanguages) > TopLanguagesShown {
		out.TopLanguages = out.TopLanguages[:TopLanguagesShown]
	}
	return out, nil
}
