package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// JobStore is callscribe.JobStore on DynamoDB (key design in the package comment).
type JobStore struct {
	client     *ddb.Client
	tables     TableNames
	retention  time.Duration
	listBudget int // ListReadBudget
}

var _ callscribe.JobStore = (*JobStore)(nil)

// NewJobStore returns a job store on the given tables. retention is how long a
// deleted job's item is kept before DynamoDB TTL purges it (expires_at =
// deleted_at + retention).
func NewJobStore(client *ddb.Client, tables TableNames, retention time.Duration) *JobStore {
	return &JobStore{client: client, tables: tables, retention: retention, listBudget: ListReadBudget}
}

func (s *JobStore) CreateJob(ctx context.Context, job *callscribe.Job, quota *callscribe.QuotaReservation) error {
	if job.ID == "" || job.AccountID == "" {
		return fmt.Errorf("create job: id and account id are required")
	}
	// The job holds quota exactly when it reserved some: QuotaMonth comes from the
	// reservation, never from the caller's job.
	stored := *job
	stored.QuotaMonth = ""
	if quota != nil {
		stored.QuotaMonth = quota.Month
	}
	item, err := jobItem(&stored)
	if err != nil {
		return err
	}
	put := &types.Put{
		TableName:                aws.String(s.tables.Jobs),
		Item:                     item,
		ConditionExpression:      aws.String("attribute_not_exists(#id)"),
		ExpressionAttributeNames: map[string]string{"#id": attrID},
	}
	if quota == nil {
		_, err := s.client.PutItem(ctx, &ddb.PutItemInput{
			TableName: put.TableName, Item: put.Item,
			ConditionExpression: put.ConditionExpression, ExpressionAttributeNames: put.ExpressionAttributeNames,
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			return callscribe.Errorf(callscribe.CodeConflict, "job %s already exists", job.ID)
		}
		if err != nil {
			return fmt.Errorf("put job %s: %w", job.ID, err)
		}
		job.QuotaMonth = ""
		return nil
	}

	file := job.AudioSeconds
	if !quota.Allows(0, file) {
		// Without a usage item the ADD condition below cannot fail, so a file that
		// alone exceeds the limit is refused here.
		return s.quotaExceeded(ctx, job.AccountID, quota, file)
	}
	reserve := &types.Update{
		TableName: aws.String(s.tables.Usage),
		Key:       usageKey(job.AccountID, quota.Month),
		// QuotaReservation.Allows(used, file), written as used <= MaxUsedBefore(file)
		// because condition expressions have no arithmetic.
		UpdateExpression:         aws.String("ADD #used :file"),
		ConditionExpression:      aws.String("attribute_not_exists(#used) OR #used <= :room"),
		ExpressionAttributeNames: map[string]string{"#used": attrUsedSeconds},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":file": num(file),
			":room": num(quota.MaxUsedBefore(file)),
		},
	}
	items := []types.TransactWriteItem{{Put: put}, {Update: reserve}}
	err = s.transact(ctx, items, func(reasons []types.CancellationReason) (error, bool) {
		switch {
		case reasonIs(reasons, 0, "ConditionalCheckFailed"):
			return callscribe.Errorf(callscribe.CodeConflict, "job %s already exists", job.ID), true
		case reasonIs(reasons, 1, "ConditionalCheckFailed"):
			return s.quotaExceeded(ctx, job.AccountID, quota, file), true
		}
		return nil, false
	})
	if err != nil {
		return err
	}
	job.QuotaMonth = quota.Month
	return nil
}

// quotaExceeded reads the month's usage for the error details. Nothing was written.
func (s *JobStore) quotaExceeded(ctx context.Context, accountID string, quota *callscribe.QuotaReservation, file float64) error {
	used, err := s.UsedSeconds(ctx, accountID, quota.Month)
	if err != nil {
		return err
	}
	return callscribe.QuotaExceeded(quota.LimitSeconds, used, file)
}

