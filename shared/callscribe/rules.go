package callscribe

import "strings"

// The rules every JobStore applies inside its atomic writes and reads, beside
// the state machine's (states.go: a transition's effect, Job.Apply). They are
// written once; a store either calls them (SQLite applies a transition in
// memory inside its write transaction; DynamoDB's single-item listing filters
// in memory) or translates them into its own expression language (SQL WHERE
// clauses, DynamoDB condition and filter expressions), deriving the
// expression's inputs from these functions. The store contract suite
// (package storetest) holds every store to the same outcomes.

// quotaToleranceSeconds absorbs float rounding in sums of seconds: minutes are
// reported to 2 decimals and durations come from frame counts, so a file that
// exactly fills the month must not be refused because 0.1+0.2 != 0.3. A
// microsecond is far below anything that is ever reported or charged.
const quotaToleranceSeconds = 1e-6

// Allows reports whether reserving fileSeconds on top of usedSeconds keeps the
// month within the limit.
func (q QuotaReservation) Allows(usedSeconds, fileSeconds float64) bool {
	return usedSeconds+fileSeconds <= q.LimitSeconds+quotaToleranceSeconds
}

// MaxUsedBefore is the largest month usage that still Allows fileSeconds: the
// same rule rearranged for stores whose conditions cannot add (DynamoDB
// condition expressions have no arithmetic: "used <= MaxUsedBefore(file)").
// It is negative when the file alone exceeds the limit.
func (q QuotaReservation) MaxUsedBefore(fileSeconds float64) float64 {
	return q.LimitSeconds + quotaToleranceSeconds - fileSeconds
}

// Matches reports whether a job passes every filter (filters combine with AND;
// zero fields do not filter). A search is confirmed on the job's text, so j
// must be whole when the filter has one. A job stored before types existed is a
// transcription, as the spec's versioning rule says.
func (f JobFilter) Matches(j *Job) bool {
	switch {
	case f.Status != "" && j.Status != f.Status,
		f.Type != "" && j.Type.OrDefault() != f.Type,
		f.Language != "" && j.Language != f.Language,
		f.CreatedAfter != nil && !j.CreatedAt.After(*f.CreatedAfter),
		f.JobID != "" && j.ID != f.JobID,
		f.SourceJobID != "" && j.SourceJobID != f.SourceJobID,
		f.Search != nil && !f.Search.Confirm(j):
		return false
	}
	return true
}

// Confirm reports whether j, a whole job (its result and input, not only the
// listing fields), matches the query, and records where on j.Matches. Every
// store confirms the candidates its search index proposes with it.
func (q *SearchQuery) Confirm(j *Job) bool {
	matches, ok := q.Find(SearchDocumentOf(j))
	if ok {
		j.Matches = matches
	}
	return ok
}

// IndexField returns the equality filter a store should read by its index when
// a listing sets several, so the other filters are checked on as few rows as
// possible. Stores keep no statistics, so it ranks by how jobs are spread in
// practice: a source job has a handful of derived jobs (a summary, tags, a
// few retries), fewer than any other filter matches; queued, processing and failed jobs are a small part of an account
// (jobs pass through the first two and most succeed); summaries and tags are
// made from transcriptions, so fewer than them; a language is one of several;
// and transcriptions and succeeded jobs are most of an account. Ties keep that
// order (source before status before type before language). The answer is the same on every
// store, so a combination reads the same index everywhere.
func (f JobFilter) IndexField() FilterField {
	best, bestRank := FilterNone, 0
	consider := func(field FilterField, set bool, rank int) {
		if set && (best == FilterNone || rank < bestRank) {
			best, bestRank = field, rank
		}
	}
	consider(FilterSource, f.SourceJobID != "", 0)
	consider(FilterStatus, f.Status != "" && f.Status != StatusSucceeded, 1)
	consider(FilterType, f.Type != "" && f.Type.OrDefault() != TypeTranscription, 2)
	consider(FilterLanguage, f.Language != "", 3)
	consider(FilterType, f.Type.OrDefault() == TypeTranscription && f.Type != "", 4)
	consider(FilterStatus, f.Status == StatusSucceeded, 5)
	return best
}

// Follows reports whether j comes after position p in a listing's order
// (newest first by created_at, then id, both descending): the jobs a page
// that starts after p may show.
func (p Position) Follows(j *Job) bool {
	if !j.CreatedAt.Equal(p.CreatedAt) {
		return j.CreatedAt.Before(p.CreatedAt)
	}
	return strings.Compare(j.ID, p.JobID) < 0
}

// Includes reports whether a listing request shows j: the account's job,
// matching the filter, and after the request's cursor position.
func (r ListRequest) Includes(j *Job) bool {
	return j.AccountID == r.AccountID && r.Filter.Matches(j) && (r.After == nil || r.After.Follows(j))
}
