// Package dynamodb implements callscribe.JobStore and callscribe.AccountStore on
// Amazon DynamoDB with aws-sdk-go-v2. Both pass the contract suites of package
// storetest against DynamoDB Local.
//
// # Key design
//
// Four tables (names in TableNames; definitions in TableDefinitions, which
// CreateTables uses and template.yaml mirrors), all on-demand:
//
// Jobs, partition key id (S). Attributes are the Job fields in snake_case; JSON
// fields (metadata, input, callback, result, error) are stored as JSON strings,
// except that a result or a derived job's input over 32 KB is stored as its
// gzip-compressed bytes (B; see "Large results" below); times are
// fixed-width UTC strings "2006-01-02T15:04:05.000000000Z" so that
// string order is time order and nanoseconds survive. Items written before jobs
// had a type have no `type` attribute; they read as transcription and match a
// type=transcription filter. Six GSIs; the five listing indexes are
// sparse through list_sk (deleting a job removes it, which takes the job out
// of every listing index at once):
//
//   - account-created-index: account_id (HASH) + list_sk (RANGE), projection
//     INCLUDE of the job-summary attributes (type, status, source_job_id,
//     original_filename, language, audio_seconds, audio_format, quota_month,
//     attempts, created_at, updated_at): listed jobs carry those fields only, and
//     result, input, metadata, callback and error, the bulk of an item, stay out of
//     the index. list_sk = created_at + "#" + id, so a Query with ScanIndexForward=false lists
//     an account newest first in (created_at DESC, id DESC) order. created_after is
//     a key condition (list_sk > created_after + "~"; "~" sorts after "#", so a job
//     created exactly at created_after is excluded). The job_id filter is a
//     consistent GetItem.
//
//   - account-status-index, account-type-index, account-language-index:
//     account_status, account_type or account_language (HASH) + list_sk (RANGE),
//     the same projection plus account_id. Their partition keys are account_id +
//     "#" + the job's status, type (transcription for items without a type) or
//     language (absent, so the job is not in the index, while it has none): one
//     partition is exactly one account's jobs with that value, in listing order,
//     so a status, type or language filter is a key condition and a page reads
//     limit+1 items however many jobs the account has (a filter that matches
//     nothing reads none). A FilterExpression would cost read units in
//     proportion to the account instead: DynamoDB bills the items it reads
//     before filtering. Composite partition keys were chosen over composite sort
//     keys (status#created_at#id under account_id) because they need one
//     sort key for all indexes, keep created_after a plain range on list_sk,
//     and spread a large account's filtered reads over several partitions.
//
//   - account-source-index: account_source (HASH) + list_sk (RANGE), the
//     same projection as the three above. account_source = account_id + "#" +
//     source_job_id is written only on derived jobs (summaries, tags) that
//     have a source, never on transcriptions, so the index holds a small part
//     of the table and one partition is exactly one transcription's derived
//     jobs in listing order: the source_job_id filter (the dashboard's review
//     screen loads a call's summaries and tags by it) is a key condition and
//     reads limit+1 items at most. A job's source never changes, so no
//     transition touches the key.
//
//     ListJobs queries the index of the most selective equality filter
//     (callscribe.JobFilter.IndexField, a fixed ranking, as the store keeps no
//     statistics); the other filters of a combination are a FilterExpression
//     (and account_id is checked too, so an account id containing "#" could
//     never reach another account's partition). Such a query reads in batches
//     growing from the page size to 100, at most ListReadBudget (1000) items per
//     call; when the budget runs out before the page is full, the page is
//     returned short (possibly empty) with Next at the position of the last item
//     read, taken from LastEvaluatedKey's list_sk, so the next call resumes right
//     after it: paging on lists every match once, in order, and each request
//     costs at most the budget. Otherwise the store keeps querying until it has
//     limit+1 matching items or the index is exhausted, so Next is nil exactly
//     on the last page. Next is a Position (created_at, id); the next page's
//     ExclusiveStartKey is rebuilt from it (the index's partition key, list_sk,
//     id), so no LastEvaluatedKey ever leaves the package and the HTTP layer
//     makes the opaque, tamper-evident cursor.
//
//     The keys are written with the job, and every transition rewrites
//     account_status (and account_type, idempotently) and, when it records a
//     detected language, sets account_language with if_not_exists as it does
//     language, in the same conditional UpdateItem or quota-release transaction
//     that changes the status: a job moves between partitions exactly when its
//     status changes. The account is not part of a Transition, so a transition
//     first reads the job's account_id, type and language (a consistent GetItem;
//     none of them changes once set; read units are by item size, at most a
//     quarter of the update's write units) and the write is conditioned on that
//     account. Items written before these indexes existed lack the keys;
//     BackfillListingKeys writes them (one Scan), and CloudFormation adds one
//     GSI per stack update, so an existing stack takes one update per index it
//     lacks first (four before any filtered index; one, account-source-index,
//     after the other three), and derived jobs created before
//     account-source-index need the backfill to be listed by source.
//
//   - lifecycle-index: lifecycle (HASH) + lifecycle_at (RANGE), projection
//     KEYS_ONLY, sparse: only jobs in queued/processing (lifecycle="unfinished",
//     lifecycle_at=list_sk) or deleted (lifecycle="deleted",
//     lifecycle_at=deleted_at+"#"+id) are in it. UnfinishedJobIDs queries the first
//     oldest first; PurgeDeletedJobs queries the second with lifecycle_at < cutoff.
//     Both partitions hold few items at any time (finished live jobs, the bulk of
//     the table, are not in the index), so the constant hash keys stay small.
//
// Large results: an item is capped at 400 KB (names and values), and a
// transcription's result with word timings, confidences and segment
// sentiment is about 16 KB of JSON a minute of call (about 960 KB an hour
// measured on real results; the synthetic result of largeresult_test.go is
// made to match, 965 KB), so above compressAbove (32 KB) result and input
// are stored gzip-compressed: the timings and confidences are mostly random
// digits, and the measured ratio is 4.5, 215 KB an hour. Reads take either form (items written
// before keep plain strings), so GetJob, the listings, the search
// confirmation and the backfills return the same bytes as before. Before a
// succeed transition the store sizes the job's item without the result
// (readListed reads it whole) and the compressed result; when the result
// does not fit in itemLimitBytes less that and a 2 KB margin, the transition
// fails the job instead (same compare-and-set from processing, quota
// released, nothing of the result or its search terms written) with
// callscribe.JobErrResultTooLarge, and logs it. Otherwise DynamoDB would
// refuse the write (ValidationException) on every retry and the job would
// end as internal_error. A job with little metadata and no keyterms has
// about 406 KB of room: about 110 minutes of call (resultMinutesThatFit; a
// two-hour result is 430 KB compressed and fails); 64 KiB of metadata or
// keyterms each take about 18 minutes off. A summary or tags job of a call
// near that limit holds the call's segments as its input and may itself
// fail with result_too_large. Longer calls need the result stored outside
// the item (in the audio bucket, the item keeping its key).
//
// Every state change is a conditional write: transitions use ConditionExpression
// attribute_exists(id) AND attribute_not_exists(deleted_at) AND status IN (From...),
// with ReturnValuesOnConditionCheckFailure=ALL_OLD to tell CONFLICT (item exists)
// from JOB_NOT_FOUND (no item). Each write also adds 1 to `rev`, the item's
// revision, used as an optimistic lock where a write depends on a prior read.
//
// Deleting sets deleted_at and expires_at (epoch seconds = deleted_at + the
// retention given to NewJobStore); reads and listings hide the job at once, and
// DynamoDB TTL on expires_at purges it later (TTL runs within days of expiry, so
// PurgeDeletedJobs can also remove them explicitly).
//
// Usage, partition key account_id (S) + sort key month (S, "2006-01"): one item
// per account and UTC month with used_seconds (N). CreateJob with a quota
// reservation is a TransactWriteItems of the job Put (attribute_not_exists(id))
// and an Update `ADD used_seconds :file` under the condition used_seconds <=
// limit - file (with no usage item yet, used is 0 and file <= limit is checked
// before writing). When the condition fails nothing is stored, and the usage item
// is read to fill the QUOTA_EXCEEDED details. Failing a job that holds quota
// updates the job and subtracts its seconds in one TransactWriteItems (the job
// update conditioned on the revision read just before, and marking the job
// quota_released so a second failure cannot release twice). Transactions cancelled
// by a concurrent transaction on the same usage item are retried with backoff.
//
// The same table holds one item per account and UTC day, sort key
// "day#2006-01-02" (usagedays.go): used_seconds and jobs (N), and one
// "lang:<language given at upload>" (N) per language. The reservation
// transaction ADDs the job's seconds and 1 to its day (the UTC day of its
// created_at) and the release transaction ADDs their negation, so the day
// items follow the month item exactly. DailyUsage is one Query of a day range.
// Search, partition key term_key (S) = account_id#word + sort key list_sk
// (S): the term index of search across calls, one item per word of a job,
// written before its result and removed when it is deleted (search.go has
// the design, the read path and the limits).
//
// Accounts, partition key email (S): the lower-cased email, so a conditional
// Put (attribute_not_exists(email)) enforces case-insensitive uniqueness; the
// email as typed is kept in email_display.
//
// APIKeys, partition key hash (S): the hex SHA-256 of the secret, so
// authentication is one consistent GetItem. GSIs: account-index (account_id +
// list_sk = created_at#id, ALL) lists an account's keys newest first; id-index
// (id, KEYS_ONLY) maps a key id to its hash for TouchAPIKey and RevokeAPIKey.
// Revoking deletes the item, so the key stops working at once.
//
// GSIs are eventually consistent on AWS (DynamoDB Local updates them
// synchronously): a listing issued within a fraction of a second of a create,
// transition or delete may not reflect it yet. GetJob, APIKeyByHash and every
// conditional write read the base table and are strongly consistent.
package dynamodb
