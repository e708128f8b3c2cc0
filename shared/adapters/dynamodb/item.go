package dynamodb

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Attribute names. Expressions always go through ExpressionAttributeNames
// (#name), because several of these (status, type, language, error, result) are
// DynamoDB reserved words.
const (
	attrID               = "id"
	attrAccountID        = "account_id"
	attrType             = "type"
	attrStatus           = "status"
	attrSourceJobID      = "source_job_id"
	attrOriginalFilename = "original_filename"
	attrLanguage         = "language"
	attrAudioSeconds     = "audio_seconds"
	attrAudioKey         = "audio_key"
	attrAudioFormat      = "audio_format"
	attrMetadata         = "metadata"
	attrKeyterms         = "keyterms"   // a list of strings, in the order sent
	attrRedactPII        = "redact_pii" // BOOL, present only when true
	attrInput            = "input"
	attrCallback         = "callback"
	attrResult           = "result"
	attrError            = "error"
	attrQuotaMonth       = "quota_month"
	attrQuotaReleased    = "quota_released"
	attrAttempts         = "attempts"
	attrCreatedAt        = "created_at"
	attrUpdatedAt        = "updated_at"
	attrDeletedAt        = "deleted_at"
	attrExpiresAt        = TTLAttribute
	attrListSK           = "list_sk"
	attrLifecycle        = "lifecycle"
	attrLifecycleAt      = "lifecycle_at"
	attrRev              = "rev"
	// The partition keys of the filtered listing indexes: account_id + "#" + the
	// job's status, type (transcription when it has none) or language (absent
	// while the job has none). See listKeyAttr.
	attrAccountStatus   = "account_status"
	attrAccountType     = "account_type"
	attrAccountLanguage = "account_language"
	// The partition key of account-source-index: account_id + "#" + the
	// source_job_id of a derived job; absent on jobs without a source, which
	// keeps the index sparse (transcriptions are never in it).
	attrAccountSource = "account_source"

	attrMonth       = "month"
	attrUsedSeconds = "used_seconds"

	attrEmail        = "email"
	attrEmailDisplay = "email_display"
	attrPasswordHash = "password_hash"

	attrHash       = "hash"
	attrPrefix     = "prefix"
	attrLastUsedAt = "last_used_at"
)

// Values of the lifecycle attribute (lifecycle-index partitions).
const (
	lifecycleUnfinished = "unfinished"
	lifecycleDeleted    = "deleted"
)

// timeLayout is fixed width (nanoseconds always 9 digits, always UTC "Z") so that
// string order is time order in sort keys and key conditions.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

// listKey is the sort key of listings: newest first is descending string order.
func listKey(createdAt time.Time, id string) string { return formatTime(createdAt) + "#" + id }

// parseListKey splits a list key into the position it stands for.
func parseListKey(sk string) (callscribe.Position, error) {
	at, id, ok := strings.Cut(sk, "#")
	if !ok || id == "" {
		return callscribe.Position{}, fmt.Errorf("malformed list key %q", sk)
	}
	t, err := parseTime(at)
	if err != nil {
		return callscribe.Position{}, fmt.Errorf("malformed list key %q: %w", sk, err)
	}
	return callscribe.Position{CreatedAt: t, JobID: id}, nil
}

// accountKey is the value of a filtered listing index's partition key: the
// account and the filtered value, so one partition holds exactly the jobs of
// one account with that status, type, language or source job.
func accountKey(accountID, value string) string { return accountID + "#" + value }

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func num(f float64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatFloat(f, 'f', -1, 64)}
}

func numInt(i int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(i, 10)}
}

// unfinished reports whether a job in status s belongs to the lifecycle
// index's unfinished partition: the state machine still has a transition out
// of s.
func unfinished(s callscribe.JobStatus) bool { return !s.Terminal() }

