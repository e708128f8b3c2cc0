package dynamodb

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

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
	if req.Filter.Search != nil {
		return s.searchJobs(ctx, req)
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
// filter (callscribe.JobFilter.IndexField): account-source-index,
// account-status-index, account-type-index or account-language-index, whose
// partition is the account's jobs with that value, or account-created-index
// without one.
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
	case callscribe.FilterSource:
		index, hashAttr, hashValue = IndexAccountSource, attrAccountSource, accountKey(req.AccountID, f.SourceJobID)
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
	if f.SourceJobID != "" && index != IndexAccountSource {
		filters = append(filters, "#src = :src")
		names["#src"] = attrSourceJobID
		values[":src"] = str(f.SourceJobID)
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
