package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Search (the list filter q) on DynamoDB: a term index in its own table, so
// a search reads what its rarest word matches, not the account.
//
// Search table, partition key term_key (S) = account_id + "#" + word, sort
// key list_sk (S) = the job's created_at + "#" + id, as in the listing
// indexes: one item per distinct word of a job (callscribe.SearchWords of
// callscribe.SearchDocumentOf), keys only. A partition is exactly one
// account's jobs that contain one word, in listing order.
//
// Writes: a job's items are put with BatchWriteItem before the write that
// stores its result (a transition to succeeded with a result; the create of a
// derived job made from text): a job is never stored with a result whose
// words have no items (term reads are eventually consistent, like the
// listing indexes, so a search a fraction of a second after may miss it), and
// items of a write that then fails are harmless because of the next point. Deleting a job removes its items right after
// marking it deleted, and PurgeDeletedJobs removes them again before it
// deletes an item.
//
// Reads: every query word's partition is read from the cursor (newest
// first, created_after as a key condition, searchProbe items each, in
// parallel). The word whose partition holds the fewest items drives: its
// items are the candidates, in listing order; a candidate must be in every
// other word's partition (checked in memory against a partition read to its
// end, or by BatchGetItem of the exact keys); survivors are read whole from
// the jobs table (BatchGetItem, consistent) and confirmed with
// callscribe.SearchQuery.Confirm with the other filters, so a deleted job, a
// phrase whose words are apart, or the wrong speaker is never listed. One
// call reads at most the store's ListReadBudget driver items; when that runs
// out first the page is short with Next at the last item read, as for the
// filtered listings.
//
// Limits and costs: every distinct word is indexed (no stop words: a query
// for "the" works, and costs what "the" matches); a word's key is cut to
// maxTermBytes (both when writing and reading, so a longer word is still
// found, then confirmed). A job writes one item (1 write unit) per distinct
// word: a 5-minute call has some 300, an hour-long one 1,500. A query has at
// most callscribe.MaxSearchWords words, so at most that many partition reads
// open a search; a phrase costs the same reads as its words and is verified
// on the candidates' stored transcripts (one read of each candidate job,
// whose size is its transcript's).

// searchProbe is how many items the first read of each query word's
// partition asks for: enough to fill a page after other filters drop some,
// and to tell a rare word (read to its end) from a common one.
const searchProbe = 100

// maxTermBytes bounds a word's part of term_key (a partition key is at most
// 2048 bytes).
const maxTermBytes = 256

const attrTermKey = "term_key"

func termKey(accountID, word string) string {
	if len(word) > maxTermBytes {
		word = word[:maxTermBytes]
	}
	return accountKey(accountID, word)
}