// transact runs a TransactWriteItems, retrying cancellations caused by concurrent
// transactions (DynamoDB does not queue them, it cancels one) up to
// callscribe.StoreTransactionAttempts times. decide maps other cancellations to an error; when it returns
// false the cancellation is reported as an unexpected error.
func (s *JobStore) transact(ctx context.Context, items []types.TransactWriteItem, decide func([]types.CancellationReason) (error, bool)) error {
	for attempt := 1; ; attempt++ {
		_, err := s.client.TransactWriteItems(ctx, &ddb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil
		}
		var tce *types.TransactionCanceledException
		if !errors.As(err, &tce) {
			var tcf *types.TransactionConflictException
			if errors.As(err, &tcf) && attempt < callscribe.StoreTransactionAttempts {
				if err := backoff(ctx, attempt); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("transact write: %w", err)
		}
		if e, ok := decide(tce.CancellationReasons); ok {
			return e
		}
		if anyReason(tce.CancellationReasons, "TransactionConflict") && attempt < callscribe.StoreTransactionAttempts {
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
			continue
		}
		return fmt.Errorf("transact write: %w", err)
	}
}

// backoff waits out the retry policy's delay after the attempt-th collision
// of a transaction (callscribe.StoreConflictBackoff).
func backoff(ctx context.Context, attempt int) error {
	d := callscribe.StoreConflictBackoff(attempt)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func reasonIs(reasons []types.CancellationReason, i int, code string) bool {
	return i < len(reasons) && aws.ToString(reasons[i].Code) == code
}

func anyReason(reasons []types.CancellationReason, code string) bool {
	for _, r := range reasons {
		if aws.ToString(r.Code) == code {
			return true
		}
	}
	return false
}

func usageKey(accountID, month string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrAccountID: str(accountID), attrMonth: str(month)}
}

func jobKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrID: str(id)}
}

func jobNotFound(id string) error {
	return callscribe.Errorf(callscribe.CodeJobNotFound, "Job %s was not found.", id)
}

func (s *JobStore) GetJob(ctx context.Context, id string) (*callscribe.Job, error) {
	sj, err := s.read(ctx, id)
	if err != nil {
		return nil, err
	}
	if sj == nil || sj.deleted {
		return nil, jobNotFound(id)
	}
	return sj.job, nil
}

