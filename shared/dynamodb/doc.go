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
// fields (metadata, input, callback, result, error) are stored as JSON strings;
// times are fixed-width UTC strings "2006-01-02T15:04:05.000000000Z" so that
// string order is time order and nanoseconds survive. Items written before jobs
// had a type have no `type` attribute; they read as transcription and match a
// type=transcription filter. Two GSIs:
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
//     consistent GetItem. Status, type and language are a FilterExpression; since
//     DynamoDB applies Limit before filtering, ListJobs keeps querying until it
//     has Limit+1 matching items or the index is exhausted, so a page is never
//     short while more items match, and Next is nil exactly on the last page.
//     Next is the Position (created_at, id) of the page's last job; the next page's
//     ExclusiveStartKey is rebuilt from it (account_id, list_sk, id), so no
//     LastEvaluatedKey ever leaves the package and the HTTP layer makes the opaque,
//     tamper-evident cursor. Deleting a job removes list_sk, which takes it out of
//     this (sparse) index.
//   - lifecycle-index: lifecycle (HASH) + lifecycle_at (RANGE), projection
//     KEYS_ONLY, sparse: only jobs in queued/processing (lifecycle="unfinished",
//     lifecycle_at=list_sk) or deleted (lifecycle="deleted",
//     lifecycle_at=deleted_at+"#"+id) are in it. UnfinishedJobIDs queries the first
//     oldest first; PurgeDeletedJobs queries the second with lifecycle_at < cutoff.
//     Both partitions hold few items at any time (finished live jobs, the bulk of
//     the table, are not in the index), so the constant hash keys stay small.
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
