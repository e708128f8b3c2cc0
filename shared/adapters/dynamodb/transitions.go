package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// listedJob is what a transition needs to know of the stored job to keep the
// filtered listing indexes in step: the account (their partition keys start
// with it), the type and the language (none changes once set). They are read
// before the write, and the write is conditioned on the account, so it can
// never pair a status with the wrong account.
type listedJob struct {
	accountID string
	jobType   callscribe.JobType // OrDefault
	language  string
	// sourceJobID, createdAt and input place a result's words in the search
	// index (a summary made from text is searched by that text too).
	sourceJobID string
	createdAt   time.Time
	input       *callscribe.Transcript
	// otherBytes is the size of the item's attributes other than result
	// (itemBytes), which a result must leave room for.
	otherBytes int
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
		av, rerr := largeJSONAttr(t.Result)
		if rerr != nil {
			return "", "", nil, nil, fmt.Errorf("encode result: %w", rerr)
		}
		values[":result"] = av
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
	if t.Audio != nil {
		set = append(set, "#akey = :akey", "#afmt = :afmt")
		names["#akey"], names["#afmt"] = attrAudioKey, attrAudioFormat
		values[":akey"], values[":afmt"] = str(t.Audio.Key), str(string(t.Audio.Format))
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
	if len(t.Result) > 0 {
		stored, err := largeJSONAttr(t.Result)
		if err != nil {
			return nil, fmt.Errorf("transition job %s: encode result: %w", t.JobID, err)
		}
		if room := itemLimitBytes - itemMarginBytes - lj.otherBytes - len(attrResult); attrBytes(stored) > room {
			return s.failResultTooLarge(ctx, t, attrBytes(stored), room)
		}
		// The result's words are indexed before the result is stored (search.go).
		result := &callscribe.Job{ID: t.JobID, AccountID: lj.accountID, Type: lj.jobType, Status: callscribe.StatusSucceeded,
			SourceJobID: lj.sourceJobID, Input: lj.input, Result: t.Result, CreatedAt: lj.createdAt}
		if err := s.indexJob(ctx, result); err != nil {
			return nil, err
		}
	}
	return s.updateJob(ctx, t, *lj)
}

// failResultTooLarge fails, instead of t, a job whose result does not fit in
// its item even compressed: DynamoDB would refuse the write on every retry,
// and the job would end as an opaque internal_error after MaxJobAttempts. The
// failure is t's compare-and-set with To failed: nothing of the result is
// written (not even its search terms), and the job's quota is released as for
// any failure.
func (s *JobStore) failResultTooLarge(ctx context.Context, t callscribe.Transition, storedBytes, room int) (*callscribe.Job, error) {
	fail := callscribe.Transition{
		JobID: t.JobID, Name: callscribe.TransitionFail, From: t.From, To: callscribe.StatusFailed, At: t.At,
		Error: &callscribe.JobError{Code: callscribe.JobErrResultTooLarge, Message: fmt.Sprintf(
			"The result is too large to store: %d KB of JSON, %d KB compressed, over the %d KB the job's record has room for (about %d minutes of call with word timings).",
			len(t.Result)/1000, storedBytes/1000, room/1000, resultMinutesThatFit)},
	}
	job, err := s.failJob(ctx, fail)
	if err == nil {
		slog.Default().Error("job result too large for its DynamoDB item; job failed",
			"jobId", t.JobID, "code", callscribe.JobErrResultTooLarge, "resultBytes", len(t.Result), "storedBytes", storedBytes, "roomBytes", room)
	}
	return job, err
}

// readListed reads what transitionUpdate needs of a job; nil when absent. The
// read is strongly consistent because the job may have been created a moment
// ago. It reads the whole item, to size what it leaves for a result, and
// costs read units by the item's size (a projection would not lower them), a
// quarter at most of the write units of the update that follows.
func (s *JobStore) readListed(ctx context.Context, id string) (*listedJob, error) {
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
	r := &itemReader{item: out.Item}
	lj := &listedJob{accountID: r.str(attrAccountID), jobType: callscribe.JobType(r.str(attrType)).OrDefault(), language: r.str(attrLanguage),
		sourceJobID: r.str(attrSourceJobID), createdAt: r.time(attrCreatedAt), otherBytes: itemBytes(out.Item, attrResult)}
	if lj.jobType.Derived() && lj.sourceJobID == "" && r.has(attrInput) {
		lj.input = &callscribe.Transcript{}
		r.json(attrInput, lj.input)
	}
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
			s.dayUsageUpdate(old, -1),
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