// read returns the stored item (deleted or not), nil when absent; strongly consistent.
func (s *JobStore) read(ctx context.Context, id string) (*storedJob, error) {
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:      aws.String(s.tables.Jobs),
		Key:            jobKey(id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("get job %s: %w", id, err)
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return decodeJob(out.Item)
}

// listBatchFiltered is the largest Query Limit when a FilterExpression may
// drop items: DynamoDB applies Limit before filtering, so larger batches save
// round trips when few items match (queryPage starts with the page's size).
const listBatchFiltered = 100

// ListReadBudget is the most index items one ListJobs call reads when a
// combination of filters leaves some to check item by item (see queryPage).
// 1000 listed items are about 300 KB of index: some 40 read units, eventually
// consistent, a few Query round trips.
const ListReadBudget = 1000

// ListReadBudget returns the most items one ListJobs call reads.
func (s *JobStore) ListReadBudget() int { return s.listBudget }

// ListJobs returns a page of job summaries: listed jobs are guaranteed to carry
// only the attributes projected into the listing index (listedAttributes), not
// results, inputs, metadata, callbacks or errors; GetJob returns a whole job.
func (s *JobStore) ListJobs(ctx context.Context, req callscribe.ListRequest) (*callscribe.JobPage, error) {
	if req.Limit <= 0 {
		return nil, callscribe.Errorf(callscribe.CodeInvalidPagination, "limit must be positive")
	}
	if req.Filter.JobID != "" {
		return s.listOne(ctx, req)
	}
	q, empty := s.listQuery(req)
	if empty {
		return &callscribe.JobPage{Jobs: []*callscribe.Job{}}, nil
	}
	return s.queryPage(ctx, q, req.Limit)
}

// listingQuery is a listing Query and whether its FilterExpression drops items
// (filters left over beside the index's own).
type listingQuery struct {
	in       *ddb.QueryInput
	residual bool
}

// listQuery translates a listing request (callscribe.ListRequest.Includes)
// into a Query, newest first, on the index of its most selective equality
// filter (callscribe.JobFilter.IndexField): account-status-index,
// account-type-index or account-language-index, whose partition is the
// account's jobs with that value, or account-created-index without one.
// created_after is a key condition on list_sk, the cursor the start key, and
// the other equality filters of a combination a filter expression. empty
// reports a request that can match nothing (a cursor older than created_after),
// which DynamoDB would reject as a start key outside the key condition.
func (s *JobStore) listQuery(req callscribe.ListRequest) (q listingQuery, empty bool) {
	f := req.Filter
	index, hashAttr, hashValue := IndexAccountCreated, attrAccountID, req.AccountID
	switch f.IndexField() {
	case callscribe.FilterStatus:
		index, hashAttr, hashValue = IndexAccountStatus, attrAccountStatus, accountKey(req.AccountID, string(f.Status))
	case callscribe.FilterType:
		index, hashAttr, hashValue = IndexAccountType, attrAccountType, accountKey(req.AccountID, string(f.Type))
	case callscribe.FilterLanguage:
		index, hashAttr, hashValue = IndexAccountLanguage, attrAccountLanguage, accountKey(req.AccountID, f.Language)
	}
	keyCond := "#hash = :hash"
	names := map[string]string{"#hash": hashAttr}
	values := map[string]types.AttributeValue{":hash": str(hashValue)}
	var lower string
	if f.CreatedAfter != nil {
		// "~" sorts after "#" and every id character: excludes created_at == CreatedAfter.
		lower = formatTime(*f.CreatedAfter) + "~"
		keyCond += " AND #sk > :lower"
		names["#sk"] = attrListSK
		values[":lower"] = str(lower)
	}
	var startKey map[string]types.AttributeValue
	if req.After != nil {
		after := listKey(req.After.CreatedAt, req.After.JobID)
		if lower != "" && after <= lower {
			return listingQuery{}, true
		}
		startKey = map[string]types.AttributeValue{
			hashAttr:   str(hashValue),
			attrListSK: str(after),
			attrID:     str(req.After.JobID),
		}
	}

	var filters []string
	if f.Status != "" && index != IndexAccountStatus {
		filters = append(filters, "#status = :status")
		names["#status"] = attrStatus
		values[":status"] = str(string(f.Status))
	}
	if f.Type != "" && index != IndexAccountType {
		names["#type"] = attrType
		values[":type"] = str(string(f.Type))
		if f.Type == callscribe.TypeTranscription {
			filters = append(filters, "(#type = :type OR attribute_not_exists(#type))")
		} else {
			filters = append(filters, "#type = :type")
		}
	}
	if f.Language != "" && index != IndexAccountLanguage {
		filters = append(filters, "#lang = :lang")
		names["#lang"] = attrLanguage
		values[":lang"] = str(f.Language)
	}
	residual := len(filters) > 0
	if index != IndexAccountCreated {
		// The partition key already names the account; checking account_id as
		// well costs no read and keeps an account id that contained "#" from
		// ever listing another account's jobs.
		filters = append(filters, "#acc = :acc")
		names["#acc"] = attrAccountID
		values[":acc"] = str(req.AccountID)
	}
	in := &ddb.QueryInput{
		TableName:                 aws.String(s.tables.Jobs),
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String(keyCond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
		ExclusiveStartKey:         startKey,
	}
	if len(filters) > 0 {
		in.FilterExpression = aws.String(strings.Join(filters, " AND "))
	}
	return listingQuery{in: in, residual: residual}, false
}

// queryPage runs the listing query until the page is full, reading one item
// beyond it to tell whether there is a next page (so Next is nil on the last
// page instead of pointing at an empty one).
//
// Without leftover filters every item the index range yields is listed, so
// the query asks for exactly limit+1 items. With leftover filters DynamoDB
// reads items and then drops those that do not match (Limit counts items
// read, before filtering, and each is paid for), so the reads are bounded: in
// growing batches (the first as large as the page, up to listBatchFiltered),
// at most ListReadBudget items per call. When the budget runs out before the
// page is full the page is returned short (possibly empty), with Next at the
// last item read (matching or not): the next call resumes
// right after it, so no job is skipped or listed twice, and a caller paging
// through gets every matching job exactly once, in order, spending at most the
// budget per request.
func (s *JobStore) queryPage(ctx context.Context, q listingQuery, limit int) (*callscribe.JobPage, error) {
	in := q.in
	want := limit + 1
	read := 0
	var items []map[string]types.AttributeValue
	var stoppedAt map[string]types.AttributeValue // the last key read when the budget ran out
	for batch := 0; ; {
		if q.residual {
			// The first query asks for the page as if every item matched;
			// each further one for up to four times more, to at most
			// listBatchFiltered, and never past the budget.
			batch = min(max(want-len(items), min(4*batch, listBatchFiltered)), s.listBudget-read)
		} else {
			batch = want - len(items)
		}
		in.Limit = aws.Int32(int32(batch))
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list jobs: %w", err)
		}
		read += int(out.ScannedCount)
		items = append(items, out.Items...)
		if len(items) >= want || len(out.LastEvaluatedKey) == 0 {
			break
		}
		if q.residual && read >= s.listBudget {
			stoppedAt = out.LastEvaluatedKey
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}

	page := &callscribe.JobPage{Jobs: make([]*callscribe.Job, 0, min(limit, len(items)))}
	for _, item := range items[:min(limit, len(items))] {
		sj, err := decodeJob(item)
		if err != nil {
			return nil, err
		}
		page.Jobs = append(page.Jobs, sj.job)
	}
	switch {
	case len(items) > limit:
		last := page.Jobs[len(page.Jobs)-1]
		page.Next = &callscribe.Position{CreatedAt: last.CreatedAt, JobID: last.ID}
	case stoppedAt != nil:
		// LastEvaluatedKey stays inside the package: only its position leaves,
		// and the HTTP layer turns that into the usual signed cursor.
		sk := (&itemReader{item: stoppedAt}).str(attrListSK)
		pos, err := parseListKey(sk)
		if err != nil {
			return nil, fmt.Errorf("list jobs: resume key: %w", err)
		}
		page.Next = &pos
	}
	return page, nil
}

// listOne serves a listing filtered by job id with one consistent GetItem, then
// applies the other filters and the cursor in memory.
func (s *JobStore) listOne(ctx context.Context, req callscribe.ListRequest) (*callscribe.JobPage, error) {
	page := &callscribe.JobPage{Jobs: []*callscribe.Job{}}
	sj, err := s.read(ctx, req.Filter.JobID)
	if err != nil || sj == nil || sj.deleted {
		return page, err
	}
	if req.Includes(sj.job) {
		page.Jobs = append(page.Jobs, sj.job)
	}
	return page, nil
}

// listedJob is what a transition needs to know of the stored job to keep the
// filtered listing indexes in step: the account (their partition keys start
// with it), the type and the language (none changes once set). They are read
// before the write, and the write is conditioned on the account, so it can
// never pair a status with the wrong account.
type listedJob struct {
	accountID string
	jobType   callscribe.JobType // OrDefault
	language  string
}

// transitionUpdate builds the job update of a transition: the update expression
// and the condition (exists, live, status in From: the statuses the state
// machine lets the transition leave) are callscribe.Job.Apply written as
// DynamoDB expressions, with their names and values. The same write
// moves the job between the partitions of account-status-index (and into one
// of account-language-index when it learns its language), so the filtered
// listings see a transition exactly when the job's status changes.
func transitionUpdate(t callscribe.Transition, lj listedJob) (update, cond string, names map[string]string, values map[string]types.AttributeValue, err error) {
	names = map[string]string{
		"#id": attrID, "#status": attrStatus, "#updated": attrUpdatedAt,
		"#deleted": attrDeletedAt, "#rev": attrRev,
		"#lc": attrLifecycle, "#lcat": attrLifecycleAt,
		"#acc": attrAccountID, "#accstatus": attrAccountStatus, "#acctype": attrAccountType,
	}
	values = map[string]types.AttributeValue{
		":to": str(string(t.To)), ":at": str(formatTime(t.At)), ":one": numInt(1),
		":acc": str(lj.accountID), ":accstatus": str(accountKey(lj.accountID, string(t.To))),
		":acctype": str(accountKey(lj.accountID, string(lj.jobType.OrDefault()))),
	}
	// account_type never changes; writing it again is idempotent and fills it
	// in on items written before the filtered indexes existed.
	set := []string{"#status = :to", "#updated = :at", "#accstatus = :accstatus", "#acctype = :acctype"}
	add := []string{"#rev :one"}
	var remove []string
	if len(t.Result) > 0 {
		set = append(set, "#result = :result")
		names["#result"] = attrResult
		values[":result"] = str(string(t.Result))
	}
	if t.Error != nil {
		av, jerr := jsonAttr(t.Error)
		if jerr != nil {
			return "", "", nil, nil, fmt.Errorf("encode job error: %w", jerr)
		}
		set = append(set, "#error = :error")
		names["#error"] = attrError
		values[":error"] = av
	}
	switch {
	case lj.language != "":
		// A language, once set, never changes: (re)writing its partition key
		// is idempotent, and fills it in on items written before it existed.
		set = append(set, "#acclang = :acclang")
		names["#acclang"] = attrAccountLanguage
		values[":acclang"] = str(accountKey(lj.accountID, lj.language))
	case t.Language != "":
		// Only where the job has none: a requested language stays. The
		// partition key follows the same rule, so if a concurrent transition
		// set a language since the read, both keep that one.
		set = append(set, "#lang = if_not_exists(#lang, :lang)", "#acclang = if_not_exists(#acclang, :acclang)")
		names["#lang"] = attrLanguage
		names["#acclang"] = attrAccountLanguage
		values[":lang"] = str(t.Language)
		values[":acclang"] = str(accountKey(lj.accountID, t.Language))
	}
	if t.CountAttempt {
		add = append(add, "#attempts :one")
		names["#attempts"] = attrAttempts
	}
	if unfinished(t.To) {
		// lifecycle_at of an unfinished job is its list key, for oldest-first order.
		set = append(set, "#lc = :unfinished", "#lcat = #sk")
		names["#sk"] = attrListSK
		values[":unfinished"] = str(lifecycleUnfinished)
	} else {
		remove = append(remove, "#lc", "#lcat")
	}
	update = "SET " + strings.Join(set, ", ") + " ADD " + strings.Join(add, ", ")
	if len(remove) > 0 {
		update += " REMOVE " + strings.Join(remove, ", ")
	}

	from := make([]string, len(t.From))
	for i, st := range t.From {
		k := ":from" + strconv.Itoa(i)
		from[i] = k
		values[k] = str(string(st))
	}
	cond = "attribute_exists(#id) AND attribute_not_exists(#deleted) AND #acc = :acc AND #status IN (" + strings.Join(from, ", ") + ")"
	return update, cond, names, values, nil
}

func (s *JobStore) TransitionJob(ctx context.Context, t callscribe.Transition) (*callscribe.Job, error) {
	if len(t.From) == 0 {
		// An empty From matches no status ("IN ()" is not even valid syntax).
		return nil, s.transitionRefused(ctx, t, false)
	}
	if t.MayReleaseQuota() {
		return s.failJob(ctx, t)
	}
	lj, err := s.readListed(ctx, t.JobID)
	if err != nil {
		return nil, err
	}
	if lj == nil {
		return nil, jobNotFound(t.JobID)
	}
	return s.updateJob(ctx, t, *lj)
}

// readListed reads what transitionUpdate needs of a job; nil when absent. The
// read is strongly consistent because the job may have been created a moment
// ago. It costs read units by the item's size (a projection does not lower
// them), a quarter at most of the write units of the update that follows.
func (s *JobStore) readListed(ctx context.Context, id string) (*listedJob, error) {
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:                aws.String(s.tables.Jobs),
		Key:                      jobKey(id),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#acc, #type, #lang"),
		ExpressionAttributeNames: map[string]string{"#acc": attrAccountID, "#type": attrType, "#lang": attrLanguage},
	})
	if err != nil {
		return nil, fmt.Errorf("get job %s: %w", id, err)
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	r := &itemReader{item: out.Item}
	lj := &listedJob{accountID: r.str(attrAccountID), jobType: callscribe.JobType(r.str(attrType)).OrDefault(), language: r.str(attrLanguage)}
	if r.err != nil {
		return nil, fmt.Errorf("get job %s: %w", id, r.err)
	}
	return lj, nil
}

// updateJob applies a transition with one conditional UpdateItem.
func (s *JobStore) updateJob(ctx context.Context, t callscribe.Transition, lj listedJob) (*callscribe.Job, error) {
	update, cond, names, values, err := transitionUpdate(t, lj)
	if err != nil {
		return nil, err
	}
	out, err := s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName:                           aws.String(s.tables.Jobs),
		Key:                                 jobKey(t.JobID),
		UpdateExpression:                    aws.String(update),
		ConditionExpression:                 aws.String(cond),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil, s.transitionRefused(ctx, t, len(ccf.Item) > 0)
	}
	if err != nil {
		return nil, fmt.Errorf("transition job %s: %w", t.JobID, err)
	}
	sj, err := decodeJob(out.Attributes)
	if err != nil {
		return nil, err
	}
	return sj.job, nil
}

