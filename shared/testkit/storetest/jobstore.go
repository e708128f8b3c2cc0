package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// RunJobStoreTests runs the JobStore contract against stores made by newStore,
// which is called once per subtest and should return an empty store (see the
// package comment for the one subtest that needs it really empty).
//
// Contract decisions the suite pins down beyond the interface comments:
//   - CreateJob records QuotaMonth from the reservation: quota.Month with a
//     reservation, "" without one, whatever job.QuotaMonth said; it sets
//     job.QuotaMonth accordingly on success. Only a job that really reserved
//     seconds can release them.
//   - CreateJob with an id that already exists fails (any error) and changes
//     nothing, quota included.
//   - ListJobs returns Next == nil exactly when no further matching job exists,
//     so a page that ends the set exactly has no Next; otherwise Next is the
//     position of the page's last job when the page is full. A page may be
//     short (even empty) with a Next when a store bounds the items one call
//     reads (DynamoDB, for a combination of filters): its Next then lies after
//     the last item it read, and paging on lists every matching job exactly
//     once, in order. Small data sets never meet such a bound, so the tests
//     that pin exact pages hold on every store.
//   - A status, type or language filter (one equality filter) reads its own
//     index: with a ReadCounter, the suite checks that one page reads at most
//     limit+1 items, whatever the account holds.
//   - A transition of a job that is already failed to failed releases nothing.
func RunJobStoreTests(t *testing.T, newStore func(t *testing.T) callscribe.JobStore) {
	tests := []struct {
		name string
		run  func(t *testing.T, s callscribe.JobStore)
	}{
		{"CreateGet/RoundTripsEveryFieldOfATranscription", testRoundTripTranscription},
		{"CreateGet/RoundTripsEveryFieldOfDerivedJobs", testRoundTripDerived},
		{"CreateGet/RoundTripsAFailedJobWithProviderError", testRoundTripFailed},
		{"CreateGet/RoundTripsKeytermsInOrder", testRoundTripKeyterms},
		{"CreateGet/LegacyJobWithoutTypeIsATranscription", testLegacyType},
		{"CreateGet/DuplicateIDFailsAndChangesNothing", testDuplicateID},
		{"GetJob/MissingIsJobNotFound", testGetMissing},
		{"Quota/ReservationIsCounted", testQuotaReserved},
		{"Quota/ExceedingFailsWithDetailsAndStoresNothing", testQuotaExceeded},
		{"Quota/ReachingTheLimitExactlyIsAllowed", testQuotaExactLimit},
		{"Quota/ConcurrentReservationsNeverPassTheLimit", testQuotaConcurrent},
		{"Quota/MonthsAndAccountsAreSeparate", testQuotaSeparation},
		{"Quota/JobsWithoutReservationHoldNoQuota", testQuotaNoReservation},
		{"UsageDays/CountedOnTheUTCDayOfCreation", testUsageDaysCountedOnTheUTCDay},
		{"UsageDays/ReleasedOnFailureLikeTheMonth", testUsageDaysReleasedLikeTheMonth},
		{"UsageDays/OnlyReservationsCount", testUsageDaysOnlyReservationsCount},
		{"UsageDays/TwoMonthsByDayRange", testUsageDaysAcrossTwoMonths},
		{"Transition/AppliesFromAllowedStatus", testTransitionApplies},
		{"Transition/SetsResultAndError", testTransitionResultAndError},
		{"Transition/LongResultRoundTrips", testTransitionLongResult},
		{"Transition/RecordsDetectedLanguageOnlyWhenNone", testTransitionLanguage},
		{"Transition/SucceedMovesTheAudio", testTransitionAudio},
		{"Transition/ConflictWhenStatusNotInFrom", testTransitionConflict},
		{"Transition/MissingJobIsJobNotFound", testTransitionMissing},
		{"Transition/DeletedJobConflicts", testTransitionDeleted},
		{"Transition/ConcurrentTransitionsApplyOnce", testTransitionConcurrent},
		{"Transition/FailingReleasesQuotaOnce", testTransitionReleasesQuota},
		{"Transition/ReleaseUsesTheJobsQuotaMonth", testTransitionReleaseMonth},
		{"Delete/HidesJobAtOnce", testDeleteHides},
		{"Delete/KeepsQuotaUsed", testDeleteKeepsQuota},
		{"Delete/PurgeRemovesOnlyOlderDeletions", testPurge},
		{"List/NewestFirstWithTies", testListOrder},
		{"List/LimitAndNext", testListLimitAndNext},
		{"List/SummaryFields", testListSummaryFields},
		{"List/CursorSurvivesDeletionOfItsJob", testListCursorAfterDelete},
		{"List/EmptyAccount", testListEmpty},
		{"List/FiltersFollowTransitionsAndDeletes", testListFiltersFollowTransitions},
		{"List/FilterMatchingNothing", testListFilterMatchingNothing},
		{"List/BySourceJob", testListBySource},
		{"Search/WordsPhrasesSpeakersAndFilters", testSearch},
		{"Search/MatchesSayWhere", testSearchMatches},
		{"Search/FollowsDeletesAndPurges", testSearchFollowsDeletes},
		{"Search/PagingAmongManyCandidates", testSearchPagingAmongMany},
		{"UnfinishedJobIDs/LiveQueuedAndProcessingOldestFirst", testUnfinished},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newStore(t)) })
	}
	t.Run("List/Paging", func(t *testing.T) { testListPaging(t, newStore(t)) })
	t.Run("List/10kJobsReadsPerPage", func(t *testing.T) { testListReadsPerPage(t, newStore(t)) })
}

