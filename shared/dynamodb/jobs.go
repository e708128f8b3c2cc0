package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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
	client    *ddb.Client
	tables    TableNames
	retention time.Duration
}

var _ callscribe.JobStore = (*JobStore)(nil)

// NewJobStore returns a job store on the given tables. retention is how long a
// deleted job's item is kept before DynamoDB TTL purges it (expires_at =
// deleted_at + retention).
func NewJobStore(client *ddb.Client, tables TableNames, retention time.Duration) *JobStore {
	return &JobStore{client: client, tables: tables, retention: retention}
}

// transactionAttempts bounds retries of transactions cancelled by a concurrent
// transaction on the same item (typically two uploads of one account reserving
// quota at once); DynamoDB does not queue them, it cancels one.
// Backoff grows to 320 ms with jitter, so 50 uploads racing for one account
// (the contract suite does that) all get through.
const transactionAttempts = 25

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
// transactions. decide maps other cancellations to an error; when it returns
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
			if errors.As(err, &tcf) && attempt < transactionAttempts {
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
		if anyReason(tce.CancellationReasons, "TransactionConflict") && attempt < transactionAttempts {
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
			continue
		}
		return fmt.Errorf("transact write: %w", err)
	}
}

func backoff(ctx context.Context, attempt int) error {
	d := time.Duration(5<<min(attempt, 6)) * time.Millisecond
	d = d/2 + rand.N(d) // jitter spreads the retries of transactions that collided
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

// listBatchFiltered is the Query Limit when a FilterExpression may drop items:
// DynamoDB applies Limit before filtering, so a larger batch saves round trips.
const listBatchFiltered = 100

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
	in, empty := s.listQuery(req)
	if empty {
		return &callscribe.JobPage{Jobs: []*callscribe.Job{}}, nil
	}
	return s.queryPage(ctx, in, req.Limit)
}

// listQuery translates a listing request (callscribe.ListRequest.Includes)
// into a Query on the account's listing index, newest first: created_after is
// a key condition on list_sk, the cursor the start key, and status, type and
// language a filter expression. empty reports a request
// that can match nothing (a cursor older than created_after), which DynamoDB
// would reject as a start key outside the key condition.
func (s *JobStore) listQuery(req callscribe.ListRequest) (in *ddb.QueryInput, empty bool) {
	f := req.Filter
	keyCond := "#acc = :acc"
	names := map[string]string{"#acc": attrAccountID}
	values := map[string]types.AttributeValue{":acc": str(req.AccountID)}
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
			return nil, true
		}
		startKey = map[string]types.AttributeValue{
			attrAccountID: str(req.AccountID),
			attrListSK:    str(after),
			attrID:        str(req.After.JobID),
		}
	}

	var filters []string
	if f.Status != "" {
		filters = append(filters, "#status = :status")
		names["#status"] = attrStatus
		values[":status"] = str(string(f.Status))
	}
	if f.Type != "" {
		names["#type"] = attrType
		values[":type"] = str(string(f.Type))
		if f.Type == callscribe.TypeTranscription {
			filters = append(filters, "(#type = :type OR attribute_not_exists(#type))")
		} else {
			filters = append(filters, "#type = :type")
		}
	}
	if f.Language != "" {
		filters = append(filters, "#lang = :lang")
		names["#lang"] = attrLanguage
		values[":lang"] = str(f.Language)
	}
	in = &ddb.QueryInput{
		TableName:                 aws.String(s.tables.Jobs),
		IndexName:                 aws.String(IndexAccountCreated),
		KeyConditionExpression:    aws.String(keyCond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
		ExclusiveStartKey:         startKey,
	}
	if len(filters) > 0 {
		in.FilterExpression = aws.String(strings.Join(filters, " AND "))
	}
	return in, false
}

// queryPage runs the listing query until the page is full, reading one item
// beyond it to tell whether there is a next page (so Next is nil on the last
// page instead of pointing at an empty one). A filtered query reads in larger
// batches, since the filter may discard most of what a batch reads.
func (s *JobStore) queryPage(ctx context.Context, in *ddb.QueryInput, limit int) (*callscribe.JobPage, error) {
	filtered := in.FilterExpression != nil
	want := limit + 1
	var items []map[string]types.AttributeValue
	for {
		batch := want - len(items)
		if filtered {
			batch = max(batch, listBatchFiltered)
		}
		in.Limit = aws.Int32(int32(batch))
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list jobs: %w", err)
		}
		items = append(items, out.Items...)
		if len(items) >= want || len(out.LastEvaluatedKey) == 0 {
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
	if len(items) > limit {
		last := page.Jobs[len(page.Jobs)-1]
		page.Next = &callscribe.Position{CreatedAt: last.CreatedAt, JobID: last.ID}
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

// transitionUpdate builds the job update of a transition: the update expression
// and the condition (exists, live, status in From) are callscribe.Job.Apply
// written as DynamoDB expressions, with their names and values.
func transitionUpdate(t callscribe.Transition) (update, cond string, names map[string]string, values map[string]types.AttributeValue, err error) {
	names = map[string]string{
		"#id": attrID, "#status": attrStatus, "#updated": attrUpdatedAt,
		"#deleted": attrDeletedAt, "#rev": attrRev,
		"#lc": attrLifecycle, "#lcat": attrLifecycleAt,
	}
	values = map[string]types.AttributeValue{
		":to": str(string(t.To)), ":at": str(formatTime(t.At)), ":one": numInt(1),
	}
	set := []string{"#status = :to", "#updated = :at"}
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
	if t.Language != "" {
		// Only where the job has none: a requested language stays.
		set = append(set, "#lang = if_not_exists(#lang, :lang)")
		names["#lang"] = attrLanguage
		values[":lang"] = str(t.Language)
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
	cond = "attribute_exists(#id) AND attribute_not_exists(#deleted) AND #status IN (" + strings.Join(from, ", ") + ")"
	return update, cond, names, values, nil
}

func (s *JobStore) TransitionJob(ctx context.Context, t callscribe.Transition) (*callscribe.Job, error) {
	if len(t.From) == 0 {
		// An empty From matches no status ("IN ()" is not even valid syntax).
		return nil, s.transitionRefused(ctx, t, false)
	}
	if t.To == callscribe.StatusFailed {
		return s.failJob(ctx, t)
	}
	return s.updateJob(ctx, t)
}

// updateJob applies a transition with one conditional UpdateItem.
func (s *JobStore) updateJob(ctx context.Context, t callscribe.Transition) (*callscribe.Job, error) {
	update, cond, names, values, err := transitionUpdate(t)
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

// failJob moves a job to failed. A job that holds quota gets its seconds
// released in the same transaction; that needs the job's quota month and seconds,
// so the job is read first and the transaction is conditioned on the revision
// read (a concurrent write makes it re-read and decide again).
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
		if !release || sj.quotaReleased {
			return s.updateJob(ctx, t)
		}

		update, cond, names, values, err := transitionUpdate(t)
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
			if attempt >= transactionAttempts {
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
