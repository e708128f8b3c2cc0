package callback

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func tagsJob(status callscribe.JobStatus, result string) *callscribe.Job {
	j := &callscribe.Job{
		ID:       "0b7c4f52-5c2e-4d8e-9a43-1f0f8b1e9d11",
		Type:     callscribe.TypeTags,
		Status:   status,
		Callback: &callscribe.Callback{URL: "https://example.com/hook", CallUUID: "call-42"},
	}
	if result != "" {
		j.Result = json.RawMessage(result)
	}
	return j
}

const msgID = "6f1d2c3b-aaaa-4bbb-8ccc-123456789abc"

// wireShape decodes the JSON of p generically, so the test sees field names and
// nulls exactly as a receiver would.
func wireShape(t *testing.T, p callscribe.TagDeliveredPayload) map[string]any {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func keys(m map[string]any) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	slices.Sort(k)
	return k
}

// assertWireShape checks the body against the tagDelivered table: exactly the
// spec's fields, one tags object, three arrays of strings (never null).
func assertWireShape(t *testing.T, m map[string]any, wantStatus, wantCallUUID, wantRequestID, wantMsgID string, wantTags map[string][]string) {
	t.Helper()
	if got := keys(m); !reflect.DeepEqual(got, []string{"call_uuid", "data", "status"}) {
		t.Fatalf("top-level fields = %v", got)
	}
	if m["status"] != wantStatus || m["call_uuid"] != wantCallUUID {
		t.Errorf("status, call_uuid = %v, %v; want %s, %s", m["status"], m["call_uuid"], wantStatus, wantCallUUID)
	}
	data, ok := m["data"].(map[string]any)
	if !ok {
		t.Fatalf("data = %#v, want object", m["data"])
	}
	if got := keys(data); !reflect.DeepEqual(got, []string{"msg_id", "request_id", "tags"}) {
		t.Fatalf("data fields = %v", got)
	}
	if data["request_id"] != wantRequestID || data["msg_id"] != wantMsgID {
		t.Errorf("request_id, msg_id = %v, %v; want %s, %s", data["request_id"], data["msg_id"], wantRequestID, wantMsgID)
	}
	tags, ok := data["tags"].([]any)
	if !ok || len(tags) != 1 {
		t.Fatalf("data.tags = %#v, want an array of one object", data["tags"])
	}
	obj, ok := tags[0].(map[string]any)
	if !ok {
		t.Fatalf("data.tags[0] = %#v, want object", tags[0])
	}
	if got := keys(obj); !reflect.DeepEqual(got, []string{"agent_approach", "call_outcome", "customer_sentiment"}) {
		t.Fatalf("tag object fields = %v", got)
	}
	for cat, want := range wantTags {
		arr, ok := obj[cat].([]any)
		if !ok {
			t.Fatalf("%s = %#v, want an array (never null)", cat, obj[cat])
		}
		got := []string{}
		for _, v := range arr {
			s, ok := v.(string)
			if !ok {
				t.Fatalf("%s holds %#v, want strings", cat, v)
			}
			got = append(got, s)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", cat, got, want)
		}
	}
}

func TestBuildPayloadSucceeded(t *testing.T) {
	job := tagsJob(callscribe.StatusSucceeded, `{"tags":{"call_reason":["billing"],"agent_approach":["empathetic","informative"],"call_outcome":["resolved"],"customer_sentiment":["positive"]},"meta_data":{"method":"builtin"}}`)
	p, err := BuildPayload(job, msgID)
	if err != nil {
		t.Fatal(err)
	}
	assertWireShape(t, wireShape(t, p), "succeeded", "call-42", job.ID, msgID, map[string][]string{
		"agent_approach":     {"empathetic", "informative"},
		"call_outcome":       {"resolved"},
		"customer_sentiment": {"positive"},
	})
}

func TestBuildPayloadEmptyArraysNeverNull(t *testing.T) {
	empty := map[string][]string{"agent_approach": {}, "call_outcome": {}, "customer_sentiment": {}}
	for _, tc := range []struct {
		name   string
		job    *callscribe.Job
		status string
		want   map[string][]string
	}{
		// A failed job may still carry a stale or partial result; it must not leak.
		{"failed", tagsJob(callscribe.StatusFailed, `{"tags":{"call_outcome":["resolved"]}}`), "failed", empty},
		{"succeeded without result", tagsJob(callscribe.StatusSucceeded, ""), "succeeded", empty},
		{"succeeded with null result", tagsJob(callscribe.StatusSucceeded, "null"), "succeeded", empty},
		{"missing and null categories", tagsJob(callscribe.StatusSucceeded, `{"tags":{"call_outcome":["escalated"],"agent_approach":null}}`), "succeeded",
			map[string][]string{"agent_approach": {}, "call_outcome": {"escalated"}, "customer_sentiment": {}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := BuildPayload(tc.job, msgID)
			if err != nil {
				t.Fatal(err)
			}
			assertWireShape(t, wireShape(t, p), tc.status, "call-42", tc.job.ID, msgID, tc.want)
			b, _ := json.Marshal(p)
			if strings.Contains(string(b), "null") {
				t.Errorf("body contains null: %s", b)
			}
		})
	}
}

func TestBuildPayloadRefusesWhatCannotBeDelivered(t *testing.T) {
	notTags := tagsJob(callscribe.StatusSucceeded, "")
	notTags.Type = callscribe.TypeSummary
	noCallback := tagsJob(callscribe.StatusSucceeded, "")
	noCallback.Callback = nil
	for _, tc := range []struct {
		name  string
		job   *callscribe.Job
		msgID string
	}{
		{"nil job", nil, msgID},
		{"summary job", notTags, msgID},
		{"no callback", noCallback, msgID},
		{"queued", tagsJob(callscribe.StatusQueued, ""), msgID},
		{"processing", tagsJob(callscribe.StatusProcessing, ""), msgID},
		{"empty msg id", tagsJob(callscribe.StatusSucceeded, ""), ""},
		{"malformed result", tagsJob(callscribe.StatusSucceeded, `{"tags":{"call_outcome":"resolved"}}`), msgID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := BuildPayload(tc.job, tc.msgID); err == nil {
				t.Fatal("BuildPayload succeeded, want an error")
			}
		})
	}
}

func TestNormalizePayloadFillsNilArraysWithoutMutatingInput(t *testing.T) {
	in := callscribe.TagDeliveredPayload{Status: "succeeded", CallUUID: "c", Data: callscribe.TagDeliveredData{
		Tags: []callscribe.TagDeliveredTags{{CallOutcome: []string{"resolved"}}}, RequestID: "r", MsgID: "m",
	}}
	out := normalizePayload(in)
	assertWireShape(t, wireShape(t, out), "succeeded", "c", "r", "m", map[string][]string{
		"agent_approach": {}, "call_outcome": {"resolved"}, "customer_sentiment": {},
	})
	if in.Data.Tags[0].AgentApproach != nil {
		t.Error("normalizePayload modified the caller's payload")
	}
	none := normalizePayload(callscribe.TagDeliveredPayload{Status: "failed", CallUUID: "c", Data: callscribe.TagDeliveredData{RequestID: "r", MsgID: "m"}})
	assertWireShape(t, wireShape(t, none), "failed", "c", "r", "m", map[string][]string{
		"agent_approach": {}, "call_outcome": {}, "customer_sentiment": {},
	})
}
