package awstranscribe

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// pii is a word content redaction replaced, as Transcribe writes it.
func pii(entity, start, end string) map[string]any {
	return map[string]any{"type": "pronunciation", "start_time": start, "end_time": end, "alternatives": []any{
		map[string]any{"confidence": "0.0", "content": "[PII]", "redactions": []any{
			map[string]any{"confidence": "0.99", "type": entity, "category": "PII"},
		}},
	}}
}

// A redact_pii job asks Transcribe for its PII redaction (redacted output
// only), and the "[PII]" items come back as package redact's tokens: one
// word per item however many items Transcribe marked, timed across them.
func TestRedactPIIUsesContentRedaction(t *testing.T) {
	e := newEnv(t, 1)
	out, _ := json.Marshal(map[string]any{
		"jobName": "x", "accountId": "123456789012", "status": "COMPLETED",
		"results": map[string]any{
			"language_code": "en-US",
			"transcripts":   []any{map[string]any{"transcript": "Card [PII] [PII], phone [PII]."}},
			"items": []any{
				word("Card", "0.2", "0.5"), pii("CREDIT_DEBIT_NUMBER", "0.6", "2.0"), pii("CREDIT_DEBIT_NUMBER", "2.0", "3.5"), punct(","),
				word("phone", "3.8", "4.1"), pii("PHONE", "4.2", "6.0"), punct("."),
			},
		},
	})
	e.fake.next = fakeJob{statuses: []string{"COMPLETED"}, languageCode: "en-US", output: out}
	req := callscribe.TranscriptionRequest{JobID: "job-pii", AudioKey: "audio/job-pii", Audio: wav(1, 7), Format: callscribe.FormatWAV, Language: "en", RedactPII: true}

	res, err := e.transcribe(t, req)
	wantPending(t, res, err)
	wantRedaction := map[string]any{
		"RedactionType": "PII", "RedactionOutput": "redacted",
		"PiiEntityTypes": []any{"CREDIT_DEBIT_NUMBER", "PHONE", "EMAIL", "BANK_ACCOUNT_NUMBER", "BANK_ROUTING", "SSN"},
	}
	if got := e.fake.jobs["callscribe-job-pii"].input["ContentRedaction"]; !reflect.DeepEqual(got, wantRedaction) {
		t.Errorf("ContentRedaction = %v\nwant %v", got, wantRedaction)
	}

	res, err = e.transcribe(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Transcript) != 1 {
		t.Fatalf("segments = %+v", res.Transcript)
	}
	seg := res.Transcript[0]
	if want := "Card [REDACTED:CARD], phone [REDACTED:PHONE]."; seg.Text != want {
		t.Errorf("text = %q, want %q", seg.Text, want)
	}
	var got []callscribe.Word
	for _, w := range seg.Words {
		got = append(got, callscribe.Word{Text: w.Text, Start: w.Start, End: w.End})
	}
	want := []callscribe.Word{{Text: "Card", Start: 0.2, End: 0.5}, {Text: "[REDACTED:CARD]", Start: 0.6, End: 3.5}, {Text: "phone", Start: 3.8, End: 4.1}, {Text: "[REDACTED:PHONE]", Start: 4.2, End: 6}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("words = %+v\nwant %+v", got, want)
	}
}

// Without redact_pii the request has no ContentRedaction.
func TestNoContentRedactionByDefault(t *testing.T) {
	e := newEnv(t, 1)
	e.fake.next = fakeJob{statuses: []string{"COMPLETED"}, languageCode: "es-US", output: monoOutput()}
	req := callscribe.TranscriptionRequest{JobID: "job-plain", AudioKey: "audio/job-plain", Audio: wav(1, 3), Format: callscribe.FormatWAV}
	res, err := e.transcribe(t, req)
	wantPending(t, res, err)
	if got, ok := e.fake.jobs["callscribe-job-plain"].input["ContentRedaction"]; ok {
		t.Errorf("ContentRedaction = %v, want none", got)
	}
}