// transitionRefused maps a failed transition condition to CONFLICT (the job
// exists but is deleted or in another status) or JOB_NOT_FOUND (no item).
// exists comes from ReturnValuesOnConditionCheckFailure=ALL_OLD; when the item
// was not returned, a read confirms its absence.
func (s *JobStore) transitionRefused(ctx context.Context, t callscribe.Transition, exists bool) error {
	if !exists {
		sj, err := s.read(ctx, t.JobID)
		if err != nil {
			return err
		}
		exists = sj != nil
	}
	if !exists {
		return jobNotFound(t.JobID)
	}
	return callscribe.Errorf(callscribe.CodeConflict, "job %s is deleted or not in status %v", t.JobID, t.From)
}

// failJob applies a transition that may release quota (one to failed). A
// job that holds quota gets its seconds released in the same transaction;
// that needs the job's quota month and seconds, so the job is read first and
// the transaction is conditioned on the revision read (a concurrent write
// makes it re-read and decide again).
func (s *JobStore) failJob(ctx context.Context, t callscribe.Transition) (*callscribe.Job, error) {
	for attempt := 1; ; attempt++ {
		sj, err := s.read(ctx, t.JobID)
		if err != nil {
			return nil, err
		}
		if sj == nil {
			return nil, jobNotFound(t.JobID)
		}
		old := sj.job
		// The new state is the read state plus this transition, exactly, as long
		// as the revision does not change before the transaction (its condition).
		next := *old
		release, err := next.Apply(t, sj.deleted)
		if err != nil {
			return nil, err
		}
		// quota_released is the item's own record that its seconds went back: a
		// second guard, beside the status, that a release never happens twice.
		lj := listedJob{accountID: old.AccountID, jobType: old.Type, language: old.Language}
		if !release || sj.quotaReleased {
			return s.updateJob(ctx, t, lj)
		}

		update, cond, names, values, err := transitionUpdate(t, lj)
		if err != nil {
			return nil, err
		}
		update = "SET #released = :true, " + update[len("SET "):]
		names["#released"] = attrQuotaReleased
		values[":true"] = &types.AttributeValueMemberBOOL{Value: true}
		if sj.rev == 0 {
			cond += " AND attribute_not_exists(#rev)" // written before revisions existed
		} else {
			cond += " AND #rev = :rev"
			values[":rev"] = numInt(sj.rev)
		}
		items := []types.TransactWriteItem{
			{Update: &types.Update{
				TableName: aws.String(s.tables.Jobs), Key: jobKey(t.JobID),
				UpdateExpression: aws.String(update), ConditionExpression: aws.String(cond),
				ExpressionAttributeNames: names, ExpressionAttributeValues: values,
			}},
			{Update: &types.Update{
				TableName:                 aws.String(s.tables.Usage),
				Key:                       usageKey(old.AccountID, old.QuotaMonth),
				UpdateExpression:          aws.String("ADD #used :release"),
				ExpressionAttributeNames:  map[string]string{"#used": attrUsedSeconds},
				ExpressionAttributeValues: map[string]types.AttributeValue{":release": num(-old.AudioSeconds)},
			}},
		}
		changed := false
		err = s.transact(ctx, items, func(reasons []types.CancellationReason) (error, bool) {
			if reasonIs(reasons, 0, "ConditionalCheckFailed") {
				changed = true
				return nil, true
			}
			return nil, false
		})
		if err != nil {
			return nil, err
		}
		if changed {
			if attempt >= callscribe.StoreTransactionAttempts {
				return nil, fmt.Errorf("transition job %s: changed concurrently %d times", t.JobID, attempt)
			}
			continue // the job changed since it was read; decide again
		}
		// The transaction returns no values: the applied copy is the new state.
		return &next, nil
	}
}

