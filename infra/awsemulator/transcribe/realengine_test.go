package transcribe

import (
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines/sphinx"
	"github.com/callscribe/callscribe/shared/testkit/apitest"
)

// The AWS stack's redaction path on real speech, in process: the
// aws-transcribe adapter asks this stand-in for content redaction, and the
// embedded engine's words of a synthesised call reading out a card number, a
// phone number and an e-mail address come back as tokens, with no value left
// in the output object or the result. (The emulator's black-box test,
// TestBlackBoxAWSLocalRedactionMP3RealEngine, runs the same call as an MP3
// through the Lambda handlers, but needs the local DynamoDB and SQS of make
// deps-aws.)
func TestContentRedactionOnRealSpeech(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the embedded speech engine on a synthesised call")
	}
	call := apitest.SynthesizePIICall(t)
	engine, err := sphinx.NewTranscriber(sphinx.Config{Decoders: 1})
	if err != nil {
		t.Skipf("the embedded speech engine is not available: %v", err)
	}
	t.Cleanup(func() { engine.Close() })
	e := newEnv(t, engine, 1)
	e.put(t, "audio/pii-call", call.Audio)
	res, err := transcribe(t, e.adapter(0), callscribe.TranscriptionRequest{
		JobID: "job-pii-call", AudioKey: "audio/pii-call", Audio: call.Audio, Format: callscribe.FormatWAV, Language: "en", RedactPII: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, s := range res.Transcript {
		t.Logf("%s: %s", s.SpeakerAlias, s.Text)
		text.WriteString(s.Text + "\n")
	}
	got := strings.ToLower(text.String())
	for _, token := range []string{"[redacted:card]", "[redacted:phone]", "[redacted:email]"} {
		if !strings.Contains(got, token) {
			t.Errorf("the transcript has no %s", token)
		}
	}
	for _, secret := range call.Secrets {
		if strings.Contains(got, strings.ToLower(secret)) {
			t.Errorf("the transcript holds %q", secret)
		}
	}
}