// searchTerms returns the distinct index words of a job's document.
func searchTerms(doc []callscribe.SearchSegment) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range doc {
		for _, w := range callscribe.SearchWords(s.Text) {
			if len(w) > maxTermBytes {
				w = w[:maxTermBytes]
			}
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// writeTerms puts (or, with remove, deletes) the term items of a job.
func (s *JobStore) writeTerms(ctx context.Context, accountID, listSK string, words []string, remove bool) error {
	var reqs []types.WriteRequest
	for _, w := range words {
		key := map[string]types.AttributeValue{attrTermKey: str(termKey(accountID, w)), attrListSK: str(listSK)}
		if remove {
			reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}})
		} else {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: key}})
		}
	}
	for len(reqs) > 0 {
		n := min(len(reqs), 25) // BatchWriteItem's maximum
		batch := reqs[:n]
		reqs = reqs[n:]
		for attempt := 1; len(batch) > 0; attempt++ {
			out, err := s.client.BatchWriteItem(ctx, &ddb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{s.tables.Search: batch}})
			if err != nil {
				return fmt.Errorf("write search terms: %w", err)
			}
			batch = out.UnprocessedItems[s.tables.Search]
			if len(batch) > 0 {
				if attempt >= callscribe.StoreTransactionAttempts {
					return fmt.Errorf("write search terms: %d items left unprocessed", len(batch))
				}
				if err := backoff(ctx, attempt); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// indexJob writes the term items of a job's document.
func (s *JobStore) indexJob(ctx context.Context, j *callscribe.Job) error {
	words := searchTerms(callscribe.SearchDocumentOf(j))
	if len(words) == 0 {
		return nil
	}
	return s.writeTerms(ctx, j.AccountID, listKey(j.CreatedAt, j.ID), words, false)
}

// unindexJob removes the term items of a job item (read whole).
func (s *JobStore) unindexJob(ctx context.Context, item map[string]types.AttributeValue) error {
	sj, err := decodeJob(item)
	if err != nil {
		return err
	}
	j := sj.job
	j.Status = callscribe.StatusSucceeded // a document whatever the status, so no word is left behind
	words := searchTerms(callscribe.SearchDocumentOf(j))
	if len(words) == 0 {
		return nil
	}
	return s.writeTerms(ctx, j.AccountID, listKey(j.CreatedAt, j.ID), words, true)
}

// termPartition is what has been read of one query word's partition.
type termPartition struct {
	word     string
	keys     []string // list_sk values, newest first
	complete bool     // read to the end of the range
	next     map[string]types.AttributeValue
}

func (s *JobStore) termQuery(req callscribe.ListRequest, word string) *ddb.QueryInput {
	keyCond := "#tk = :tk"
	names := map[string]string{"#tk": attrTermKey}
	values := map[string]types.AttributeValue{":tk": str(termKey(req.AccountID, word))}
	if f := req.Filter; f.CreatedAfter != nil {
		keyCond += " AND #sk > :lower"
		names["#sk"] = attrListSK
		values[":lower"] = str(formatTime(*f.CreatedAfter) + "~")
	}
	in := &ddb.QueryInput{
		TableName:                 aws.String(s.tables.Search),
		KeyConditionExpression:    aws.String(keyCond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
	}
	if req.After != nil {
		in.ExclusiveStartKey = map[string]types.AttributeValue{attrTermKey: values[":tk"], attrListSK: str(listKey(req.After.CreatedAt, req.After.JobID))}
	}
	return in
}

// readTerm reads up to n more items of a partition.
func (s *JobStore) readTerm(ctx context.Context, req callscribe.ListRequest, p *termPartition, n int) error {
	in := s.termQuery(req, p.word)
	if p.next != nil {
		in.ExclusiveStartKey = p.next
	}
	in.Limit = aws.Int32(int32(n))
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return fmt.Errorf("search %q: %w", p.word, err)
	}
	for _, item := range out.Items {
		p.keys = append(p.keys, (&itemReader{item: item}).str(attrListSK))
	}
	p.next = out.LastEvaluatedKey
	p.complete = len(out.LastEvaluatedKey) == 0
	return nil
}

// searchJobs lists one page of a search (see the comment at the top).
func (s *JobStore) searchJobs(ctx context.Context, req callscribe.ListRequest) (*callscribe.JobPage, error) {
	if f := req.Filter; f.CreatedAfter != nil && req.After != nil && listKey(req.After.CreatedAt, req.After.JobID) <= formatTime(*f.CreatedAfter)+"~" {
		return &callscribe.JobPage{Jobs: []*callscribe.Job{}}, nil
	}
	words := req.Filter.Search.Words()
	parts := make([]*termPartition, len(words))
	errs := make([]error, len(words))
	var wg sync.WaitGroup
	for i, w := range words {
		parts[i] = &termPartition{word: w}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.readTerm(ctx, req, parts[i], searchProbe)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// The driver: the smallest partition read to its end, else the first word.
	slices.SortStableFunc(parts, func(a, b *termPartition) int {
		switch {
		case a.complete && !b.complete:
			return -1
		case b.complete && !a.complete:
			return 1
		case a.complete:
			return len(a.keys) - len(b.keys)
		}
		return 0
	})
	driver, others := parts[0], parts[1:]
	inMemory := map[string]map[string]bool{}
	for _, p := range others {
		if p.complete {
			set := make(map[string]bool, len(p.keys))
			for _, k := range p.keys {
				set[k] = true
			}
			inMemory[p.word] = set
		}
	}

	want := req.Limit + 1
	var found []*callscribe.Job
	used := 0 // driver items taken as candidates, all of them checked
	var lastUsed string
	for len(found) < want {
		if used == len(driver.keys) {
			n := min(searchProbe, s.listBudget-len(driver.keys))
			if driver.complete || n <= 0 {
				break
			}
			if err := s.readTerm(ctx, req, driver, n); err != nil {
				return nil, err
			}
			continue
		}
		batch := driver.keys[used:min(len(driver.keys), used+searchProbe)]
		used += len(batch)
		lastUsed = batch[len(batch)-1]
		candidates, err := s.inEveryPartition(ctx, req.AccountID, batch, others, inMemory)
		if err != nil {
			return nil, err
		}
		jobs, err := s.confirm(ctx, req, candidates)
		if err != nil {
			return nil, err
		}
		found = append(found, jobs...)
	}
	exhausted := driver.complete && used == len(driver.keys)
	page := &callscribe.JobPage{Jobs: make([]*callscribe.Job, 0, min(req.Limit, len(found)))}
	for _, j := range found[:min(req.Limit, len(found))] {
		page.Jobs = append(page.Jobs, listedOnly(j))
	}
	switch {
	case len(found) > req.Limit:
		last := page.Jobs[len(page.Jobs)-1]
		page.Next = &callscribe.Position{CreatedAt: last.CreatedAt, JobID: last.ID}
	case !exhausted:
		// The read budget ran out first: resume after the last item checked.
		pos, err := parseListKey(lastUsed)
		if err != nil {
			return nil, fmt.Errorf("search: resume key: %w", err)
		}
		page.Next = &pos
	}
	return page, nil
}

// inEveryPartition keeps the candidate keys that every other word's partition
// holds, in order.
func (s *JobStore) inEveryPartition(ctx context.Context, accountID string, keys []string, others []*termPartition, inMemory map[string]map[string]bool) ([]string, error) {
	out := slices.Clone(keys)
	for _, p := range others {
		if set, ok := inMemory[p.word]; ok {
			out = slices.DeleteFunc(out, func(k string) bool { return !set[k] })
			continue
		}
		if len(out) == 0 {
			break
		}
		lookup := make([]map[string]types.AttributeValue, len(out))
		for i, k := range out {
			lookup[i] = map[string]types.AttributeValue{attrTermKey: str(termKey(accountID, p.word)), attrListSK: str(k)}
		}
		items, err := s.batchGet(ctx, s.tables.Search, lookup, false)
		if err != nil {
			return nil, err
		}
		present := map[string]bool{}
		for _, item := range items {
			present[(&itemReader{item: item}).str(attrListSK)] = true
		}
		out = slices.DeleteFunc(out, func(k string) bool { return !present[k] })
	}
	return out, nil
}

// confirm reads the candidate jobs whole and keeps, in order, those the
// request lists (live, the other filters, the search confirmed on their text).
func (s *JobStore) confirm(ctx context.Context, req callscribe.ListRequest, keys []string) ([]*callscribe.Job, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	ids := make([]string, len(keys))
	lookup := make([]map[string]types.AttributeValue, len(keys))
	for i, k := range keys {
		pos, err := parseListKey(k)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		ids[i] = pos.JobID
		lookup[i] = jobKey(pos.JobID)
	}
	items, err := s.batchGet(ctx, s.tables.Jobs, lookup, true)
	if err != nil {
		return nil, err
	}
	byID := map[string]*storedJob{}
	for _, item := range items {
		sj, err := decodeJob(item)
		if err != nil {
			return nil, err
		}
		byID[sj.job.ID] = sj
	}
	var out []*callscribe.Job
	for _, id := range ids {
		if sj := byID[id]; sj != nil && !sj.deleted && req.Includes(sj.job) {
			out = append(out, sj.job)
		}
	}
	return out, nil
}

// batchGet reads items by key, 100 a call (BatchGetItem's maximum), retrying
// unprocessed keys.
func (s *JobStore) batchGet(ctx context.Context, table string, keys []map[string]types.AttributeValue, consistent bool) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for len(keys) > 0 {
		n := min(len(keys), 100)
		pending := &types.KeysAndAttributes{Keys: keys[:n], ConsistentRead: aws.Bool(consistent)}
		keys = keys[n:]
		for attempt := 1; pending != nil && len(pending.Keys) > 0; attempt++ {
			out, err := s.client.BatchGetItem(ctx, &ddb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: *pending}})
			if err != nil {
				return nil, fmt.Errorf("batch get from %s: %w", table, err)
			}
			items = append(items, out.Responses[table]...)
			next, ok := out.UnprocessedKeys[table]
			if !ok || len(next.Keys) == 0 {
				break
			}
			if attempt >= callscribe.StoreTransactionAttempts {
				return nil, fmt.Errorf("batch get from %s: %d keys left unprocessed", table, len(next.Keys))
			}
			if err := backoff(ctx, attempt); err != nil {
				return nil, err
			}
			pending = &next
		}
	}
	return items, nil
}

