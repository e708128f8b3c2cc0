package transcribe

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	transcribesdk "github.com/aws/aws-sdk-go-v2/service/transcribe"
	"github.com/aws/aws-sdk-go-v2/service/transcribe/types"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// With ContentRedaction the output object holds "[PII]" items, never the
// engine's digits or address, and the project's adapter (asked with
// RedactPII) reads them back as redact tokens.
func TestContentRedaction(t *testing.T) {
	words := strings.Fields("my card is four two four two four two four two four two four two four two four two and mail bob at example dot com")
	seg := callscribe.Segment{Text: strings.Join(words, " "), TimeStart: 0, TimeEnd: float64(len(words)) * 0.2}
	for i, w := range words {
		seg.Words = append(seg.Words, callscribe.Word{Text: w, Start: float64(i) * 0.2, End: float64(i+1) * 0.2})
	}
	e := newEnv(t, &scriptEngine{language: "en", segments: []callscribe.Segment{seg}}, 1)
	e.put(t, "audio/pii", toneWAV(1, 6))

	res, err := transcribe(t, e.adapter(0), callscribe.TranscriptionRequest{
		JobID: "job-pii", AudioKey: "audio/pii", Audio: toneWAV(1, 6), Format: callscribe.FormatWAV, Language: "en", RedactPII: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "my card is [REDACTED:CARD] and mail [REDACTED:EMAIL]"; res.Transcript[0].Text != want {
		t.Errorf("text = %q, want %q", res.Transcript[0].Text, want)
	}

	// The raw output, read before the adapter deletes it.
	_, err = e.startJob(t, "raw-pii", "audio/pii", func(in *transcribesdk.StartTranscriptionJobInput) {
		in.Settings.ChannelIdentification = aws.Bool(false)
		in.ContentRedaction = &types.ContentRedaction{RedactionType: types.RedactionTypePii, RedactionOutput: types.RedactionOutputRedacted}
	})
	if err != nil {
		t.Fatal(err)
	}
	job := e.wait(t, "raw-pii")
	if job.Transcript == nil || aws.ToString(job.Transcript.RedactedTranscriptFileUri) == "" || job.Transcript.TranscriptFileUri != nil {
		t.Errorf("transcript URIs = %+v, want only the redacted one", job.Transcript)
	}
	raw, ok := e.object(t, "out/raw-pii.json")
	if !ok {
		t.Fatal("no output object")
	}
	out := string(raw)
	for _, leaked := range []string{"four", "bob", "example"} {
		if strings.Contains(out, leaked) {
			t.Errorf("the output holds %q: %s", leaked, out)
		}
	}
	for _, want := range []string{`"content":"[PII]"`, `"type":"CREDIT_DEBIT_NUMBER"`, `"type":"EMAIL"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %s: %s", want, out)
		}
	}
}

func TestContentRedactionValidation(t *testing.T) {
	e := newEnv(t, &scriptEngine{}, 1)
	e.put(t, "audio/a", toneWAV(2, 1))
	for name, cr := range map[string]*types.ContentRedaction{
		"both outputs":   {RedactionType: types.RedactionTypePii, RedactionOutput: types.RedactionOutputRedactedAndUnredacted},
		"unknown type":   {RedactionType: "NAMES", RedactionOutput: types.RedactionOutputRedacted},
		"unknown entity": {RedactionType: types.RedactionTypePii, RedactionOutput: types.RedactionOutputRedacted, PiiEntityTypes: []types.PiiEntityType{"SHOE_SIZE"}},
	} {
		_, err := e.startJob(t, "v-"+strings.ReplaceAll(name, " ", "-"), "audio/a", func(in *transcribesdk.StartTranscriptionJobInput) { in.ContentRedaction = cr })
		if got := apiCode(err); got != "BadRequestException" {
			t.Errorf("%s: got %v, want BadRequestException", name, err)
		}
	}
}