// jobItem encodes a new job. Optional fields are omitted rather than stored
// empty, so that "absent" reads back as the zero value.
func jobItem(j *callscribe.Job) (map[string]types.AttributeValue, error) {
	if math.IsNaN(j.AudioSeconds) || math.IsInf(j.AudioSeconds, 0) {
		return nil, fmt.Errorf("job %s: audio seconds %v cannot be stored", j.ID, j.AudioSeconds)
	}
	item := map[string]types.AttributeValue{
		attrID:           str(j.ID),
		attrAccountID:    str(j.AccountID),
		attrStatus:       str(string(j.Status)),
		attrAudioSeconds: num(j.AudioSeconds),
		attrAttempts:     numInt(int64(j.Attempts)),
		attrCreatedAt:    str(formatTime(j.CreatedAt)),
		attrUpdatedAt:    str(formatTime(j.UpdatedAt)),
		attrListSK:       str(listKey(j.CreatedAt, j.ID)),
		attrRev:          numInt(1),
	}
	optional := map[string]string{
		attrType:        string(j.Type),
		attrSourceJobID: j.SourceJobID,
		attrLanguage:    j.Language,
		attrAudioKey:    j.AudioKey,
		attrAudioFormat: string(j.AudioFormat),
		attrMetadata:    string(j.Metadata),
		attrQuotaMonth:  j.QuotaMonth,
	}
	for name, v := range optional {
		if v != "" {
			item[name] = str(v)
		}
	}
	if j.OriginalFilename != nil {
		item[attrOriginalFilename] = str(*j.OriginalFilename)
	}
	if len(j.Keyterms) > 0 {
		terms := make([]types.AttributeValue, len(j.Keyterms))
		for i, t := range j.Keyterms {
			terms[i] = str(t)
		}
		item[attrKeyterms] = &types.AttributeValueMemberL{Value: terms}
	}
	if j.RedactPII {
		item[attrRedactPII] = &types.AttributeValueMemberBOOL{Value: true}
	}
	if len(j.Result) > 0 {
		av, err := largeJSONAttr(j.Result)
		if err != nil {
			return nil, fmt.Errorf("job %s: encode %s: %w", j.ID, attrResult, err)
		}
		item[attrResult] = av
	}
	for name, v := range map[string]any{attrInput: j.Input, attrCallback: j.Callback, attrError: j.Error} {
		av, err := jsonAttr(v)
		if err != nil {
			return nil, fmt.Errorf("job %s: encode %s: %w", j.ID, name, err)
		}
		if av != nil {
			item[name] = av
		}
	}
	item[attrAccountStatus] = str(accountKey(j.AccountID, string(j.Status)))
	item[attrAccountType] = str(accountKey(j.AccountID, string(j.Type.OrDefault())))
	if j.Language != "" {
		item[attrAccountLanguage] = str(accountKey(j.AccountID, j.Language))
	}
	if j.SourceJobID != "" {
		item[attrAccountSource] = str(accountKey(j.AccountID, j.SourceJobID))
	}
	if unfinished(j.Status) {
		item[attrLifecycle] = str(lifecycleUnfinished)
		item[attrLifecycleAt] = item[attrListSK]
	}
	return item, nil
}