// listedOnly keeps a whole job's listing fields and matches, like the jobs
// of any listing page.
func listedOnly(j *callscribe.Job) *callscribe.Job {
	return &callscribe.Job{
		ID: j.ID, AccountID: j.AccountID, Type: j.Type, Status: j.Status, SourceJobID: j.SourceJobID,
		OriginalFilename: j.OriginalFilename, Language: j.Language, AudioSeconds: j.AudioSeconds,
		AudioFormat: j.AudioFormat, QuotaMonth: j.QuotaMonth, Attempts: j.Attempts,
		CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt, Matches: j.Matches,
	}
}

// BackfillSearchTerms writes the term items of every live job of the table,
// so jobs stored before the search table existed are found. Run it once after
// the stack update that adds the table: it Scans the jobs table (a one-off cost
// in proportion to it) and puts each job's items, which is idempotent, so
// running it again, or while jobs are written, changes nothing they would not.
// It returns the number of jobs indexed.
func (s *JobStore) BackfillSearchTerms(ctx context.Context) (int, error) {
	in := &ddb.ScanInput{
		TableName:                aws.String(s.tables.Jobs),
		FilterExpression:         aws.String("attribute_exists(#sk)"), // live jobs: deleting removes list_sk
		ExpressionAttributeNames: map[string]string{"#sk": attrListSK},
	}
	indexed := 0
	for p := ddb.NewScanPaginator(s.client, in); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return indexed, fmt.Errorf("backfill search terms: %w", err)
		}
		for _, item := range out.Items {
			sj, err := decodeJob(item)
			if err != nil {
				return indexed, err
			}
			if len(callscribe.SearchDocumentOf(sj.job)) == 0 {
				continue
			}
			if err := s.indexJob(ctx, sj.job); err != nil {
				return indexed, err
			}
			indexed++
		}
	}
	return indexed, nil
}