// newTranscription returns a queued transcription of the account, every field a
// fresh transcription carries set.
func newTranscription(accountID string, createdAt time.Time) *callscribe.Job {
	id := newID()
	return &callscribe.Job{
		ID:               id,
		AccountID:        accountID,
		Type:             callscribe.TypeTranscription,
		Status:           callscribe.StatusQueued,
		OriginalFilename: ptr("call 0001 (ünïcode).wav"),
		Language:         "en-US",
		AudioSeconds:     90.5,
		AudioKey:         "audio/" + id,
		AudioFormat:      callscribe.FormatWAV,
		Metadata:         json.RawMessage(`{"crm_id": 42, "labels": ["a", "b"], "nested": {"x": null, "y": 1.5}}`),
		CreatedAt:        createdAt,
		UpdatedAt:        createdAt,
	}
}

func quotaFor(month string, limit float64) *callscribe.QuotaReservation {
	return &callscribe.QuotaReservation{Month: month, LimitSeconds: limit}
}

func mustCreate(t *testing.T, s callscribe.JobStore, j *callscribe.Job, q *callscribe.QuotaReservation) {
	t.Helper()
	requireNoError(t, s.CreateJob(t.Context(), j, q), "CreateJob "+j.ID)
}

// mustReserve stores a queued transcription of seconds that reserves them
// under quota, and returns it.
func mustReserve(t *testing.T, s callscribe.JobStore, accountID string, createdAt time.Time, seconds float64, quota *callscribe.QuotaReservation) *callscribe.Job {
	t.Helper()
	j := newTranscription(accountID, createdAt)
	j.AudioSeconds = seconds
	mustCreate(t, s, j, quota)
	return j
}

func mustGet(t *testing.T, s callscribe.JobStore, id string) *callscribe.Job {
	t.Helper()
	j, err := s.GetJob(t.Context(), id)
	requireNoError(t, err, "GetJob "+id)
	if j == nil {
		t.Fatalf("GetJob %s: nil job with nil error", id)
	}
	return j
}

func usedSeconds(t *testing.T, s callscribe.JobStore, accountID, month string) float64 {
	t.Helper()
	used, err := s.UsedSeconds(t.Context(), accountID, month)
	requireNoError(t, err, "UsedSeconds")
	return used
}

func requireUsed(t *testing.T, s callscribe.JobStore, accountID, month string, want float64) {
	t.Helper()
	if got := usedSeconds(t, s, accountID, month); got != want {
		t.Fatalf("UsedSeconds(%s) = %v, want %v", month, got, want)
	}
}