// jsonAttr encodes a pointer field as a JSON string attribute; nil for a nil pointer.
func jsonAttr(v any) (types.AttributeValue, error) {
	switch p := v.(type) {
	case *callscribe.Transcript:
		if p == nil {
			return nil, nil
		}
	case *callscribe.Callback:
		if p == nil {
			return nil, nil
		}
	case *callscribe.JobError:
		if p == nil {
			return nil, nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(*callscribe.Transcript); ok {
		return largeJSONAttr(b)
	}
	return str(string(b)), nil
}

// compressAbove is the JSON size from which a result or a derived job's input
// is stored gzip-compressed (a B attribute) instead of as a plain string. An
// item is capped at 400 KB, and a result with word timings, confidences and
// sentiment grows by about 16 KB a minute of call (an hour is about 960 KB of
// JSON); gzip cuts it by about 4.5 (the timings and confidences are mostly
// random digits). Up to 32 KB (two minutes of call with words; every summary
// and tags result) an item stays readable as text in the console and in
// tools, and compression would save at most a few of its write units (one
// per KB); from 32 KB it saves tens of units a write and is what lets a long
// call's result fit at all.
const compressAbove = 32 << 10

// itemLimitBytes is DynamoDB's item size limit (400 KB, counted as the
// lengths of the attribute names and values, itemBytes). A succeed transition
// whose result, compressed, does not fit in what the job's item leaves of it
// fails the job with callscribe.JobErrResultTooLarge instead of making a write
// DynamoDB refuses (ValidationException) on every retry.
const itemLimitBytes = 400 << 10

// itemMarginBytes is kept free beside the result: the attributes the succeed
// update adds or lengthens (status, updated_at, rev, the listing keys, a
// detected language) are a few hundred bytes; the rest allows for any
// difference between itemBytes and DynamoDB's own count.
const itemMarginBytes = 2 << 10

// largeJSONAttr encodes JSON that may be large: a string as it is up to
// compressAbove bytes, gzip-compressed bytes above. itemReader.text reads
// both.
func largeJSONAttr(b []byte) (types.AttributeValue, error) {
	if len(b) <= compressAbove {
		return str(string(b)), nil
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return &types.AttributeValueMemberB{Value: buf.Bytes()}, nil
}

// attrBytes is the size DynamoDB counts for an attribute value (its name is
// counted apart): a string's or binary's length, a number's at most 21
// bytes, 1 for a boolean or null, and a list or map 3 bytes plus 1 byte and
// the size of each element (and a map key's length).
func attrBytes(av types.AttributeValue) int {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return 21
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + attrBytes(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + attrBytes(e)
		}
		return n
	case *types.AttributeValueMemberSS:
		n := 0
		for _, e := range v.Value {
			n += len(e)
		}
		return n
	}
	return 1
}

// itemBytes is an item's size as DynamoDB counts it against itemLimitBytes,
// without the attribute skip (the result, when sizing what is left for one).
func itemBytes(item map[string]types.AttributeValue, skip string) int {
	n := 0
	for name, v := range item {
		if name != skip {
			n += len(name) + attrBytes(v)
		}
	}
	return n
}

// itemReader decodes attributes, remembering the first malformed one so that
// decoders read straight through and report once.
type itemReader struct {
	item map[string]types.AttributeValue
	err  error
}

func (r *itemReader) fail(name string, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("attribute %s: %w", name, err)
	}
}

func (r *itemReader) has(name string) bool { _, ok := r.item[name]; return ok }

func (r *itemReader) str(name string) string {
	switch v := r.item[name].(type) {
	case nil:
		return ""
	case *types.AttributeValueMemberS:
		return v.Value
	default:
		r.fail(name, fmt.Errorf("unexpected type %T", v))
		return ""
	}
}

func (r *itemReader) strPtr(name string) *string {
	if !r.has(name) {
		return nil
	}
	s := r.str(name)
	return &s
}

func (r *itemReader) num(name string) float64 {
	switch v := r.item[name].(type) {
	case nil:
		return 0
	case *types.AttributeValueMemberN:
		f, err := strconv.ParseFloat(v.Value, 64)
		if err != nil {
			r.fail(name, err)
		}
		return f
	default:
		r.fail(name, fmt.Errorf("unexpected type %T", v))
		return 0
	}
}

func (r *itemReader) bool(name string) bool {
	v, ok := r.item[name].(*types.AttributeValueMemberBOOL)
	return ok && v.Value
}

func (r *itemReader) time(name string) time.Time {
	s := r.str(name)
	if s == "" {
		return time.Time{}
	}
	t, err := parseTime(s)
	if err != nil {
		r.fail(name, err)
	}
	return t
}

// text reads an attribute written by largeJSONAttr: a string as it is, or
// gzip-compressed bytes (decompressed). Items written before compression
// hold strings only.
func (r *itemReader) text(name string) string {
	v, ok := r.item[name].(*types.AttributeValueMemberB)
	if !ok {
		return r.str(name)
	}
	zr, err := gzip.NewReader(bytes.NewReader(v.Value))
	if err != nil {
		r.fail(name, err)
		return ""
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		r.fail(name, err)
		return ""
	}
	return string(b)
}

func (r *itemReader) json(name string, into any) {
	s := r.text(name)
	if s == "" {
		return
	}
	if err := json.Unmarshal([]byte(s), into); err != nil {
		r.fail(name, err)
	}
}

func (r *itemReader) raw(name string) json.RawMessage {
	s := r.text(name)
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// storedJob is a decoded job item with the bookkeeping the store needs.
type storedJob struct {
	job           *callscribe.Job
	deleted       bool
	quotaReleased bool
	rev           int64 // 0 for items written without a revision
}

func decodeJob(item map[string]types.AttributeValue) (*storedJob, error) {
	r := &itemReader{item: item}
	j := &callscribe.Job{
		ID:               r.str(attrID),
		AccountID:        r.str(attrAccountID),
		Type:             callscribe.JobType(r.str(attrType)).OrDefault(),
		Status:           callscribe.JobStatus(r.str(attrStatus)),
		SourceJobID:      r.str(attrSourceJobID),
		OriginalFilename: r.strPtr(attrOriginalFilename),
		Language:         r.str(attrLanguage),
		AudioSeconds:     r.num(attrAudioSeconds),
		AudioKey:         r.str(attrAudioKey),
		AudioFormat:      callscribe.AudioFormat(r.str(attrAudioFormat)),
		Metadata:         r.raw(attrMetadata),
		Result:           r.raw(attrResult),
		QuotaMonth:       r.str(attrQuotaMonth),
		Attempts:         int(r.num(attrAttempts)),
		RedactPII:        r.bool(attrRedactPII),
		CreatedAt:        r.time(attrCreatedAt),
		UpdatedAt:        r.time(attrUpdatedAt),
	}
	if r.has(attrInput) {
		j.Input = &callscribe.Transcript{}
		r.json(attrInput, j.Input)
	}
	if r.has(attrCallback) {
		j.Callback = &callscribe.Callback{}
		r.json(attrCallback, j.Callback)
	}
	if r.has(attrError) {
		j.Error = &callscribe.JobError{}
		r.json(attrError, j.Error)
	}
	if l, ok := item[attrKeyterms].(*types.AttributeValueMemberL); ok {
		for _, v := range l.Value {
			t, ok := v.(*types.AttributeValueMemberS)
			if !ok {
				return nil, fmt.Errorf("decode job %s: keyterms holds a %T", j.ID, v)
			}
			j.Keyterms = append(j.Keyterms, t.Value)
		}
	}
	s := &storedJob{job: j, deleted: r.has(attrDeletedAt), quotaReleased: r.bool(attrQuotaReleased), rev: int64(r.num(attrRev))}
	if r.err != nil {
		return nil, fmt.Errorf("decode job %s: %w", j.ID, r.err)
	}
	return s, nil
}

// resultMinutesThatFit is how many minutes of call a result with word
// timings, confidences and sentiment can cover in a job with little metadata
// and no keyterms: 215 KB compressed an hour (965 KB of JSON) on the
// synthetic result of largeresult_test.go, which checks this figure, against
// about 406 KB of room.
const resultMinutesThatFit = 110
