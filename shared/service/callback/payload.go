package callback

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Taxonomy categories carried by tagDelivered. call_reason is part of a tags
// job's result but not of the callback contract, so it is left out on purpose.
const (
	categoryAgentApproach     = "agent_approach"
	categoryCallOutcome       = "call_outcome"
	categoryCustomerSentiment = "customer_sentiment"
)

// BuildPayload makes the tagDelivered body for a tags job that reached a
// terminal status. msgID is the message's UUID, fixed across its retries.
//
// status is the job's status ("succeeded" or "failed"); data.tags is always one
// object whose three arrays are never null: empty when the job failed or its
// result lacks a category. A succeeded job whose result cannot be decoded is an
// error rather than an empty delivery, because telling the receiver "succeeded,
// no tags" would be a lie it cannot detect.
func BuildPayload(job *callscribe.Job, msgID string) (callscribe.TagDeliveredPayload, error) {
	var p callscribe.TagDeliveredPayload
	switch {
	case job == nil:
		return p, errors.New("callback: no job")
	case job.Type != callscribe.TypeTags:
		return p, fmt.Errorf("callback: job %s has type %q, only tags jobs deliver tagDelivered", job.ID, job.Type)
	case job.Callback == nil:
		return p, fmt.Errorf("callback: job %s has no callback", job.ID)
	case !job.Status.Terminal():
		return p, fmt.Errorf("callback: job %s is %s, not terminal", job.ID, job.Status)
	case msgID == "":
		return p, fmt.Errorf("callback: job %s: empty msg_id", job.ID)
	}

	tags := callscribe.TagDeliveredTags{
		AgentApproach:     []string{},
		CallOutcome:       []string{},
		CustomerSentiment: []string{},
	}
	if job.Status == callscribe.StatusSucceeded && len(job.Result) > 0 && string(job.Result) != "null" {
		var r callscribe.TagsResult
		if err := json.Unmarshal(job.Result, &r); err != nil {
			return p, fmt.Errorf("callback: job %s: decode tags result: %w", job.ID, err)
		}
		tags.AgentApproach = nonNil(r.Tags[categoryAgentApproach])
		tags.CallOutcome = nonNil(r.Tags[categoryCallOutcome])
		tags.CustomerSentiment = nonNil(r.Tags[categoryCustomerSentiment])
	}

	return callscribe.TagDeliveredPayload{
		Status:   string(job.Status),
		CallUUID: job.Callback.CallUUID,
		Data: callscribe.TagDeliveredData{
			Tags:      []callscribe.TagDeliveredTags{tags},
			RequestID: job.ID,
			MsgID:     msgID,
		},
	}, nil
}

// nonNil turns a nil slice into an empty one so it encodes as [] — the
// contract makes the three arrays required, and null is not an array.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// normalizePayload returns p with every array non-nil, so a payload built by
// hand (not by BuildPayload) still honours the contract on the wire.
func normalizePayload(p callscribe.TagDeliveredPayload) callscribe.TagDeliveredPayload {
	if len(p.Data.Tags) == 0 {
		p.Data.Tags = []callscribe.TagDeliveredTags{{}}
	} else {
		p.Data.Tags = append([]callscribe.TagDeliveredTags(nil), p.Data.Tags...)
	}
	for i := range p.Data.Tags {
		t := &p.Data.Tags[i]
		t.AgentApproach = nonNil(t.AgentApproach)
		t.CallOutcome = nonNil(t.CallOutcome)
		t.CustomerSentiment = nonNil(t.CustomerSentiment)
	}
	return p
}