func (s *JobStore) DeleteJob(ctx context.Context, id string, at time.Time) error {
	_, err := s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName: aws.String(s.tables.Jobs),
		Key:       jobKey(id),
		// Removing list_sk takes the job out of the (sparse) listing index.
		UpdateExpression:    aws.String("SET #deleted = :at, #expires = :expires, #lc = :deletedlc, #lcat = :lcat ADD #rev :one REMOVE #sk"),
		ConditionExpression: aws.String("attribute_exists(#id) AND attribute_not_exists(#deleted)"),
		ExpressionAttributeNames: map[string]string{
			"#id": attrID, "#deleted": attrDeletedAt, "#expires": attrExpiresAt,
			"#lc": attrLifecycle, "#lcat": attrLifecycleAt, "#rev": attrRev, "#sk": attrListSK,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":at":        str(formatTime(at)),
			":expires":   numInt(at.Add(s.retention).Unix()),
			":deletedlc": str(lifecycleDeleted),
			":lcat":      str(formatTime(at) + "#" + id),
			":one":       numInt(1),
		},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return jobNotFound(id)
	}
	if err != nil {
		return fmt.Errorf("delete job %s: %w", id, err)
	}
	return nil
}

func (s *JobStore) PurgeDeletedJobs(ctx context.Context, deletedBefore time.Time) (int, error) {
	in := &ddb.QueryInput{
		TableName: aws.String(s.tables.Jobs),
		IndexName: aws.String(IndexLifecycle),
		// lifecycle_at = deleted_at#id, so "< deleted_at of the cutoff" is strictly before it.
		KeyConditionExpression:    aws.String("#lc = :deleted AND #lcat < :cutoff"),
		ExpressionAttributeNames:  map[string]string{"#lc": attrLifecycle, "#lcat": attrLifecycleAt},
		ExpressionAttributeValues: map[string]types.AttributeValue{":deleted": str(lifecycleDeleted), ":cutoff": str(formatTime(deletedBefore))},
	}
	purged := 0
	for p := ddb.NewQueryPaginator(s.client, in); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return purged, fmt.Errorf("find deleted jobs: %w", err)
		}
		for _, item := range out.Items {
			id := (&itemReader{item: item}).str(attrID)
			_, err := s.client.DeleteItem(ctx, &ddb.DeleteItemInput{
				TableName: aws.String(s.tables.Jobs),
				Key:       jobKey(id),
				// TTL may have removed it already; and never purge a live job.
				ConditionExpression:      aws.String("attribute_exists(#deleted)"),
				ExpressionAttributeNames: map[string]string{"#deleted": attrDeletedAt},
			})
			var ccf *types.ConditionalCheckFailedException
			if errors.As(err, &ccf) {
				continue
			}
			if err != nil {
				return purged, fmt.Errorf("purge job %s: %w", id, err)
			}
			purged++
		}
	}
	return purged, nil
}

func (s *JobStore) UsedSeconds(ctx context.Context, accountID, month string) (float64, error) {
	out, err := s.client.GetItem(ctx, &ddb.GetItemInput{
		TableName:      aws.String(s.tables.Usage),
		Key:            usageKey(accountID, month),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return 0, fmt.Errorf("read usage of %s in %s: %w", accountID, month, err)
	}
	r := &itemReader{item: out.Item}
	used := r.num(attrUsedSeconds)
	if r.err != nil {
		return 0, fmt.Errorf("read usage of %s in %s: %w", accountID, month, r.err)
	}
	return used, nil
}

func (s *JobStore) UnfinishedJobIDs(ctx context.Context, limit int) ([]string, error) {
	in := &ddb.QueryInput{
		TableName:                 aws.String(s.tables.Jobs),
		IndexName:                 aws.String(IndexLifecycle),
		KeyConditionExpression:    aws.String("#lc = :unfinished"),
		ExpressionAttributeNames:  map[string]string{"#lc": attrLifecycle},
		ExpressionAttributeValues: map[string]types.AttributeValue{":unfinished": str(lifecycleUnfinished)},
		ScanIndexForward:          aws.Bool(true), // lifecycle_at = created_at#id: oldest first
	}
	if limit > 0 {
		in.Limit = aws.Int32(int32(limit))
	}
	ids := []string{}
	for p := ddb.NewQueryPaginator(s.client, in); p.HasMorePages() && (limit <= 0 || len(ids) < limit); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list unfinished jobs: %w", err)
		}
		for _, item := range out.Items {
			if limit > 0 && len(ids) == limit {
				break
			}
			ids = append(ids, (&itemReader{item: item}).str(attrID))
		}
	}
	return ids, nil
}

// BackfillListingKeys gives live jobs written before the filtered listing
// indexes existed their partition keys (account_status, account_type and,
// with a language, account_language), so status, type and language filters
// list them. Run it once after the indexes are added to an existing table: it
// Scans the whole table (a one-off cost in proportion to the table) and
// updates only items that lack a key. Each update is conditioned on the
// status read, so a job that moves meanwhile keeps the keys its transition
// wrote (every transition writes them too). It returns the number of items
// updated; running it again updates nothing.
func (s *JobStore) BackfillListingKeys(ctx context.Context) (int, error) {
	in := &ddb.ScanInput{
		TableName: aws.String(s.tables.Jobs),
		FilterExpression: aws.String("attribute_exists(#sk) AND (attribute_not_exists(#accstatus) OR attribute_not_exists(#acctype)" +
			" OR (attribute_exists(#lang) AND attribute_not_exists(#acclang)))"),
		ProjectionExpression: aws.String("#id, #acc, #status, #type, #lang"),
		ExpressionAttributeNames: map[string]string{
			"#sk": attrListSK, "#accstatus": attrAccountStatus, "#acctype": attrAccountType, "#acclang": attrAccountLanguage,
			"#id": attrID, "#acc": attrAccountID, "#status": attrStatus, "#type": attrType, "#lang": attrLanguage,
		},
	}
	updated := 0
	for p := ddb.NewScanPaginator(s.client, in); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return updated, fmt.Errorf("backfill listing keys: %w", err)
		}
		for _, item := range out.Items {
			r := &itemReader{item: item}
			id, acc, status, lang := r.str(attrID), r.str(attrAccountID), r.str(attrStatus), r.str(attrLanguage)
			jobType := callscribe.JobType(r.str(attrType)).OrDefault()
			if r.err != nil {
				return updated, fmt.Errorf("backfill listing keys: job %s: %w", id, r.err)
			}
			update := "SET #accstatus = :accstatus, #acctype = :acctype"
			names := map[string]string{"#sk": attrListSK, "#status": attrStatus, "#accstatus": attrAccountStatus, "#acctype": attrAccountType}
			values := map[string]types.AttributeValue{
				":status":    str(status),
				":accstatus": str(accountKey(acc, status)),
				":acctype":   str(accountKey(acc, string(jobType))),
			}
			if lang != "" {
				update += ", #acclang = :acclang"
				names["#acclang"] = attrAccountLanguage
				values[":acclang"] = str(accountKey(acc, lang))
			}
			_, err := s.client.UpdateItem(ctx, &ddb.UpdateItemInput{
				TableName:                 aws.String(s.tables.Jobs),
				Key:                       jobKey(id),
				UpdateExpression:          aws.String(update),
				ConditionExpression:       aws.String("attribute_exists(#sk) AND #status = :status"),
				ExpressionAttributeNames:  names,
				ExpressionAttributeValues: values,
			})
			var ccf *types.ConditionalCheckFailedException
			if errors.As(err, &ccf) {
				continue // deleted or transitioned since the scan: nothing to fill in
			}
			if err != nil {
				return updated, fmt.Errorf("backfill listing keys: job %s: %w", id, err)
			}
			updated++
		}
	}
	return updated, nil
}
